#!/usr/bin/env node
/**
 * One client process of the chaos test: asks its share of questions through random daemons (whichever is up),
 * answers each through another random daemon, and waits for each call's end through any. A daemon that dies under
 * a request is simply tried again elsewhere; nothing here judges, it reports one JSON line per question:
 *   { question, task, era, repo, answer: 'accepted' | 'refused', refusal?, state, error?, received? }
 *
 * A share of the questions is answered late (`lateMs` after it was asked), so daemons die while they wait.
 *
 *   node chaos-client.mjs '<json: { sockets, seed, client, questions, concurrency, legacyShare, lateShare, lateMs, limitMs }>'
 */
import { request } from 'node:http';

const options = JSON.parse(process.argv[2]);
const { sockets, client, questions, concurrency, legacyShare, lateShare = 0, lateMs = 0 } = options;
const limitMs = options.limitMs ?? 120_000;

/** mulberry32: the same seed gives the same eras and daemon choices. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(options.seed * 31 + client);
const pick = () => Math.floor(random() * sockets.length);

function send(socketPath, method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        socketPath,
        method,
        path,
        // This process answers (as the CLI says): a retry through another daemon is known as the same answerer's.
        headers: { 'x-mcpx-pid': String(process.pid), ...(payload ? { 'content-type': 'application/json' } : {}) },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends to a random daemon, then the next ones, until one answers with a status `done` accepts. A dead daemon
 * (refused connection, reset, 503 while it stops) is passed over.
 */
async function anyDaemon(method, path, body, done) {
  const deadline = Date.now() + limitMs;
  let at = pick();
  let last;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await send(sockets[at], method, path, body);
      if (done(response)) return response;
      last = response;
    } catch (error) {
      // Down or dying: try the next one.
      last = error.message;
    }
    if (Date.now() > deadline)
      throw new Error(`${method} ${path}: no daemon answered as hoped within ${limitMs} ms; last: ${JSON.stringify(last)}`);
    at = (at + 1) % sockets.length;
    await pause(attempt % sockets.length === sockets.length - 1 ? 100 : 10);
  }
}

async function one(index, { era, late }) {
  const started = Date.now();
  const tag = `c${client}-q${index}`;
  const repo = `me/${tag}`;
  const call = await anyDaemon('POST', `/v1/call/${era}/ask_form`, { title: tag }, (r) => r.status === 202);
  const { task, questions: asked } = call.body.inputRequired;
  const question = asked[0].id;
  // A late question waits unanswered, its call held by a daemon that may die meanwhile.
  if (late) await pause(lateMs);
  const answered = await anyDaemon(
    'POST',
    `/v1/elicit/${question}/accept`,
    { content: { repo } },
    (r) => r.status === 200 || r.status === 409 || r.status === 410,
  );
  // 409: our own earlier try of a modern question went through before its daemon died (only this client answers
  // this question). A legacy retry gets its first try's fate instead: 200 delivered, or 410 abandoned.
  const askedMs = Date.now() - started;
  const line = { question, task, era, late, repo, askedMs, answer: answered.status === 410 ? 'refused' : 'accepted' };
  if (answered.status !== 200) line.refusal = { status: answered.status, code: answered.body?.error?.code };
  const ended = await anyDaemon('GET', `/v1/tasks/${task}?wait=5`, undefined, (r) => {
    const state = r.body?.task?.state;
    return r.status === 200 && (state === 'complete' || state === 'failed');
  });
  const record = ended.body.task;
  line.state = record.state;
  if (record.error) line.error = record.error.code;
  if (record.result) line.received = record.result.structuredContent?.received?.details;
  line.ms = Date.now() - started;
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

// Each question's era and lateness are decided up front, so the same seed asks the same questions.
const plan = Array.from({ length: questions }, () => ({
  era: random() < legacyShare ? 'legacy' : 'modern',
  late: random() < lateShare,
}));
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < questions) {
      const index = next++;
      await one(index, plan[index]);
    }
  }),
);
process.stdout.write('done\n');
