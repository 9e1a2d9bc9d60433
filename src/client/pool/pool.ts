/**
 * The connections of one mcpx instance, opened lazily per server and reused, and the call API on top of them:
 * listTools, callTool (complete or input-required, never an error for a question) and resume.
 */
import type * as Mcp from '../mcp-shapes.js';
import type { Answer, ElicitHandler, Era } from '../../types.js';
import type { McpxConfig } from '../../config/schema.js';
import type { Auth } from '../../auth/index.js';
import type { ServerConnector, ServerRequestForwarding } from '../connection.js';
import type { EraCache } from '../era-cache.js';
import type { CallNotifications, CallOptions, CallOutcome, Continuation, PromptOutcome, ResourceOutcome } from '../outcome.js';
import type { AskingMethod } from '../requests.js';
import type { SecretStore } from '../../secrets/types.js';
import { createConnections } from './connections.js';
import { createListings } from './listings.js';
import { createRequests } from './requests.js';

export interface ClientPoolOptions {
  config: McpxConfig;
  /** Servers the host wires itself (custom or in-memory transports), beside the configured ones. */
  servers?: Record<string, ServerConnector>;
  cwd: string;
  env: Record<string, string | undefined>;
  onElicit?: ElicitHandler;
  openUrl?: (url: string) => Promise<boolean>;
  /** Declare url mode with no openUrl: whoever answers a url question opens the page on their side. */
  urlOpenedByAnswerer?: boolean;
  answerLater?: boolean;
  elicitTtlMs: number;
  /** Questions one call may ask (all its rounds) before it fails with QUESTION_LIMIT; absent: no bound. */
  maxQuestionsPerCall?: number;
  requestTimeoutMs: number;
  eraCache: EraCache;
  /** OAuth for Streamable HTTP servers (sign-in, stored tokens, refresh). */
  auth?: Auth;
  clientInfo: { name: string; version: string };
  /** Where asked credentials are kept (`{"ask": ...}` config entries); opened on first need. */
  secrets?: () => Promise<SecretStore>;
  /** Said in SERVER_NOT_FOUND errors: where the config came from. */
  configSource?: string;
  /** A server said a resource changed (after a subscribe). */
  onResourceUpdated?: (server: string, uri: string) => void;
  /** Where the servers' sampling and roots requests go (declared only when given). */
  forward?: ServerRequestForwarding;
  now?: () => number;
}

export interface ClientPool {
  serverNames(): string[];
  /** The era the server's connection speaks (connects if needed). */
  era(server: string): Promise<Era>;
  /** What the server declared at connecting (connects if needed). */
  capabilities(server: string): Promise<Mcp.ServerCapabilities>;
  listTools(server: string): Promise<Mcp.Tool[]>;
  callTool(server: string, tool: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  listPrompts(server: string): Promise<Mcp.Prompt[]>;
  /** Gets a prompt; like a tool call, it may ask questions (both eras) and come back input-required. */
  getPrompt(server: string, name: string, args?: Record<string, string>, options?: CallOptions): Promise<PromptOutcome>;
  listResources(server: string): Promise<Mcp.Resource[]>;
  listResourceTemplates(server: string): Promise<Mcp.ResourceTemplate[]>;
  /** Asks the server to complete a prompt's or resource template's argument (`completion/complete` params). */
  complete(server: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Subscribes to (or unsubscribes from) a resource where the server takes it; false where it does not. */
  subscribe(server: string, uri: string, on: boolean): Promise<boolean>;
  /** Reads a resource; like a tool call, it may ask questions (both eras) and come back input-required. */
  readResource(server: string, uri: string, options?: CallOptions): Promise<ResourceOutcome>;
  /** Re-sends a modern call, prompt or resource read with its answers (the continuation says which). */
  resume<R = Mcp.CallToolResult>(
    continuation: Continuation | unknown,
    answers: Record<string, Answer>,
    options?: Pick<CallOptions, 'signal' | 'elicitTtlMs' | 'notifications'>,
  ): Promise<CallOutcome<R>>;
  /**
   * One request to a modern server as another client's proxy (`mcpx serve`): it declares that client's
   * capabilities, carries its `inputResponses` and `requestState` as given, and returns the raw result, complete or
   * `input_required`, for that client to answer. Throws McpxError like a call; CALL_FAILED for a legacy server.
   */
  relay(
    server: string,
    method: AskingMethod,
    target: string,
    args: Record<string, unknown>,
    options: RelayOptions,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface RelayOptions {
  capabilities: Record<string, unknown>;
  inputResponses?: unknown;
  requestState?: string;
  signal?: AbortSignal;
  /** Where the request's progress and log messages go. */
  notifications?: CallNotifications;
}

export function createClientPool(options: ClientPoolOptions): ClientPool {
  const connections = createConnections(options);
  const listings = createListings(connections, options.onResourceUpdated);
  const { run, resume, relay } = createRequests(options, connections, listings);
  return {
    serverNames: connections.serverNames,
    relay,
    era: async (server) => (await connections.get(server)).connection.era,
    capabilities: async (server) => (await connections.get(server)).connection.client.getServerCapabilities() ?? {},
    listTools: (server) => listings.listTools(server),
    callTool: (server, tool, args = {}, callOptions = {}) =>
      run<Mcp.CallToolResult>({ method: 'tools/call', server, target: tool, args, callOptions }),
    listPrompts: listings.listPrompts,
    getPrompt: (server, name, args = {}, callOptions = {}) =>
      run<Mcp.GetPromptResult>({ method: 'prompts/get', server, target: name, args, callOptions }),
    listResources: listings.listResources,
    listResourceTemplates: listings.listResourceTemplates,
    complete: listings.complete,
    subscribe: listings.subscribe,
    readResource: (server, uri, callOptions = {}) =>
      run<Mcp.ReadResourceResult>({ method: 'resources/read', server, target: uri, args: {}, callOptions }),
    resume,
    close: connections.close,
  };
}
