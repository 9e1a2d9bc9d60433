import type { RefereeCheck } from './conformance-verdict.mjs';

export declare const TASK_SCENARIOS: string[];
export declare const TASK_GAPS_VIA_SERVE: Record<string, string>;
export declare function judgeTaskSet(options: {
  direct: Map<string, RefereeCheck[]>;
  viaMcpx: Map<string, RefereeCheck[]>;
  scenarios?: string[];
  gaps?: Record<string, string>;
}): { lines: string[]; problems: string[] };
