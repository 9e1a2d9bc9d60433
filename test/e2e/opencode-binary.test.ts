/**
 * The plugin loaded by the real opencode binary (`opencode-ai` from npm), headless: `opencode serve` on a project
 * whose `.opencode/plugins/mcpx.js` re-exports the built `dist/opencode.js`. opencode lists the plugin's tools,
 * its `shell.env` hook gives the session's shell MCPX_SESSION_ID, a `mcpx call` from that shell opens its question
 * in that session, and the plugin's toast for it reaches opencode's event stream. The agent's own tool calls need
 * a model, so they are driven in opencode-plugin.test.ts.
 *
 * The binary is not a dependency (177 MB for linux-x64): .ci/run fetches it and sets OPENCODE_BIN; locally, set it to
 * its path (`npm i opencode-ai@1.18.33`, then node_modules/opencode-linux-x64/bin/opencode) to run this file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const bin = process.env.OPENCODE_BIN;

let dir: string;
let project: string;
let env: Record<string, string>;
let server: ChildProcess | undefined;
let base: string;

function mcpx(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((done) =>
    execFile(process.execPath, [cli, ...args], { cwd: project, env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
    ),
  );
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const url = `${base}${path}${path.includes('?') ? '&' : '?'}directory=${encodeURIComponent(project)}`;
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

/** What a shell command printed, from the tool part opencode's shell endpoint answers with. */
async function shell(session: string, command: string): Promise<string> {
  const message = await api<{ parts: Array<{ type: string; state?: { output?: string; metadata?: { output?: string } } }> }>(
    'POST',
    `/session/${session}/shell`,
    { agent: 'build', command },
  );
  return message.parts.map((p) => p.state?.output ?? p.state?.metadata?.output ?? '').join('\n');
}

describe.skipIf(!bin)('the opencode binary loads mcpx/opencode headless', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-opencode-bin-'));
    project = join(dir, 'project');
    mkdirSync(join(project, '.opencode', 'plugins'), { recursive: true });
    writeFileSync(
      join(project, '.opencode', 'plugins', 'mcpx.js'),
      `export { default } from ${JSON.stringify(join(root, 'dist', 'opencode.js'))};\n`,
    );
    writeFileSync(join(project, 'mcpx.json'), JSON.stringify({ mcpServers: { legacy: stdioFixture('legacy-v1') } }));
    const home = join(dir, 'home');
    env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      MCPX_STATE_DIR: join(dir, 'state'),
      MCPX_CONFIG_DIR: join(dir, 'config'),
    };
    server = spawn(bin!, ['serve', '--port', '0', '--hostname', '127.0.0.1'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    base = await new Promise<string>((done, fail) => {
      let seen = '';
      server!.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
        if (match) done(match[1]!);
      });
      server!.on('exit', (code) => fail(new Error(`opencode serve exited (${code}): ${seen}`)));
    });
  });
  afterAll(async () => {
    server?.kill();
    await mcpx(['daemon', 'stop']);
  });

  it('lists the plugin tools, binds the session in its shell, and toasts the question a call from that shell raises', async () => {
    const session = (await api<{ id: string }>('POST', '/session', {})).id;
    const tools = await api<string[]>('GET', '/experimental/tool/ids');
    expect(tools).toEqual(expect.arrayContaining(['mcpx_elicit_list', 'mcpx_elicit_answer', 'mcpx_elicit_ask', 'question']));
    expect(await shell(session, 'echo "SID=$MCPX_SESSION_ID ELICIT=$MCPX_ELICIT"')).toContain(`SID=${session} ELICIT=return`);

    // The agent's first call starts the daemon; the next hook subscribes the plugin to its events.
    await shell(session, `${process.execPath} ${cli} call legacy.ask_form title=first; echo "EXIT=$?"`);
    await shell(session, 'true');
    const events = await fetch(`${base}/event?directory=${encodeURIComponent(project)}`);
    const reader = events.body!.getReader();
    const toast = (async () => {
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
        if (text.includes('tui.toast.show') && text.includes('Really opencode?')) return text;
      }
    })();
    expect(await shell(session, `${process.execPath} ${cli} call legacy.ask_confirm action=opencode; echo "EXIT=$?"`)).toContain(
      'Really opencode?',
    );
    expect(await toast).toContain('"title":"legacy (via mcpx) asks"');
    await reader.cancel();

    // This test process is in no opencode session: it lists as the operator.
    const listed = JSON.parse((await mcpx(['elicit', 'list', '--all', '--json'])).stdout) as {
      elicitations: Array<{ session: string; message: string; sessionSource?: string }>;
    };
    expect(listed.elicitations.map((q) => [q.message, q.session])).toEqual(
      expect.arrayContaining([
        ['Where should "first" go?', session],
        ['Really opencode?', session],
      ]),
    );
  });
});
