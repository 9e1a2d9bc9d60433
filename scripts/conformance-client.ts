/**
 * The client the MCP conformance referee drives (see scripts/conformance.mjs): mcpx's own seam, nothing else.
 * The referee appends the mock server's URL as the last argument and names the scenario and the wire's
 * protocol version in MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_PROTOCOL_VERSION.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuth } from '../src/auth/index.js';
import { credentialRef } from '../src/client/credentials.js';
import type { OAuthConfig } from '../src/config/oauth-schema.js';
import { createMcpx } from '../src/mcpx.js';
import { openSecretStore } from '../src/secrets/index.js';
import type { Answer, Question } from '../src/types.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const protocolVersion = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
if (!url || !/^https?:\/\//.test(url) || !scenario) {
  console.error('usage: MCP_CONFORMANCE_SCENARIO=<name> conformance-client <mock server url>');
  process.exit(2);
}

/**
 * What a user would do against each scenario's server, through mcpx's public API: call named tools, or look
 * around (list what the server offers and use each of it). Nothing here answers the referee's checks directly.
 */
type Step =
  | { call: string; args: Record<string, unknown> }
  /** List the tools, then call each one listed (with no arguments). */
  | { explore: 'tools' }
  /** List the resources and prompts, then read each resource and get each prompt. */
  | { explore: 'resources-and-prompts' }
  | { list: 'tools' };

/** Tool calls the referee names in MCP_CONFORMANCE_CONTEXT (`toolCalls: [{name, arguments}]`), as a user would be told them. */
function contextCalls(): Step[] {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return [];
  const context = JSON.parse(raw) as { toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }> };
  return (context.toolCalls ?? []).map((c) => ({ call: c.name, args: c.arguments ?? {} }));
}

const plans: Record<string, () => Step[]> = {
  tools_call: () => [{ call: 'add_numbers', args: { a: 2, b: 3 } }],
  'elicitation-sep1034-client-defaults': () => [{ call: 'test_client_elicitation_defaults', args: {} }],
  // test_mrtr_unrelated runs between two MRTR flows: it must carry nothing from either.
  'sep-2322-client-request-state': () => [
    { call: 'test_mrtr_echo_state', args: {} },
    { call: 'test_mrtr_unrelated', args: {} },
    { call: 'test_mrtr_no_state', args: {} },
    // A 2026-07-28 result without resultType: complete (no retry), as the spec says.
    { call: 'test_mrtr_no_result_type', args: {} },
  ],
  // Any request will do: the mock rejects the first with -32022 and checks the retry and every request's _meta.
  'request-metadata': () => [{ list: 'tools' }],
  initialize: () => [{ list: 'tools' }],
  // A call whose SSE stream the server closes: the transport reconnects after `retry` with Last-Event-ID.
  'sse-retry': () => [{ call: 'test_reconnection', args: {} }],
  'http-standard-headers': () => [{ explore: 'tools' }, { explore: 'resources-and-prompts' }],
  // Tools with invalid x-mcp-header declarations never reach the list a user sees, so they are never called.
  'http-invalid-tool-headers': () => [{ explore: 'tools' }],
  'json-schema-ref-no-deref': () => [{ list: 'tools' }],
  // Called without listing first: mcpx learns the tool's x-mcp-header declarations itself.
  'http-custom-headers': contextCalls,
};

// Every authorization scenario is the same errand for a user: use the server's tools, signing in when asked.
const plan = plans[scenario] ?? (scenario.startsWith('auth/') ? (): Step[] => [{ explore: 'tools' }] : undefined);
if (!plan) {
  // Never exit quietly on an unknown scenario: that reads as an all-SKIPPED "pass".
  console.error(`conformance-client: no plan for scenario ${scenario}`);
  process.exit(1);
}
const steps = plan();

// The seam fills the schema's defaults into accepted content before it is sent; the referee checks they arrive.
const acceptWithDefaults = async (question: Question): Promise<Answer> => {
  console.log(`elicit ${question.era} ${question.mode} ${JSON.stringify(question.message)}`);
  return { action: 'accept', content: {} };
};

type Context = Record<string, string | undefined>;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Context;
const runDir = mkdtempSync(join(tmpdir(), 'mcpx-conformance-'));
const secrets = await openSecretStore({ stateDir: runDir, prefer: 'file' });

