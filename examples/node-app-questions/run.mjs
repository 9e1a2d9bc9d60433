#!/usr/bin/env node
/**
 * A Node app whose questions live in its own store, answered from outside the app:
 *
 *   1. The app calls a legacy server's tool that asks for a confirmation. Nobody in the app answers it, so the
 *      question waits in the app's store (a SQLite file by default) and the outcome carries its ids.
 *   2. A person answers it from the CLI: `MCPX_STORE_URL=sqlite:<file> mcpx elicit answer <id> '{"confirm":true}'`.
 *      The call, held open by the app, completes: `await mcpx.result(task)`.
 *   3. The app calls a modern server's tool that asks for a form, then closes (the call is let go, resumable).
 *   4. A daemon on the same store answers it over REST (`POST /v1/elicit/{id}/accept`).
 *   5. A new instance of the app (it could be another process, on another host with Redis) resumes the call:
 *      `await mcpx.result(task)` re-sends it with the answer and returns the server's result.
 *
 *   npm run build && node examples/node-app-questions/run.mjs [redis://127.0.0.1:6379]
 *
 * Checks its own output: exits 1 with the reason on any mismatch, 0 and "ok" otherwise.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMcpx } from 'mcpx';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const config = join(here, 'mcpx.json');
// The app's store: a Redis URL when given, else a SQLite file of its own.
const store = process.argv[2] ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'mcpx-app-')), 'questions.sqlite')}`;
// The CLI and the daemon find the app's store through MCPX_STORE_URL; their own state (daemon socket) stays apart.
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STORE_URL: store,
  MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-app-state-')),
};

function mcpxCli(...args) {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cli, ...args, '--config', config],
      { cwd: here, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** REST on the daemon's unix socket (the socket is the user's own, mode 0600: no token needed). */
function rest(socketPath, method, path, body) {
  return new Promise((done, fail) => {
    const req = request({ socketPath, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', fail);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

class CheckFailed extends Error {}
function check(condition, what, detail) {
  if (condition) return console.log(`ok: ${what}`);
  console.error(
    `FAILED: ${what}${detail === undefined ? '' : `\n${typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2)}`}`,
  );
  throw new CheckFailed(what);
}

/** What the fixture servers say they received, from a tool result. */
const received = (result) => result.structuredContent?.received ?? JSON.parse(result.content[0].text).received;

const openApp = () => createMcpx({ config, cwd: here, store });
let failed = false;
let daemonStarted = false;
try {
  // 1. The app asks; nobody in the app answers.
  let app = await openApp();
  const deploy = await app.callTool('legacy', 'ask_confirm', { action: 'deploy' });
  check(
    deploy.status === 'input-required' && /^tsk-/.test(deploy.task),
    `the legacy call waits, held by the app, as ${deploy.task}`,
    deploy,
  );
  const [confirm] = deploy.questions;
  check(
    (await app.pending()).some((q) => q.id === confirm.id),
    `its question ${confirm.id} is in the app's store`,
  );

  // 2. A person answers from the CLI, in another process.
  const answered = await mcpxCli('elicit', 'answer', confirm.id, '{"confirm":true}');
  check(answered.code === 0, 'mcpx elicit answer (MCPX_STORE_URL) answers it', answered);
  const deployed = await app.result(deploy.task);
  check(
    deployed.status === 'complete' && received(deployed.result).confirm?.action === 'accept',
    "the app's call completes with the accept the server received",
    deployed,
  );

  // 3. A modern call; the app closes while its question waits.
  const issue = await app.callTool('fixture', 'ask_form', { title: 'bug' });
  check(
    issue.status === 'input-required' && issue.questions[0].era === 'modern',
    `the modern call waits as ${issue.task}`,
    issue,
  );
  await app.close();

  // 4. REST: a daemon on the same store answers it.
  const started = await mcpxCli('daemon', 'start', '--json');
  check(started.code === 0, 'a daemon starts on the same store', started);
  daemonStarted = true;
  const { socket } = JSON.parse(started.stdout);
  const listed = await rest(socket, 'GET', '/v1/elicit');
  check(
    listed.body.elicitations.some((e) => e.id === issue.questions[0].id),
    "GET /v1/elicit lists the app's question",
    listed,
  );
  const accepted = await rest(socket, 'POST', `/v1/elicit/${issue.questions[0].id}/accept`, { content: { repo: 'me/thing' } });
  check(accepted.status === 200, 'POST /v1/elicit/{id}/accept answers it', accepted);

  // 5. A new instance of the app resumes the call that the first one let go.
  app = await openApp();
  const filed = await app.result(issue.task);
  await app.close();
  check(
    filed.status === 'complete' && received(filed.result).details?.content?.repo === 'me/thing',
    'a new instance resumes the modern call: the server received the REST answer',
    filed,
  );
  console.log(`ok: questions lived in ${store.startsWith('sqlite:') ? 'a SQLite file' : 'Redis'}`);
} catch (error) {
  failed = true;
  if (!(error instanceof CheckFailed)) console.error(error);
} finally {
  if (daemonStarted) await mcpxCli('daemon', 'stop');
}
process.exitCode = failed ? 1 : 0;
