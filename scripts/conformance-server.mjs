// The server half of `npm run conformance`: every server scenario required by 2025-11-25 and 2026-07-28, run
// first against the upstream fixture (examples/servers/conformance.mjs) directly, then through `mcpx serve --http`
// in front of it. It fails closed (scripts/conformance-verdict.mjs): the run fails when the referee lists no
// required scenario, when a required scenario is not run, fails directly or fails through mcpx, and when a check
// that succeeds directly does not through mcpx (a WARNING there is a SHOULD that serve lost). Then the tasks
// extension's scenarios, which no requirement set scores, against the task fixture (scripts/conformance-tasks.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judgeServerSet, parseServerScenarioList, unknownSelections } from './conformance-verdict.mjs';
import { TASK_SCENARIOS, judgeTaskSet } from './conformance-tasks.mjs';

const SPECS = ['2025-11-25', '2026-07-28'];

/** Starts a child that prints its URL as the first stdout line. */
function startPrinting(command, args, env) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const url = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before printing its URL: ${stderr}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** The scored server scenarios of a requirement set, from `conformance list`, and how the referee exited. */
async function requiredServerScenarios(runReferee, spec) {
  const { code, output } = await runReferee(['list', '--requirements', spec, '--server'], process.env);
  return { scenarios: parseServerScenarioList(output), code };
}

/** Each scenario's checks, by name, from a results dir of the referee (`server-<scenario>-<timestamp>/checks.json`). */
function checksByScenario(dir) {
  const out = new Map();
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, 'checks.json');
    if (!existsSync(file)) continue;
    const name = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z?$/, '');
    out.set(name, JSON.parse(readFileSync(file, 'utf8')));
  }
  return out;
}

/**
 * The tasks extension's scenarios (scripts/conformance-tasks.mjs): against the task fixture directly and through an
 * `mcpx serve --http` of its own in front of it (one upstream, so the tools keep the names the scenarios call).
 */
async function runTaskScenarios({ repo, runReferee, resultsDir, env, stateDir, only }) {
  const scenarios = TASK_SCENARIOS.filter((s) => !only?.length || only.includes(s));
  if (scenarios.length === 0) return [];
  const fixture = startPrinting(process.execPath, [join(repo, 'examples', 'servers', 'tasks.mjs'), '--port', '0'], env);
  let serve;
  try {
    const upstream = await fixture.url;
    const configPath = join(stateDir, 'mcpx-tasks.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { tasks: { url: upstream } } }));
    serve = startPrinting(
      process.execPath,
      [join(repo, 'dist', 'cli.js'), 'serve', '--http', '--no-auth', '--config', configPath],
      env,
    );
    const through = await serve.url;
    const results = {};
    for (const [label, url] of [
      ['direct', upstream],
      ['mcpx', through],
    ]) {
      const out = join(resultsDir, 'server@tasks', label);
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      // Extension scenarios are on no spec version's timeline: the referee runs them at its default.
      for (const scenario of scenarios) {
        const referee = await runReferee(['server', '--url', url, '--scenario', scenario, '-o', out], env);
        writeFileSync(join(out, `${scenario}.log`), referee.output);
      }
      results[label] = checksByScenario(out);
    }
    const verdict = judgeTaskSet({ direct: results.direct, viaMcpx: results.mcpx, scenarios });
    for (const line of verdict.lines) console.log(line);
    return verdict.problems;
  } finally {
    await serve?.stop();
    await fixture.stop();
  }
}

export async function runServerScenarios({ repo, runReferee, resultsDir, only }) {
  const cli = join(repo, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: npm run build first`);
  const started = Date.now();
  const stateDir = mkdtempSync(join(tmpdir(), 'mcpx-conformance-serve-'));
  const env = { ...process.env, MCPX_STATE_DIR: stateDir, NO_COLOR: '1' };
  const fixture = startPrinting(process.execPath, [join(repo, 'examples', 'servers', 'conformance.mjs'), '--port', '0'], env);
  let serve;
  const problems = [];
  try {
    const upstream = await fixture.url;
    const configPath = join(stateDir, 'mcpx.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { conformance: { url: upstream } } }));
    // The referee sends no Authorization header, and this run is about the protocol: --no-auth, on loopback.
    serve = startPrinting(process.execPath, [cli, 'serve', '--http', '--no-auth', '--config', configPath], env);
    const through = await serve.url;
    const lists = new Map();
    for (const spec of SPECS) lists.set(spec, await requiredServerScenarios(runReferee, spec));
    problems.push(...unknownSelections(only ?? [], [...[...lists.values()].flatMap((l) => l.scenarios), ...TASK_SCENARIOS]));
    for (const spec of SPECS) {
      const listed = lists.get(spec);
      const required = listed.scenarios.filter((s) => !only?.length || only.includes(s));
      // A subset asked for (--server-scenario) that this set does not require: nothing to run here, and no problem.
      if (only?.length && listed.scenarios.length > 0 && required.length === 0) continue;
      const results = {};
      for (const [label, url] of [
        ['direct', upstream],
        ['mcpx', through],
      ]) {
        const out = join(resultsDir, `server@${spec}`, label);
        rmSync(out, { recursive: true, force: true });
        mkdirSync(out, { recursive: true });
        const args = only?.length
          ? [...only.flatMap((s) => ['--scenario', s]), '--spec-version', spec]
          : ['--requirements', spec];
        const referee = await runReferee(['server', '--url', url, ...args, '-o', out], env);
        writeFileSync(join(out, 'referee.log'), referee.output);
        results[label] = checksByScenario(out);
      }
      const verdict = judgeServerSet({
        spec,
        required,
        direct: results.direct,
        viaMcpx: results.mcpx,
        listedBy: `conformance list --requirements ${spec} --server exited ${listed.code} and listed ${listed.scenarios.length}`,
      });
      for (const line of verdict.lines) console.log(line);
      problems.push(...verdict.problems);
    }
    problems.push(...(await runTaskScenarios({ repo, runReferee, resultsDir, env, stateDir, only })));
  } finally {
    await serve?.stop();
    await fixture.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (problems.length === 0) {
    console.log(`conformance (server): every required scenario passes directly and through mcpx serve alike (${seconds}s)`);
    return true;
  }
  console.log(`conformance (server): FAILED, ${problems.length} problem(s) (${seconds}s; results in ${resultsDir}):`);
  for (const problem of problems) console.log(`  - ${problem}`);
  return false;
}