/** What the server's operator handed out, kept where a user keeps it: in mcpx's secret store, or a 0600 file. */
async function kept(key: string, value: string | undefined): Promise<{ ask: string; secret: true }> {
  if (value === undefined) throw new Error(`the scenario's context has no value for oauth.${key}`);
  // As if the user had answered mcpx's question for it on an earlier run (mcpx asks at first use and keeps it).
  await secrets.set(credentialRef('mock', 'oauth', key).service, credentialRef('mock', 'oauth', key).account, value);
  return { ask: key, secret: true };
}
function inFile(name: string, value: string | undefined): { file: string } {
  if (value === undefined) throw new Error(`the scenario's context has no value for ${name}`);
  const file = join(runDir, name);
  writeFileSync(file, value, { mode: 0o600 });
  return { file };
}

/**
 * The `oauth` block a user would write for the server. The machine grants (the extension scenarios) name the
 * grant and the client the operator issued, and refer to its secret (kept in the secret store, or a key or workload
 * token in a file the platform maintains). Otherwise: a pre-registered client when the operator handed one out
 * (`auth/pre-registration`), and this harness's client-id metadata document URL (the referee's test identity),
 * which mcpx uses only where the authorization server says it supports them. DPoP needs nothing: mcpx uses it
 * when the authorization server offers it.
 */
async function oauthSettings(): Promise<OAuthConfig> {
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return {
        grant: 'client_credentials',
        clientId: context.client_id!,
        clientSecret: await kept('clientSecret', context.client_secret),
      };
    case 'auth/client-credentials-jwt':
      return {
        grant: 'client_credentials',
        clientId: context.client_id!,
        privateKey: inFile('client-key.pem', context.private_key_pem),
        algorithm: context.signing_algorithm as OAuthConfig['algorithm'],
      };
    case 'auth/wif-jwt-bearer':
      return { grant: 'jwt-bearer', clientId: context.client_id!, assertion: inFile('workload.jwt', context.valid_jwt) };
    case 'auth/enterprise-managed-authorization':
      return {
        grant: 'enterprise',
        clientId: context.client_id!,
        clientSecret: await kept('clientSecret', context.client_secret),
        idp: {
          tokenEndpoint: context.idp_token_endpoint!,
          clientId: context.idp_client_id!,
          idToken: await kept('idp.idToken', context.idp_id_token),
        },
      };
  }
  return {
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id ? { clientId: context.client_id } : {}),
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
  };
}

// The person at the browser: opens the sign-in URL and follows where the authorization server sends it, which ends
// on mcpx's loopback redirect. Tokens go to a secret-store file in a state dir of this run's own.
const signingIn = scenario.startsWith('auth/');
const auth = signingIn
  ? createAuth({
      store: secrets,
      present: async ({ url: signInUrl }) => {
        console.log(`sign in at ${signInUrl.origin}`);
        await (await fetch(signInUrl)).text();
      },
    })
  : undefined;

const modern = protocolVersion >= '2026-07-28';
const mcpx = await createMcpx({
  config: {
    mcpServers: { mock: { url, era: modern ? 'modern' : 'legacy', ...(signingIn ? { oauth: await oauthSettings() } : {}) } },
  },
  secrets,
  onElicit: acceptWithDefaults,
  clientInfo: { name: 'mcpx-conformance', version: '0.1.0' },
  ...(auth ? { auth } : {}),
});

let failed = false;
const report = (what: string, outcome: { status: string; questions?: unknown[] }, result: unknown): void => {
  if (outcome.status !== 'complete') {
    failed = true;
    console.log(`${what} ${outcome.status}: ${outcome.questions?.length ?? 0} question(s) left unanswered`);
  } else {
    console.log(`${what} ${JSON.stringify(result)}`);
  }
};
const call = async (tool: string, args: Record<string, unknown>): Promise<void> => {
  const outcome = await mcpx.callTool('mock', tool, args);
  report(tool, outcome, outcome.status === 'complete' ? outcome.result : undefined);
};
try {
  for (const step of steps) {
    if ('call' in step) await call(step.call, step.args);
    else if ('list' in step) console.log(`tools ${(await mcpx.listTools('mock')).map((tool) => tool.name).join(',')}`);
    else if (step.explore === 'tools') {
      for (const tool of await mcpx.listTools('mock')) await call(tool.name, {});
    } else {
      for (const resource of await mcpx.listResources('mock')) {
        const outcome = await mcpx.readResource('mock', resource.uri);
        report(`resource ${resource.uri}`, outcome, outcome.status === 'complete' ? outcome.result : undefined);
      }
      for (const prompt of await mcpx.listPrompts('mock')) {
        const outcome = await mcpx.getPrompt('mock', prompt.name);
        report(`prompt ${prompt.name}`, outcome, outcome.status === 'complete' ? outcome.result : undefined);
      }
    }
  }
} finally {
  await mcpx.close();
  await auth?.close();
}
process.exit(failed ? 1 : 0);
