/**
 * One side of the cross-process resume test, run as its own process (node --import tsx):
 *   ask <file>              calls fx.ask_form, leaves the question unanswered, writes the continuation to <file>, exits
 *   resume <file> <repo>    reads <file>, resumes with accept {repo}, prints the outcome as JSON
 * FIXTURE_STATE_KEY, when set, is the fixture server's requestState key (a rotated key makes old state stale).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createMcpx } from '../../src/mcpx.js';
import { createMemoryEraCache } from '../../src/client/era-cache.js';
import { isMcpxError } from '../../src/errors.js';
import { stdioFixture } from './fixture-servers.js';

const [mode, file, repo] = process.argv.slice(2);
const serverEnv: Record<string, string> = process.env.FIXTURE_STATE_KEY
  ? { MCPX_FIXTURE_STATE_KEY: process.env.FIXTURE_STATE_KEY }
  : {};
const mcpx = await createMcpx({
  config: { mcpServers: { fx: stdioFixture('dual-era', serverEnv) } },
  answerLater: true,
  eraCache: createMemoryEraCache(),
});
try {
  if (mode === 'ask' && file) {
    const outcome = await mcpx.callTool('fx', 'ask_form', { title: 'from A' });
    if (outcome.status !== 'input-required' || !outcome.continuation)
      throw new Error(`expected a continuation, got ${JSON.stringify(outcome)}`);
    writeFileSync(file, JSON.stringify(outcome.continuation));
    process.stdout.write(`${JSON.stringify({ pid: process.pid, questions: outcome.questions.map((q) => q.id) })}\n`);
  } else if (mode === 'resume' && file && repo) {
    const continuation = JSON.parse(readFileSync(file, 'utf8')) as { questions: Array<{ id: string }> };
    const answers = Object.fromEntries(
      continuation.questions.map((q) => [q.id, { action: 'accept' as const, content: { repo } }]),
    );
    const outcome = await mcpx.resume(continuation, answers);
    process.stdout.write(`${JSON.stringify({ pid: process.pid, outcome })}\n`);
  } else {
    process.stderr.write('usage: continuation-process ask <file> | resume <file> <repo>\n');
    process.exitCode = 2;
  }
} catch (error) {
  process.stdout.write(`${JSON.stringify({ pid: process.pid, error: isMcpxError(error) ? error.toJSON() : String(error) })}\n`);
  process.exitCode = 1;
} finally {
  await mcpx.close();
}
