/** One check of the referee's checks.json. */
export interface RefereeCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO' | string;
  errorMessage?: string;
  [key: string]: unknown;
}
export declare function parseServerScenarioList(output: string): string[];
export declare function unknownSelections(only: string[], listed: string[]): string[];
export declare function scenarioPasses(checks: RefereeCheck[]): boolean;
export declare function degradedChecks(direct: RefereeCheck[], viaMcpx: RefereeCheck[]): string[];
export declare function judgeServerSet(options: {
  spec: string;
  required: string[];
  direct: Map<string, RefereeCheck[]>;
  viaMcpx: Map<string, RefereeCheck[]>;
  listedBy?: string;
}): { lines: string[]; problems: string[] };
