/**
 * `mcpx/policy`: answering before anyone is asked. The policy (modes and rules), the pipeline that tries policy,
 * script and person in turn, and the check an answer's content must pass.
 */
export { parsePolicy, evaluatePolicy, withMode } from '../policy/index.js';
export type { Policy, PolicyMode, PolicyRule, PolicyDecision } from '../policy/index.js';
export { createElicitationPipeline } from '../pipeline/pipeline.js';
export type { Answerer, PipelineOptions } from '../pipeline/pipeline.js';
export { checkContent } from '../elicitation/validate.js';
export type { ContentCheck } from '../elicitation/validate.js';
