// The server half of `npm run conformance`: every server scenario required by 2025-11-25 and 2026-07-28, run
// first against the upstream fixture (examples/servers/conformance.mjs) directly, then through `mcpx serve --http`
// in front of it. A server scenario passes iff it has >= 1 SUCCESS and 0 FAILURE (WARNINGs are reported, not
// scored, as the referee itself scores servers). The run fails when a scenario that passes directly fails through
// mcpx, unless it is a known gap listed below (and a listed gap that now passes is reported as stale).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SPECS = ['2025-11-25', '2026-07-28'];

/**
 * What mcpx serve does not pass through yet, with why. `<spec>:<scenario>`.
 */
export const KNOWN_GAPS = {};

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

/** The scored server scenarios of a requirement set, from `conformance list`. */
async function requiredServerScenarios(runReferee, spec) {
  const { output } = await runReferee(['list', '--requirements', spec, '--server'], process.env);
  const section = output.split(/Server scenarios/)[1]?.split(/Client scenarios|Run and reported, but never scored/)[0] ?? '';
  return [...section.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]);
}

function verdicts(dir) {
  const out = new Map();
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, 'checks.json');
    if (!existsSync(file)) continue;
    const name = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z?$/, '');
    const checks = JSON.parse(readFileSync(file, 'utf8'));
    const count = (status) => checks.filter((c) => c.status === status).length;
    const failures = checks.filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage ?? ''}`.slice(0, 200));
    out.set(name, { passed: count('SUCCESS') > 0 && count('FAILURE') === 0, warnings: count('WARNING'), failures });
  }
  return out;
}

export async function runServerScenarios({ repo, runReferee, resultsDir, only }) {
  const cli = join(repo, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: npm run build first`);
  const started = Date.now();
  const stateDir = mkdtempSync(join(tmpdir(), 'mcpx-conformance-serve-'));
  const env = { ...process.env, MCPX_STATE_DIR: stateDir, NO_COLOR: '1' };
  const fixture = startPrinting(process.execPath, [join(repo, 'examples', 'servers', 'conformance.mjs'), '--port', '0'], env);
  let serve;
  let regressions = 0;
  let stale = 0;
  try {
    const upstream = await fixture.url;
    const configPath = join(stateDir, 'mcpx.json');
    writeFileSync(configPath, JSON.stringify({ mcpServers: { conformance: { url: upstream } } }));
    // The referee sends no Authorization header, and this run is about the protocol: --no-auth, on loopback.
    serve = startPrinting(process.execPath, [cli, 'serve', '--http', '--no-auth', '--config', configPath], env);
    const through = await serve.url;
    for (const spec of SPECS) {
      const required = (await requiredServerScenarios(runReferee, spec)).filter((s) => !only?.length || only.includes(s));
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
        results[label] = verdicts(out);
      }
      let both = 0;
      for (const scenario of required) {
        const direct = results.direct.get(scenario);
        const viaMcpx = results.mcpx.get(scenario);
        const gap = KNOWN_GAPS[`${spec}:${scenario}`];
        const d = direct?.passed ? 'pass' : 'FAIL';
        const m = viaMcpx?.passed ? 'pass' : 'FAIL';
        let note = '';
        if (direct?.passed && !viaMcpx?.passed) {
          if (gap) note = `known gap: ${gap}`;
          else {
            regressions++;
            note = `REGRESSION: ${viaMcpx?.failures.join('; ') || 'no checks'}`;
          }
        } else if (gap && viaMcpx?.passed) {
          stale++;
          note = 'STALE known gap: it passes now; remove it from KNOWN_GAPS';
        } else if (!direct?.passed) note = `fixture: ${direct?.failures.slice(0, 2).join('; ') || 'not run'}`;
        if (direct?.passed && viaMcpx?.passed) both++;
        console.log(`${spec} ${scenario.padEnd(48)} direct ${d}  via mcpx ${m}${note ? `  (${note})` : ''}`);
      }
      console.log(
        `server @${spec}: ${[...results.direct.values()].length ? `${required.filter((s) => results.direct.get(s)?.passed).length}/${required.length} pass directly, ${both} of them also through mcpx serve` : 'no results'}`,
      );
    }
  } finally {
    await serve?.stop();
    await fixture.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  console.log(
    `conformance (server): ${regressions} regression(s) through mcpx, ${stale} stale known gap(s) (${((Date.now() - started) / 1000).toFixed(1)}s)`,
  );
  return regressions === 0 && stale === 0;
}
