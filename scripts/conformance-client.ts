/**
 * The client the MCP conformance referee drives (see scripts/conformance.mjs): mcpx's own seam, nothing else.
 * The referee appends the mock server's URL as the last argument and names the scenario and the wire's
 * protocol version in MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_PROTOCOL_VERSION.
 */
import { createMcpx } from '../src/mcpx.js';
import type { Answer, Question } from '../src/types.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
if (!url || !/^https?:\/\//.test(url) || !scenario) {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=<name> conformance-client <mock server url>');
  process.exit(2);
}

interface PlannedCall {
  tool: string;
  args: Record<string, unknown>;
}

/** The tool calls each scenario's mock server expects, in order. */
const callsByScenario: Record<string, PlannedCall[]> = {
  tools_call: [{ tool: 'add_numbers', args: { a: 2, b: 3 } }],
  'elicitation-sep1034-client-defaults': [{ tool: 'test_client_elicitation_defaults', args: {} }],
  // test_mrtr_unrelated runs between two MRTR flows: it must carry nothing from either.
  'sep-2322-client-request-state': [
    { tool: 'test_mrtr_echo_state', args: {} },
    { tool: 'test_mrtr_unrelated', args: {} },
    { tool: 'test_mrtr_no_state', args: {} },
    // A 2026-07-28 result without resultType: complete (no retry), as the spec says.
    { tool: 'test_mrtr_no_result_type', args: {} },
  ],
  // Any request will do: the mock rejects the first with -32022 and checks the retry and every request's _meta.
  'request-metadata': [],
};

const calls = callsByScenario[scenario];
if (!calls) {
  // Never exit quietly on an unknown scenario: that reads as an all-SKIPPED "pass".
  console.error(`conformance-client: no plan for scenario ${scenario}`);
  process.exit(1);
}

// The seam fills the schema's defaults into accepted content before it is sent; the referee checks they arrive.
const acceptWithDefaults = async (question: Question): Promise<Answer> => {
  console.log(`elicit ${question.era} ${question.mode} ${JSON.stringify(question.message)}`);
  return { action: 'accept', content: {} };
};

const modern = protocolVersion >= '2026-07-28';
const mcpx = await createMcpx({
  config: { mcpServers: { mock: { url, era: modern ? 'modern' : 'legacy' } } },
  onElicit: acceptWithDefaults,
  clientInfo: { name: 'mcpx-conformance', version: '0.1.0' },
});

let failed = false;
try {
  if (calls.length === 0) console.log(`tools ${(await mcpx.listTools('mock')).map((tool) => tool.name).join(',')}`);
  for (const { tool, args } of calls) {
    const outcome = await mcpx.callTool('mock', tool, args);
    if (outcome.status !== 'complete') {
      failed = true;
      console.log(`${tool} ${outcome.status}: ${outcome.questions.length} question(s) left unanswered`);
    } else {
      console.log(`${tool} ${JSON.stringify(outcome.result)}`);
    }
  }
} finally {
  await mcpx.close();
}
process.exit(failed ? 1 : 0);
