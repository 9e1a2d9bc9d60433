export type RunReferee = (args: string[], env: NodeJS.ProcessEnv) => Promise<{ code: number; output: string }>;
/** Runs the server scenarios directly and through `mcpx serve --http`; true only when nothing is wrong. */
export declare function runServerScenarios(options: {
  repo: string;
  runReferee: RunReferee;
  resultsDir: string;
  only?: string[] | undefined;
}): Promise<boolean>;
