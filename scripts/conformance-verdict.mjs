// How the server half of `npm run conformance` judges a requirement set: pure functions of the referee's output, so
// the rules are tested on inputs (test/security/conformance-fail-closed.test.ts). The run fails closed: nothing
// listed, a required scenario not run, failing directly or through mcpx serve, or a check that succeeds directly but
// not through serve (a WARNING there is a SHOULD that serve lost) is each a problem, and any problem fails the run.

/** The required server scenarios in the text of `conformance list --requirements <set> --server`. */
export function parseServerScenarioList(output) {
  const section = output.split(/Server scenarios/)[1]?.split(/Client scenarios|Run and reported, but never scored/)[0] ?? '';
  return [...section.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]);
}

/** Problems for --server-scenario names no requirement set lists (a typo must not read as a pass). */
export function unknownSelections(only, listed) {
  return only
    .filter((name) => !listed.includes(name))
    .map((name) => `--server-scenario ${name}: no requirement set lists this server scenario`);
}

const countOf = (checks, status) => checks.filter((c) => c.status === status).length;

/** A server scenario passes iff its checks have >= 1 SUCCESS and no FAILURE (WARNINGs are judged by degradedChecks). */
export function scenarioPasses(checks) {
  return countOf(checks, 'SUCCESS') > 0 && countOf(checks, 'FAILURE') === 0;
}

const describeCheck = (check) =>
  `${check.status} ${check.id}${check.errorMessage ? `: ${String(check.errorMessage).slice(0, 200)}` : ''}`;

/**
 * The checks that succeed directly and do not through mcpx (a WARNING, FAILURE or SKIPPED instead, or missing).
 * Ids can repeat within a scenario, so an id counts as degraded when it has fewer SUCCESSes through mcpx.
 */
export function degradedChecks(direct, viaMcpx) {
  const ids = [...new Set(direct.filter((c) => c.status === 'SUCCESS').map((c) => c.id))];
  return ids.flatMap((id) => {
    const ours = viaMcpx.filter((c) => c.id === id);
    const succeeded = (checks) => checks.filter((c) => c.status === 'SUCCESS').length;
    if (succeeded(ours) >= succeeded(direct.filter((c) => c.id === id))) return [];
    const worse = ours.find((c) => c.status !== 'SUCCESS');
    return [worse ? describeCheck(worse) : `MISSING ${id} (no such check through mcpx serve)`];
  });
}

/**
 * One requirement set's verdict. `direct` and `viaMcpx` map a scenario to its checks (absent: not run). Returns the
 * lines to print, one per required scenario, and the problems: the run passes only when there are none.
 */
export function judgeServerSet({ spec, required, direct, viaMcpx, listedBy = '' }) {
  const problems = [];
  const lines = [];
  if (required.length === 0) {
    problems.push(
      `${spec}: no required server scenario to run${listedBy ? ` (${listedBy})` : ''}: the referee's list named none, or ` +
        'none matches --server-scenario; a run that checks nothing is no pass',
    );
  }
  let both = 0;
  for (const scenario of required) {
    const d = direct.get(scenario);
    const m = viaMcpx.get(scenario);
    const found = [];
    if (!d) found.push('not run against the fixture (no checks.json)');
    else if (!scenarioPasses(d)) found.push(`fails against the fixture directly, so serve cannot be judged: ${failures(d)}`);
    if (!m) found.push('not run through mcpx serve (no checks.json)');
    else if (!scenarioPasses(m)) found.push(`fails through mcpx serve: ${failures(m)}`);
    if (d && m) {
      const degraded = degradedChecks(d, m);
      if (degraded.length) found.push(`succeeds directly but not through mcpx serve: ${degraded.join('; ')}`);
    }
    if (found.length === 0) both++;
    for (const why of found) problems.push(`${spec} ${scenario}: ${why}`);
    const verdict = (checks) => (checks && scenarioPasses(checks) ? 'pass' : 'FAIL');
    lines.push(
      `${spec} ${scenario.padEnd(48)} direct ${verdict(d)}  via mcpx ${verdict(m)}${found.length ? '  (see below)' : ''}`,
    );
  }
  lines.push(`server @${spec}: ${both} of ${required.length} required scenarios pass directly and through mcpx serve alike`);
  return { lines, problems };
}

function failures(checks) {
  const failed = checks.filter((c) => c.status === 'FAILURE').map(describeCheck);
  if (failed.length) return failed.join('; ');
  return countOf(checks, 'SUCCESS') === 0 ? 'no SUCCESS check (all skipped or not run)' : 'no failing check';
}
