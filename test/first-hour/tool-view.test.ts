/**
 * Issue #35 friction, on the built CLI with server-everything and server-memory: `mcpx list server.tool` shows one
 * tool with each parameter (type, required, description); nested parameters show as their fields, not `{…}[]`; and
 * the exit-75 message of a question with a long schema shows its fields one a line, as the form asks them, instead
 * of the schema as one line of JSON.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli-run.js';

const resolve = createRequire(import.meta.url).resolve;
const everything = resolve('@modelcontextprotocol/server-everything/dist/index.js');
const memory = resolve('@modelcontextprotocol/server-memory/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'mcpx-tool-view-'));
writeFileSync(
  join(dir, 'mcpx.json'),
  JSON.stringify({
    mcpServers: {
      everything: { command: process.execPath, args: [everything, 'stdio'] },
      memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
    },
  }),
);
const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state'), MCPX_DAEMON: 'inline' };
const run = (args: string[]): Promise<CliRun> => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });

describe('one tool, its parameters and its questions, as a person reads them', () => {
  it('mcpx list everything.get-sum shows that tool with each parameter, and the call that uses them', async () => {
    const shown = await run(['list', 'everything.get-sum']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('get-sum(a: number, b: number)');
    expect(shown.stdout).toMatch(/^ {4}a {2}number, required {2}First number$/m);
    expect(shown.stdout).toMatch(/^ {4}b {2}number, required {2}Second number$/m);
    expect(shown.stdout).toContain('Call it: mcpx call everything.get-sum a=… b=…');
    expect(shown.stdout).not.toContain('echo');

    const json = JSON.parse((await run(['list', 'everything.get-sum', '--json'])).stdout) as { tool: { name: string } };
    expect(json.tool.name).toBe('get-sum');

    const typo = await run(['list', 'everything.get-sun']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('everything has no tool named "get-sun"; did you mean get-sum?');
  });

  it('nested parameters show as their fields, in the listing and by their path in the single-tool view', async () => {
    const listed = await run(['list', 'memory']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain('{…}');
    expect(listed.stdout).toContain('create_relations(relations: ({ from: string, to: string, relationType: string })[])');

    const shown = await run(['list', 'memory.create_entities']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^ {4}entities +object\[\], required/m);
    expect(shown.stdout).toMatch(/^ {4}entities\[\]\.name +string, required +The name of the entity$/m);
    expect(shown.stdout).toMatch(/^ {4}entities\[\]\.observations +string\[\], required +/m);
  });

  it('the exit-75 message shows a long schema as its fields, one a line, not as one line of JSON', async () => {
    const called = await run(['call', 'everything.trigger-elicitation-request', '--elicit=return']);
    expect(called.code, called.stderr).toBe(75);
    expect(called.stdout).not.toMatch(/^ {2}schema /m);
    expect(called.stdout).toMatch(/^ {2}fields {3}name +string, required +String: Your full, legal name$/m);
    expect(called.stdout).toMatch(/^ {11}email +string, optional, format email +/m);
    expect(called.stdout).toMatch(/^ {11}integer +integer, optional, default 42, >= 1, <= 100 +/m);
    expect(called.stdout).toMatch(/^ {11}untitledSingleSelectEnum +one of "Monica" \| "Rachel"/m);
    expect(called.stdout).not.toContain('"properties"');
  });
});
