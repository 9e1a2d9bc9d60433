/**
 * Adapter tools are tools like any other, through the built CLI: a script (`mcpx exec`) calls them, `mcpx gen`
 * types them, and `mcpx serve` serves them to an agent, forwarding a write's confirmation as
 * "api (via mcpx) asks: ...". The notes API counts what it receives.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotesApi, type NotesApi } from '../../examples/servers/notes-api.mjs';

const root = resolve(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
let api: NotesApi;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  api = await startNotesApi();
  dir = mkdtempSync(join(tmpdir(), 'mcpx-e2e-adapters-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { api: { openapi: `${api.url}/openapi.json`, methods: ['all'] } } }),
  );
  env = { PATH: process.env.PATH ?? '', MCPX_STATE_DIR: join(dir, 'state'), HOME: dir };
});
afterAll(() => api.close());

function mcpx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args], { cwd: dir, env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('adapter tools on every surface (built CLI)', () => {
  it('a script calls them, and a write it does not confirm stops the run with exit 75', async () => {
    const read = await mcpx(['exec', 'const r = await tools.api.list_notes({ limit: 3 }); export default r.notes.length']);
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    expect(read.stdout.trim()).toBe('0');
    const write = await mcpx([
      'exec',
      "await tools.api.create_note({ body: { title: 'from a script' } })",
      '--elicit=return',
      '--timeout',
      '20s',
    ]);
    expect(write.code).toBe(75);
    expect(write.stdout).toMatch(/^mcpx: api\.create_note is waiting for input and nothing here can answer it\./);
    expect(write.stdout).toContain('POST /notes with {"title":"from a script"}: proceed?');
    expect(api.requests['POST /notes']).toBeUndefined();
  });

  it('mcpx gen types them', async () => {
    const gen = await mcpx(['gen', '--out', 'gen', '--no-daemon']);
    expect(gen.code).toBe(0);
    const module = readFileSync(join(dir, 'gen', 'api.ts'), 'utf8');
    expect(module).toContain('create_note');
    expect(module).toMatch(/title: string/);
  });

  it('mcpx serve serves them and forwards the confirmation to the agent', async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const messages: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      messages.push(request.params.message);
      return { action: 'accept', content: {} };
    });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [cli, 'serve'], cwd: dir, env, stderr: 'pipe' }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_notes', 'create_note', 'get_note', 'delete_note']));
      const result = await client.callTool({ name: 'create_note', arguments: { body: { title: 'from an agent' } } });
      expect(messages).toEqual(['api (via mcpx) asks: POST /notes with {"title":"from an agent"}: proceed?']);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ title: 'from an agent' });
      expect(api.requests['POST /notes']).toBe(1);
    } finally {
      await client.close();
    }
  });
});
