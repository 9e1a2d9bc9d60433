#!/usr/bin/env node
/**
 * A long-running approval, end to end, as separate processes (the built CLI, `node dist/cli.js`):
 *
 *   1. CI asks to create a note through the OpenAPI adapter. The write needs a confirmation; nobody in CI can
 *      give it, so `mcpx call` exits 75 with the question (TTL 8h, from mcpx.json) and the task that holds the call.
 *   2. Later, a person answers from another terminal: `mcpx elicit answer <id> '{}'`.
 *   3. CI collects the result: `mcpx task result <tsk>` prints the created note. The API received exactly one POST.
 *   4. A second write (a DELETE) is declined over REST (`POST /v1/elicit/{id}/decline` on the daemon's socket):
 *      its task ends "not sent: ... declined", and the API never received it.
 *
 *   npm run build && node examples/long-running-approval/run.mjs
 *
 * Checks its own output: exits 1 with the reason on any mismatch, 0 and "ok" otherwise.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNotesApi } from '../servers/notes-api.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = resolve(here, '..', '..', 'dist', 'cli.js');
const config = join(here, 'mcpx.json');
const api = await startNotesApi();
const env = {
  PATH: process.env.PATH ?? '',
  MCPX_STATE_DIR: mkdtempSync(join(tmpdir(), 'mcpx-approval-')),
  NOTES_API_URL: api.url,
};

function mcpx(...args) {
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args, '--config', config], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
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

/** REST on the daemon's unix socket (no token needed: the socket is the user's own, mode 0600). */
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

let failed = false;
try {
  // 1. CI: the write waits for a person.
  const ci = await mcpx('call', 'api.create_note', 'body:={"title":"release 1.4"}', '--elicit=return', '--json');
  check(ci.code === 75, 'CI: mcpx call exits 75 while the confirmation waits', ci);
  const waiting = JSON.parse(ci.stdout).inputRequired;
  const question = waiting.questions[0];
  check(
    question.message === 'POST /notes with {"title":"release 1.4"}: proceed?',
    'the question says what will be sent',
    question,
  );
  const hoursLeft = (question.expiresAt - Date.now()) / 3_600_000;
  check(hoursLeft > 7.9 && hoursLeft <= 8, `the deadline comes from the config's elicit.ttl (8h; ${hoursLeft.toFixed(2)}h left)`);
  check(api.requests['POST /notes'] === undefined, 'nothing was sent while the question waits', api.requests);

  // 2. A person, from another terminal.
  const listed = await mcpx('elicit', 'list');
  check(listed.code === 0 && listed.stdout.includes(question.id), 'mcpx elicit list shows the waiting question', listed);
  const answered = await mcpx('elicit', 'answer', question.id, '{}');
  check(answered.code === 0, 'mcpx elicit answer accepts it', answered);

  // 3. CI again: the call resumed and finished.
  const result = await mcpx('task', 'result', waiting.task);
  check(
    result.code === 0 && JSON.parse(result.stdout).title === 'release 1.4',
    `mcpx task result prints the created note: ${result.stdout.trim()}`,
    result,
  );
  check(api.requests['POST /notes'] === 1, 'the API received the POST exactly once', api.requests);

  // 4. A DELETE, declined over REST.
  const del = await mcpx('call', 'api.delete_note', 'id=1', '--elicit=return', '--json');
  check(del.code === 75, 'the DELETE waits for a confirmation too', del);
  const pending = JSON.parse(del.stdout).inputRequired;
  const status = JSON.parse((await mcpx('daemon', 'status', '--json')).stdout);
  const declined = await rest(status.socket, 'POST', `/v1/elicit/${pending.questions[0].id}/decline`);
  check(declined.status === 200, `REST: POST /v1/elicit/${pending.questions[0].id}/decline answers 200`, declined);
  const after = await mcpx('task', 'result', pending.task);
  check(
    after.code === 1 && after.stderr.includes('not sent: the confirmation was declined (DELETE /notes/1)'),
    'the declined DELETE says so and exits 1',
    after,
  );
  check(
    api.requests['DELETE /notes/{id}'] === undefined && api.notes.has(1),
    'the API never received the DELETE; the note is still there',
    api.requests,
  );
  console.log('ok');
} catch (error) {
  failed = true;
  if (!(error instanceof CheckFailed)) console.error('FAILED:', error);
} finally {
  await mcpx('daemon', 'stop');
  await api.close();
}
process.exit(failed ? 1 : 0);
