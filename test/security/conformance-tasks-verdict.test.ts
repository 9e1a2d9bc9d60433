/**
 * How `npm run conformance` judges the tasks extension's scenarios (scripts/conformance-tasks.mjs), which the referee
 * scores under no requirement set: every one must pass against the task fixture, and through `mcpx serve` unless it
 * is a listed gap; a listed gap that passes is stale and fails the run too, so the list cannot hide a fixed scenario.
 */
import { describe, expect, it } from 'vitest';
import { judgeTaskSet } from '../../scripts/conformance-tasks.mjs';
import type { RefereeCheck } from '../../scripts/conformance-verdict.mjs';

const pass: RefereeCheck[] = [{ id: 'a', status: 'SUCCESS' }];
const fail: RefereeCheck[] = [
  { id: 'a', status: 'SUCCESS' },
  { id: 'b', status: 'FAILURE', errorMessage: 'no task' },
];
const skippedOnly: RefereeCheck[] = [{ id: 'a', status: 'SKIPPED' }];
const judge = (direct: RefereeCheck[] | undefined, via: RefereeCheck[] | undefined, gaps: Record<string, string> = {}) =>
  judgeTaskSet({
    scenarios: ['tasks-x'],
    gaps,
    direct: new Map(direct ? [['tasks-x', direct]] : []),
    viaMcpx: new Map(via ? [['tasks-x', via]] : []),
  });

describe('the tasks extension verdict', () => {
  it('passes a scenario that passes both ways', () => {
    const verdict = judge(pass, pass);
    expect(verdict.problems).toEqual([]);
    expect(verdict.lines.at(-1)).toBe('tasks extension: 1 of 1 scenarios pass directly and through mcpx serve alike');
  });

  it('fails a scenario that fails, or only skips, against the fixture, even when it is a listed gap', () => {
    expect(judge(fail, pass).problems).toEqual([expect.stringMatching(/fails against the task fixture directly: b: no task/)]);
    expect(judge(skippedOnly, pass).problems).toHaveLength(1);
    expect(judge(undefined, undefined, { 'tasks-x': 'why' }).problems).toEqual([expect.stringMatching(/directly: not run/)]);
  });

  it('fails a scenario that fails through serve unless it is listed, and a listed one that passes as stale', () => {
    expect(judge(pass, fail).problems).toEqual([expect.stringMatching(/fails through mcpx serve: b: no task/)]);
    expect(judge(pass, undefined).problems).toEqual([expect.stringMatching(/through mcpx serve: not run/)]);
    const listed = judge(pass, fail, { 'tasks-x': 'the upstream runs it only as a task' });
    expect(listed.problems).toEqual([]);
    expect(listed.lines[0]).toMatch(/via mcpx FAIL {2}\(known gap: the upstream runs it only as a task\)/);
    expect(judge(pass, pass, { 'tasks-x': 'why' }).problems).toEqual([expect.stringMatching(/passes through mcpx serve now/)]);
  });
});
