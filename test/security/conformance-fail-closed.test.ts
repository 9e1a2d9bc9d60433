/**
 * The server half of `npm run conformance` must not lie. It used to pass ("0/0", exit 0) when the referee's scenario
 * list could not be read, noted a required scenario failing both directly and through `mcpx serve` without failing,
 * and ignored a check that succeeds directly but only warns through serve (`sep-2164-data-uri`). The rules live in
 * scripts/conformance-verdict.mjs and are tested here on inputs shaped as the referee's (0.2.0-alpha.12) output; then
 * runServerScenarios, with the real fixture and the built `mcpx serve --http`, is given a referee whose list text
 * changed shape, and one whose checks degrade through serve: it must report failure, which `npm run conformance`
 * turns into exit 1.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runServerScenarios, type RunReferee } from '../../scripts/conformance-server.mjs';
import {
  degradedChecks,
  judgeServerSet,
  parseServerScenarioList,
  unknownSelections,
  type RefereeCheck,
} from '../../scripts/conformance-verdict.mjs';

const LIST_OUTPUT = `Required for 2025-11-25 (48 scenarios, frozen; run at the 2025-11-25 wire):

Server scenarios (test against a server):
  - server-initialize
  - ping
  - dns-rebinding-protection

Client scenarios (test against a client):
  - initialize
  - tools_call

Run and reported, but never scored:
  extension (6):
    - auth/dpop [client]
`;

const ok = (id: string): RefereeCheck => ({ id, status: 'SUCCESS' });
const warn = (id: string, errorMessage: string): RefereeCheck => ({ id, status: 'WARNING', errorMessage });
const failure = (id: string, errorMessage: string): RefereeCheck => ({ id, status: 'FAILURE', errorMessage });

/** sep-2164-resource-not-found as the referee recorded it directly and through serve before serve kept data.uri. */
const SEP_2164_DIRECT = [
  ok('sep-2164-no-empty-contents'),
  ok('sep-2164-error-code'),
  ok('sep-2164-data-uri'),
  ok('wire-schema-valid'),
];
const SEP_2164_VIA_SERVE = [
  ok('sep-2164-no-empty-contents'),
  ok('sep-2164-error-code'),
  warn(
    'sep-2164-data-uri',
    'Error data.uri is undefined, expected "test://nonexistent-resource-for-conformance-testing". This is a SHOULD requirement.',
  ),
  ok('wire-schema-valid'),
];

