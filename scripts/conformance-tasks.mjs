// The tasks extension's server scenarios (io.modelcontextprotocol/tasks, SEP-2663): the referee runs them for
// visibility and scores none, so `npm run conformance` counts them here: against the task fixture
// (examples/servers/tasks.mjs) directly, where every one must pass, and through `mcpx serve --http` in front of it,
// where each must pass unless it is a gap listed below with why. A listed gap that passes is a problem too (stale).

/** The extension's server scenarios the referee scores checks for (tasks-status-notifications only SKIPs: no channel yet). */
export const TASK_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

/** Through serve, what does not pass yet, and why (none today: every scenario passes both ways). */
export const TASK_GAPS_VIA_SERVE = {};

const passes = (checks) => checks.some((c) => c.status === 'SUCCESS') && !checks.some((c) => c.status === 'FAILURE');
const failures = (checks) =>
  checks
    .filter((c) => c.status === 'FAILURE')
    .map((c) => `${c.id}: ${String(c.errorMessage ?? '').slice(0, 160)}`)
    .join('; ');

/** The lines to print and the problems (the run passes only when there are none). */
export function judgeTaskSet({ direct, viaMcpx, scenarios = TASK_SCENARIOS, gaps = TASK_GAPS_VIA_SERVE }) {
  const lines = [];
  const problems = [];
  let both = 0;
  for (const scenario of scenarios) {
    const d = direct.get(scenario);
    const m = viaMcpx.get(scenario);
    const gap = gaps[scenario];
    if (!d || !passes(d))
      problems.push(`tasks ${scenario}: fails against the task fixture directly: ${d ? failures(d) : 'not run'}`);
    if (m && passes(m) && d && passes(d)) both++;
    if (!gap && !(m && passes(m))) problems.push(`tasks ${scenario}: fails through mcpx serve: ${m ? failures(m) : 'not run'}`);
    if (gap && m && passes(m))
      problems.push(`tasks ${scenario}: passes through mcpx serve now: drop it from TASK_GAPS_VIA_SERVE`);
    const verdict = (checks) => (checks && passes(checks) ? 'pass' : 'FAIL');
    lines.push(
      `tasks ${scenario.padEnd(48)} direct ${verdict(d)}  via mcpx ${verdict(m)}${gap && !(m && passes(m)) ? `  (known gap: ${gap})` : ''}`,
    );
  }
  lines.push(`tasks extension: ${both} of ${scenarios.length} scenarios pass directly and through mcpx serve alike`);
  return { lines, problems };
}
