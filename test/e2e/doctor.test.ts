/**
 * Issue 38, mcpx asks for itself: `mcpx doctor` on a config whose server needs a token it was not given
 * (`"env": {"FIXTURE_TOKEN": "${DOCTOR_TOKEN}"}`, DOCTOR_TOKEN unset) asks for it rather than report it: exit 75
 * headless with the question's id; an agent (through `mcpx serve`) cannot answer it; the person's `mcpx elicit answer`
 * from another process keeps it in the secret store, and then `mcpx doctor` and `mcpx call` find the server started
 * with it (the fixture proves it by the value's SHA-256), and the token is in no file but the secret store.
 * Built CLI processes, a real daemon, the SQLite state dir, the file secret store.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup, textOf, v2Client, type ServeSetup, type TestClient } from '../helpers/serve.js';

const root = resolve(import.meta.dirname, '..', '..');
const needsToken = join(root, 'test', 'fixtures', 'servers', 'needs-token.mjs');
const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Paths of the files under dir whose bytes contain text. */
function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(text));
}

/** POST over the daemon's unix socket, as a local REST client would: the status and the body. */
function post(
  socketPath: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: any }> {
  return new Promise((done, fail) => {
    const req = request(
      { socketPath, path, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', fail).end(JSON.stringify(body));
  });
}

describe('mcpx doctor asks for a token the config refers to and the environment lacks', () => {
  let setup: ServeSetup;
  let agent: TestClient | undefined;
  beforeAll(() => {
    // A real daemon (not inline): it holds the question after doctor exits.
    setup = serveSetup({}, { MCPX_SESSION_ID: 'doctor-e2e', MCPX_SECRET_STORE: 'file', MCPX_DAEMON: '' });
    writeFileSync(
      setup.configPath,
      `{
  // a server that refuses to start without its token
  "mcpServers": {
    "tok": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(needsToken)}], "env": { "FIXTURE_TOKEN": "\${DOCTOR_TOKEN}" } }
  }
}
`,
    );
  });
  afterAll(async () => {
    await agent?.close();
    await setup.cli(['daemon', 'stop']);
  });

  it('exits 75 with the question; an agent is refused; after the person answers, the server starts with the token', async () => {
    const token = `tok_${randomBytes(12).toString('hex')}`;
    const asked = await setup.cli(['doctor']);
    expect(asked.code, asked.stdout + asked.stderr).toBe(75);
    expect(asked.stdout).toContain('${DOCTOR_TOKEN}');
    expect(asked.stdout).toContain('FIXTURE_TOKEN');
    const id = /mcpx elicit answer (elc-[0-9a-f]{16})/.exec(asked.stdout)?.[1];
    expect(id, asked.stdout).toBeDefined();

    // Run again before the answer: the same question, not a second one.
    const twice = await setup.cli(['doctor']);
    expect(twice.code, twice.stdout + twice.stderr).toBe(75);
    expect(twice.stdout).toContain(`mcpx elicit answer ${id}`);
    const listed = await setup.cli(['elicit', 'list', '--json']);
    const pending = (JSON.parse(listed.stdout) as { elicitations: Array<{ id: string; asker?: string }> }).elicitations;
    expect(pending).toEqual([expect.objectContaining({ id, asker: 'mcpx' })]);

    // An agent through mcpx serve cannot supply it.
    agent = await v2Client(setup, { era: 'modern' });
    const refused = await agent.callTool('mcpx_elicit_answer', {
      id,
      action: 'accept',
      content: { value: 'made-up-by-the-agent' },
      waitSeconds: 0,
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/only the person may accept it/);
    // Nor can a REST client answering as an agent.
    const socket = JSON.parse((await setup.cli(['daemon', 'status', '--json'])).stdout).socket as string;
    const rest = await post(
      socket,
      `/v1/elicit/${id}/accept`,
      { 'x-mcpx-by': 'agent', 'x-mcpx-session': 'doctor-e2e' },
      { content: { value: 'made-up-by-the-agent' } },
    );
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe('PERSON_REQUIRED');

    const answered = await setup.cli(['elicit', 'answer', id!, JSON.stringify({ value: token })]);
    expect(answered.code, answered.stderr).toBe(0);

    const again = await setup.cli(['doctor', '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as {
      servers: Array<{ server: string; verdict: string; offers?: { tools: number } }>;
    };
    expect(report.servers).toEqual([
      expect.objectContaining({ server: 'tok', verdict: 'ok', offers: expect.objectContaining({ tools: 1 }) }),
    ]);

    const call = await setup.cli(['call', 'tok.whoami', '--json']);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).structuredContent.sha256).toBe(sha256(token));

    for (const output of [asked, answered, again, call]) expect(output.stdout + output.stderr).not.toContain(token);
    // In the secret store (the 0600 file in the state dir), and in no other file.
    expect(filesHolding(setup.dir, token)).toEqual([join(setup.env.MCPX_STATE_DIR!, 'secrets.json')]);
  });

  it('reports what no answer fixes (a program not on PATH) and exits 1, asking nothing', async () => {
    const broken = join(setup.dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ mcpServers: { gone: { command: 'no-such-program-mcpx-doctor' } } }));
    const run = await setup.cli(['doctor', '--config', broken, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as { servers: Array<Record<string, unknown>>; questions: unknown[] };
    expect(report.questions).toEqual([]);
    expect(report.servers).toEqual([
      expect.objectContaining({
        server: 'gone',
        verdict: 'problem',
        findings: [expect.objectContaining({ ok: false, check: 'command', text: expect.stringContaining('not found on PATH') })],
      }),
    ]);
  });
});
