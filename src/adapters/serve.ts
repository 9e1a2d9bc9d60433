/**
 * One adapter as an MCP server: its tools listed as they are, each call checked against the tool's input schema,
 * a write confirmed by a live question (`elicitation/create`) before it runs, and the answer honoured exactly:
 * accept runs it, decline and cancel (or a deadline that passed) run nothing and say which.
 */
import { InMemoryTransport, McpServer, type Transport } from '@modelcontextprotocol/server';
import { Ajv, type ValidateFunction } from 'ajv';
import { isOpenApiAdapter, type AdapterConfig } from '../config/adapters.js';
import { McpxError } from '../errors.js';
import type { AdapterContext } from './connectors.js';
import { failure, type AdapterTool, type AdapterToolSet } from './tool-set.js';
import { MCPX_VERSION } from '../constants.js';

export interface AdapterServerFactory extends AdapterToolSet {
  /** A fresh server on a fresh in-memory pair; the client end is returned. */
  connect(): Promise<Transport>;
}

// A confirmation waits as long as the question's deadline allows; the client answers cancel when it lapses.
const NO_TIMEOUT = 2_147_483_647;
/** Asks mcpx's client to mark a cancel that its question's deadline sent... */
const REPORT_EXPIRY_META_KEY = 'io.mcpx/reportExpiry';
/** ...with this key in the answer's `_meta`, so "nobody answered in time" is told apart from a dismissal. */
const EXPIRED_META_KEY = 'io.mcpx/expired';

export async function buildAdapter(name: string, adapter: AdapterConfig, context: AdapterContext): Promise<AdapterServerFactory> {
  const set = isOpenApiAdapter(adapter)
    ? await (await import('./openapi/tools.js')).openApiTools(name, adapter, context)
    : (await import('./cli/tools.js')).cliTools(name, adapter, context);
  return serveTools(name, set);
}

/** Serves a tool set; exported for tests and for hosts that build their own tools. */
export function serveTools(name: string, set: AdapterToolSet): AdapterServerFactory {
  const byName = new Map(set.tools.map((tool) => [tool.definition.name, tool]));
  const definitions = set.tools.map((tool) => tool.definition);
  const validators = new Map<string, ValidateFunction | Error>();
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validatorFor = (tool: AdapterTool): ValidateFunction | Error => {
    let validate = validators.get(tool.definition.name);
    if (!validate) {
      try {
        validate = ajv.compile(tool.definition.inputSchema);
      } catch (error) {
        validate = error as Error;
      }
      validators.set(tool.definition.name, validate);
    }
    return validate;
  };
  const instructions = set.warnings.length ? `Adapter warnings:\n${set.warnings.map((w) => `- ${w}`).join('\n')}` : undefined;

  const connect = async (): Promise<Transport> => {
    const server = new McpServer(
      { name: `mcpx-adapter-${name}`, version: MCPX_VERSION },
      { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) },
    );
    server.server.setRequestHandler('tools/list', () => ({ tools: definitions }));
    server.server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = byName.get(request.params.name);
      if (!tool)
        return failure(
          `${name} has no tool "${request.params.name}"; it has: ${[...byName.keys()].slice(0, 20).join(', ')}${byName.size > 20 ? ', …' : ''}`,
        );
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const validate = validatorFor(tool);
      if (validate instanceof Error)
        return failure(`${tool.definition.name}: its input schema cannot be checked (${validate.message}); not run`);
      if (!validate(args)) {
        const problems = (validate.errors ?? [])
          .slice(0, 5)
          .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}`);
        return failure(`${tool.definition.name}: invalid arguments: ${problems.join('; ')}`);
      }
      try {
        const question = tool.confirmation(args);
        if (question !== undefined) {
          if (!server.server.getClientCapabilities()?.elicitation) {
            return failure(
              `not sent: ${question.replace(/: proceed\?$/, '')} needs a confirmation, and this client cannot be asked (it declared no elicitation)`,
            );
          }
          const progressToken = request.params._meta?.progressToken;
          const answer = await ctx.mcpReq.elicitInput(
            // The call's progress token ties the question to this call when several are in flight.
            {
              mode: 'form',
              message: question,
              requestedSchema: { type: 'object', properties: {} },
              _meta: { [REPORT_EXPIRY_META_KEY]: true, ...(progressToken !== undefined ? { progressToken } : {}) },
            },
            { timeout: NO_TIMEOUT },
          );
          if (answer.action === 'decline')
            return failure(`not sent: the confirmation was declined (${question.replace(/: proceed\?$/, '')})`, {
              confirmation: 'declined',
            });
          if (answer.action !== 'accept') {
            const expired = answer._meta?.[EXPIRED_META_KEY] === true;
            return failure(
              `not sent: the confirmation was ${expired ? 'not answered before its deadline (cancelled)' : 'cancelled'} (${question.replace(/: proceed\?$/, '')})`,
              {
                confirmation: expired ? 'expired' : 'cancelled',
              },
            );
          }
        }
        return tool.run(args, ctx.mcpReq.signal);
      } catch (error) {
        // An argument the adapter refuses (e.g. a CLI value that would read as an option) is the tool's failure.
        if (error instanceof McpxError) return failure(`${tool.definition.name}: ${error.message}`);
        throw error;
      }
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    return clientSide;
  };
  return { ...set, connect };
}
