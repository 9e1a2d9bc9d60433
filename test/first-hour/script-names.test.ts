/**
 * Issue #35 item 7: docs/scripts.md said `create-issue` becomes `create_issue` while the runtime used `createIssue`.
 * What the docs say now, held on the built CLI with server-everything: a script reaches a hyphenated tool by its
 * camelCase member (`getSum`) and by its original name (`['get-sum']`); the wire gets the original either way.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli-run.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

it('a script calls get-sum as tools.everything.getSum and as tools.everything["get-sum"], as docs/scripts.md says', async () => {
  const docs = readFileSync(resolve(import.meta.dirname, '..', '..', 'docs', 'scripts.md'), 'utf8');
  expect(docs).toContain('`create-issue` → `createIssue`');
  expect(docs).toContain('either the original or the converted name works from a script');

  const dir = mkdtempSync(join(tmpdir(), 'mcpx-script-names-'));
  writeFileSync(
    join(dir, 'mcpx.json'),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
  );
  const env = { PATH: process.env.PATH ?? '', HOME: dir, MCPX_STATE_DIR: join(dir, 'state'), MCPX_DAEMON: 'inline' };
  const script = `const text = (r) => r.content[0].text;
export default [text(await tools.everything.getSum({ a: 1, b: 2 })), text(await tools.everything['get-sum']({ a: 2, b: 3 }))];`;
  const run = await runCli(['exec', script], { cwd: dir, env, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual(['The sum of 1 and 2 is 3.', 'The sum of 2 and 3 is 5.']);
});
