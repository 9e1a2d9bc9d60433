/**
 * `mcpx/testing`: the store compliance suite, for hosts that bring their own keyv store.
 * Framework-free: each case is a name and an async function that throws on failure (vitest, node:test or a plain
 * script). `open()` must return a NEW handle (connection) to the SAME backing store on every call, so cross-handle
 * (cross-process) behaviour is exercised; a Map store returns the same keyv.
 */
import { abandonRespondRaceCase } from './abandon-race.js';
import { acrossHandlesCases } from './across-handles.js';
import { claimedCases } from './claimed.js';
import { keptCases } from './kept.js';
import { caseKit, type ComplianceCase, type StoreFactory } from './kit.js';
import { oneWinnerCases } from './one-winner.js';

export { createManualClock } from '../broker/index.js';
export type { ManualClock } from '../broker/index.js';
export type { ComplianceCase, StoreFactory } from './kit.js';

export interface ComplianceResult {
  name: string;
  ok: boolean;
  error?: unknown;
}

/** The cases every broker store must pass, in a fixed order. */
export function storeComplianceCases(factory: StoreFactory): ComplianceCase[] {
  const kit = caseKit(factory);
  return [
    ...oneWinnerCases(kit),
    ...claimedCases({ pair: (body) => kit.pair(body), question: kit.question, withTimeout: kit.withTimeout }),
    abandonRespondRaceCase(kit),
    ...acrossHandlesCases(kit),
    ...keptCases(kit),
  ];
}

/** Runs every case and returns the results (a host can print them or fail its own test on them). */
export async function runStoreCompliance(factory: StoreFactory): Promise<ComplianceResult[]> {
  const results: ComplianceResult[] = [];
  for (const testCase of storeComplianceCases(factory)) {
    try {
      await testCase.run();
      results.push({ name: testCase.name, ok: true });
    } catch (error) {
      results.push({ name: testCase.name, ok: false, error });
    }
  }
  return results;
}