describe('the verdict rules (scripts/conformance-verdict.mjs)', () => {
  it("reads the required server scenarios from the referee's list, and nothing from a list of another shape", () => {
    expect(parseServerScenarioList(LIST_OUTPUT)).toEqual(['server-initialize', 'ping', 'dns-rebinding-protection']);
    expect(parseServerScenarioList('')).toEqual([]);
    expect(parseServerScenarioList('Server scenarios:\n  * server-initialize\n  * ping\n')).toEqual([]);
  });

  it('fails a set with no required scenario: a run that checks nothing is no pass', () => {
    const { problems, lines } = judgeServerSet({ spec: '2025-11-25', required: [], direct: new Map(), viaMcpx: new Map() });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/no required server scenario to run/);
    expect(lines.at(-1)).toMatch(/0 of 0/);
  });

  it('passes a set whose every required scenario passes both ways with the same checks', () => {
    const both = new Map([
      ['ping', [ok('ping')]],
      ['sep-2164-resource-not-found', SEP_2164_DIRECT],
    ]);
    const { problems } = judgeServerSet({
      spec: '2026-07-28',
      required: ['ping', 'sep-2164-resource-not-found'],
      direct: both,
      viaMcpx: both,
    });
    expect(problems).toEqual([]);
  });

  it('fails a required scenario that fails through serve, and one that fails both directly and through serve', () => {
    const direct = new Map([
      ['ping', [ok('ping')]],
      ['tools-list', [failure('tools-list', 'no tools')]],
    ]);
    const viaMcpx = new Map([
      ['ping', [failure('ping', 'timed out')]],
      ['tools-list', [failure('tools-list', 'no tools')]],
    ]);
    const { problems } = judgeServerSet({ spec: '2025-11-25', required: ['ping', 'tools-list'], direct, viaMcpx });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^2025-11-25 ping: fails through mcpx serve: FAILURE ping: timed out/),
        expect.stringMatching(/^2025-11-25 tools-list: fails against the fixture directly/),
        expect.stringMatching(/^2025-11-25 tools-list: fails through mcpx serve/),
      ]),
    );
  });

  it('fails a required scenario that was not run, either way', () => {
    const { problems } = judgeServerSet({
      spec: '2025-11-25',
      required: ['ping'],
      direct: new Map([['ping', [ok('ping')]]]),
      viaMcpx: new Map(),
    });
    expect(problems).toEqual(['2025-11-25 ping: not run through mcpx serve (no checks.json)']);
  });

  it('fails a check that succeeds directly but only warns through serve (sep-2164-data-uri)', () => {
    expect(degradedChecks(SEP_2164_DIRECT, SEP_2164_VIA_SERVE)).toEqual([
      expect.stringMatching(/^WARNING sep-2164-data-uri: Error data.uri is undefined/),
    ]);
    const { problems } = judgeServerSet({
      spec: '2026-07-28',
      required: ['sep-2164-resource-not-found'],
      direct: new Map([['sep-2164-resource-not-found', SEP_2164_DIRECT]]),
      viaMcpx: new Map([['sep-2164-resource-not-found', SEP_2164_VIA_SERVE]]),
    });
    expect(problems).toEqual([
      expect.stringMatching(/sep-2164-resource-not-found: succeeds directly but not through mcpx serve/),
    ]);
  });

  it('does not blame serve for a warning the fixture has too, and counts repeated check ids', () => {
    const listChanged = warn('sep-2575-server-sends-tools-list-changed-on-subscription', 'a SHOULD');
    expect(degradedChecks([ok('a'), listChanged], [ok('a'), listChanged])).toEqual([]);
    const repeated = 'sep-2575-http-server-meta-invalid-400';
    expect(degradedChecks([ok(repeated), ok(repeated), ok(repeated)], [ok(repeated), ok(repeated)])).toEqual([
      `MISSING ${repeated} (no such check through mcpx serve)`,
    ]);
    expect(degradedChecks([ok('a'), ok('b')], [ok('a'), { id: 'b', status: 'SKIPPED' }])).toEqual(['SKIPPED b']);
  });

  it('names a --server-scenario no requirement set lists', () => {
    expect(unknownSelections(['ping', 'pnig'], ['server-initialize', 'ping'])).toEqual([
      '--server-scenario pnig: no requirement set lists this server scenario',
    ]);
  });
});

describe('runServerScenarios with the fixture and the built mcpx serve --http', () => {
  const repo = resolve(import.meta.dirname, '..', '..');
  afterEach(() => vi.restoreAllMocks());

  /** A referee that lists `list` and, for a server run, writes each scenario's checks for the URL it was given. */
  const referee =
    (list: string, checksFor: (url: string) => Record<string, RefereeCheck[]>): RunReferee =>
    async (args) => {
      if (args[0] === 'list') return { code: 0, output: list };
      const url = args[args.indexOf('--url') + 1]!;
      const out = args[args.indexOf('-o') + 1]!;
      for (const [scenario, checks] of Object.entries(checksFor(url))) {
        const dir = join(out, `server-${scenario}-2026-12-07T03-00-00-000Z`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'checks.json'), JSON.stringify(checks));
      }
      return { code: 0, output: 'Running server scenarios…' };
    };

  const run = async (runReferee: RunReferee) => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...line: unknown[]) => void printed.push(line.join(' ')));
    const resultsDir = mkdtempSync(join(tmpdir(), 'mcpx-conformance-fail-closed-'));
    const passed = await runServerScenarios({ repo, runReferee, resultsDir });
    return { passed, printed: printed.join('\n') };
  };

  it('fails when the referee lists no scenario it can read', async () => {
    const { passed, printed } = await run(referee('Server scenarios:\n  * server-initialize\n', () => ({})));
    expect(passed).toBe(false);
    expect(printed).toMatch(/FAILED/);
    expect(printed).toMatch(/2025-11-25: no required server scenario to run/);
    expect(printed).toMatch(/2026-07-28: no required server scenario to run/);
  });

  it('fails when a check succeeds directly and only warns through serve', async () => {
    let direct: string | undefined;
    const { passed, printed } = await run(
      referee(
        LIST_OUTPUT.replace(/server-initialize\n {2}- ping\n {2}- dns-rebinding-protection/, 'sep-2164-resource-not-found'),
        (url) => {
          direct ??= url; // the fixture is refereed first, then serve
          return { 'sep-2164-resource-not-found': url === direct ? SEP_2164_DIRECT : SEP_2164_VIA_SERVE };
        },
      ),
    );
    expect(passed).toBe(false);
    expect(printed).toMatch(
      /sep-2164-resource-not-found: succeeds directly but not through mcpx serve: WARNING sep-2164-data-uri/,
    );
  });
});
