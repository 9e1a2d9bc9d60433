/**
 * The connections of one mcpx instance, opened lazily per server and reused, and the call API on top of them:
 * listTools, callTool (complete or input-required, never an error for a question) and resume.
 */
import type {
  CallToolResult,
  Client,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, SdkError, SdkHttpError } from '@modelcontextprotocol/client';
import { McpxError } from '../errors.js';
import { newCallId } from '../ids.js';
import { stateDir } from '../paths.js';
import type { Answer, ElicitHandler, Era } from '../types.js';
import type { McpxConfig } from '../config/schema.js';
import type { Auth } from '../auth/index.js';
import { openConnection, type Connection, type LegacyLink, type ServerConnector } from './connection.js';
import type { EraCache } from './era-cache.js';
import { LegacyCall } from './legacy-call.js';
import { callError, inputResponsesFor, parseContinuation, runModernCall, type ModernCallOptions } from './modern-call.js';
import type { CallOptions, CallOutcome, Continuation, PromptOutcome, ResourceOutcome } from './outcome.js';
import { askedEntries, credentialParams, keepAnswer, readAsked, type AskedEntry, type AskedValues } from './credentials.js';
import { paramHeaders, scanHeaderDeclarations, type HeaderScan } from './param-headers.js';
import { requestLabel, requestParams, type AskingMethod } from './requests.js';
import type { WireElicitResult } from './seam.js';
import type { SecretStore } from '../secrets/types.js';
import type { InputRequiredOutcome } from './outcome.js';

// setTimeout's ceiling: the SDK's own request timeout is effectively off; LegacyCall's watchdog does the job.
const NO_SDK_TIMEOUT = 2_147_483_647;

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
  requestTimeoutMs: number;
  eraCache: EraCache;
  /** OAuth for Streamable HTTP servers (sign-in, stored tokens, refresh). */
  auth?: Auth;
  clientInfo: { name: string; version: string };
  /** Where asked credentials are kept (`{"ask": ...}` config entries); opened on first need. */
  secrets?: () => Promise<SecretStore>;
  /** Said in SERVER_NOT_FOUND errors: where the config came from. */
  configSource?: string;
  now?: () => number;
}

export interface ClientPool {
  serverNames(): string[];
  /** The era the server's connection speaks (connects if needed). */
  era(server: string): Promise<Era>;
  listTools(server: string): Promise<Tool[]>;
  callTool(server: string, tool: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallOutcome>;
  listPrompts(server: string): Promise<Prompt[]>;
  /** Gets a prompt; like a tool call, it may ask questions (both eras) and come back input-required. */
  getPrompt(server: string, name: string, args?: Record<string, string>, options?: CallOptions): Promise<PromptOutcome>;
  listResources(server: string): Promise<Resource[]>;
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
  /** Reads a resource; like a tool call, it may ask questions (both eras) and come back input-required. */
  readResource(server: string, uri: string, options?: CallOptions): Promise<ResourceOutcome>;
  /** Re-sends a modern call, prompt or resource read with its answers (the continuation says which). */
  resume<R = CallToolResult>(
    continuation: Continuation | unknown,
    answers: Record<string, Answer>,
    options?: { signal?: AbortSignal },
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
}

interface Pooled {
  connection: Connection;
  /** Legacy calls in flight: a server's `elicitation/create` belongs to one of them. */
  active: LegacyCall<unknown>[];
  /** Each listed tool's `x-mcp-header` declarations; unset until the tools are listed. */
  tools?: Map<string, HeaderScan>;
  /** A request has succeeded on it: its era is proven. */
  proven: boolean;
}

/**
 * Finds the call a legacy `elicitation/create` serves. The wire links it when the request came on that call's
 * HTTP response stream, or names that call's progress token in its `_meta`; otherwise, with one call open it is
 * that one, and with several it is a guess: the question is marked ambiguous and lists every open call.
 */
function attribute(
  server: string,
  active: LegacyCall<unknown>[],
  params: Record<string, unknown>,
  link: LegacyLink,
): Promise<WireElicitResult> {
  const open = active.filter((c) => !c.settled);
  const meta = params._meta && typeof params._meta === 'object' ? (params._meta as Record<string, unknown>) : {};
  for (const token of [link.streamOf, meta.progressToken]) {
    const linked = typeof token === 'string' ? open.find((c) => c.progressToken === token) : undefined;
    if (linked) return linked.ask(params);
  }
  const [only, ...others] = open;
  if (!only) throw new McpxError('CALL_FAILED', `${server} asked a question while no call was in flight`);
  if (!others.length) return only.ask(params);
  // A call already waiting on a question is less likely to be asking another (questions asked together come
  // within milliseconds): the oldest call not yet asking, else the oldest.
  const pick = open.find((c) => !c.asking) ?? only;
  return pick.ask(
    params,
    open.map((c) => c.callId),
  );
}

/**
 * Whether a failed request shows the server does not speak the modern era: refused as a protocol matter
 * (unknown method, invalid request, unsupported version, no legacy session), so the request did not run.
 * A result the SDK could not read proves it only for a request that may run twice (a listing).
 */
function provesEraWrong(cause: unknown, idempotent: boolean): boolean {
  if (cause instanceof ProtocolError) {
    if (cause.code === -32601 || cause.code === -32600 || cause.code === -32022) return true;
    return cause.code === -32000 && /session|initiali[sz]/i.test(cause.message);
  }
  if (cause instanceof SdkHttpError) return cause.status === 400 || cause.status === 404 || cause.status === 405;
  if (cause instanceof SdkError) {
    if (cause.code === 'ERA_NEGOTIATION_FAILED' || cause.code === 'CONNECTION_CLOSED') return true;
    return idempotent && cause.code === 'INVALID_RESULT';
  }
  return false;
}

export function createClientPool(options: ClientPoolOptions): ClientPool {
  const now = options.now ?? Date.now;
  const pool = new Map<string, Promise<Pooled>>();
  let closed = false;
  const elicitation = {
    form: Boolean(options.onElicit || options.answerLater),
    url: Boolean((options.openUrl || options.urlOpenedByAnswerer) && (options.onElicit || options.answerLater)),
  };

  // A server's own `timeoutMs` (config) wins over the instance default.
  const timeoutFor = (name: string): number =>
    (options.servers?.[name] ?? options.config.mcpServers[name])?.timeoutMs ?? options.requestTimeoutMs;

  const serverNames = (): string[] => [
    ...new Set([...Object.keys(options.config.mcpServers), ...Object.keys(options.servers ?? {})]),
  ];

  const get = (name: string): Promise<Pooled> => {
    if (closed) return Promise.reject(new McpxError('CALL_FAILED', 'this mcpx instance is closed'));
    const existing = pool.get(name);
    if (existing) return existing;
    const server = options.servers?.[name] ?? options.config.mcpServers[name];
    if (!server) {
      const known = serverNames();
      return Promise.reject(
        new McpxError(
          'SERVER_NOT_FOUND',
          `no server named "${name}"${known.length ? `; configured: ${known.join(', ')}` : '; no servers are configured'}${options.configSource ? ` (config: ${options.configSource})` : ''}`,
          {
            data: { server: name, known },
          },
        ),
      );
    }
    const active: LegacyCall<unknown>[] = [];
    const opening = missingCredentials(name)
      .then((missing) => {
        if (missing.length) throw credentialsMissing(name, missing);
        return openConnection({
          name,
          server,
          ...(askedValues.has(name) ? { asked: askedValues.get(name)! } : {}),
          clientInfo: options.clientInfo,
          elicitation,
          eraCache: options.eraCache,
          cwd: options.cwd,
          env: options.env,
          now,
          onLegacyElicit: (params, link) => attribute(name, active, params, link),
          onProgress: (token) => active.find((c) => c.progressToken === token)?.progress(),
          ...(options.auth ? { auth: options.auth } : {}),
        });
      })
      .then((connection) => {
        const pooled: Pooled = { connection, active, proven: false };
        opened.set(pooled, opening);
        return pooled;
      });
    pool.set(name, opening);
    opening.catch(() => pool.delete(name));
    return opening;
  };

  // Connections dropped from the pool while requests may still run on them: closed with the pool.
  const retired = new Set<Connection>();
  const retire = async (name: string, pooled: Pooled): Promise<void> => {
    await pooled.connection.forgetVerdict();
    if (pool.get(name) === opened.get(pooled)) pool.delete(name);
    retired.add(pooled.connection);
  };
  const opened = new WeakMap<Pooled, Promise<Pooled>>();

  // An era taken from the cache is on probation until a request succeeds on it.
  const onProbation = (pooled: Pooled): boolean =>
    pooled.connection.fromCache && !pooled.proven && pooled.connection.era === 'modern';

  /**
   * A cached modern verdict that went stale fails on the first request (how depends on the server). Any failure
   * on probation forgets the verdict, so the next connect probes again. When the failure also proves the era
   * wrong (the request was refused as a protocol matter, so nothing ran), the server is probed again now and the
   * request retried once, but only if the probe gives another era; otherwise the failure stands.
   */
  const onFailure = async <T>(
    name: string,
    pooled: Pooled,
    error: McpxError,
    retry: () => Promise<T>,
    idempotent: boolean,
  ): Promise<T> => {
    if (!onProbation(pooled)) throw error;
    await retire(name, pooled);
    if (!provesEraWrong(error.cause, idempotent)) throw error;
    const fresh = await get(name);
    if (fresh.connection.era === 'modern') throw error;
    return retry();
  };

  /**
   * A request succeeded. A result without `resultType` on probation is what a legacy server answers to a modern
   * request it does not understand as one: it stands (complete, per the spec), but the verdict is not trusted.
   */
  const onSuccess = async (name: string, pooled: Pooled): Promise<void> => {
    if (pooled.proven) return;
    if (onProbation(pooled) && pooled.connection.resultsWithoutType() > 0) return retire(name, pooled);
    pooled.proven = true;
  };

  let secretStore: Promise<SecretStore> | undefined;
  const secrets = (): Promise<SecretStore> =>
    (secretStore ??= (
      options.secrets ?? (async () => (await import('../secrets/index.js')).openSecretStore({ stateDir: stateDir(options.env) }))
    )());
  /** The values of each configured server's asked entries, once all are known in this process. */
  const askedValues = new Map<string, AskedValues>();

  /** The asked entries of a configured server that have no value yet, here or in the secret store. */
  const missingCredentials = async (name: string): Promise<AskedEntry[]> => {
    const server = options.servers?.[name] ? undefined : options.config.mcpServers[name];
    if (!server || askedValues.has(name)) return [];
    const entries = askedEntries(name, server);
    if (!entries.length) return [];
    const { values, missing } = await readAsked(entries, await secrets());
    if (!missing.length) askedValues.set(name, values);
    return missing;
  };

  /**
   * Asks for the missing credentials as mcpx's own questions of the call, held open like a legacy call's (so
   * every surface sees and answers them as any other), keeps them, then makes the call.
   */
  const askCredentials = async <R>(
    method: AskingMethod,
    server: string,
    target: string,
    args: Record<string, unknown>,
    callOptions: CallOptions,
    missing: AskedEntry[],
  ): Promise<CallOutcome<R>> => {
    const callId = callOptions.callId ?? newCallId();
    const call = new LegacyCall<true>({
      server,
      tool: target,
      method,
      arguments: args,
      callId,
      progressToken: `${callId}/${++calls}`,
      ...(options.onElicit ? { onElicit: options.onElicit } : {}),
      ttlMs: options.elicitTtlMs,
      requestTimeoutMs: timeoutFor(server),
      now,
      mapError: (error) => error,
    });
    const onAbort = (): void =>
      call.cancel(
        new McpxError('CALL_FAILED', `${requestLabel(server, target, method)} was aborted by the caller`, {
          data: { server, tool: target },
        }),
      );
    callOptions.signal?.addEventListener('abort', onAbort, { once: true });
    const collected = call.run(async () => {
      try {
        const store = await secrets();
        for (const entry of missing)
          await keepAnswer(
            server,
            entry,
            await call.ask(credentialParams(server, entry), undefined, entry.secret ? entry.ref : undefined),
            store,
          );
        return true as const;
      } finally {
        callOptions.signal?.removeEventListener('abort', onAbort);
      }
    });
    const proceed = (): Promise<CallOutcome<R>> => run<R>(method, server, target, args, { ...callOptions, callId });
    const first = await collected;
    return first.status === 'complete' ? proceed() : afterCredentials(first, proceed);
  };

  let calls = 0;
  /** One request that may ask (a tool call, a prompt, a resource read), in the era the connection speaks. */
  const run = async <R>(
    method: AskingMethod,
    server: string,
    target: string,
    args: Record<string, unknown>,
    callOptions: CallOptions,
  ): Promise<CallOutcome<R>> => {
    if (!pool.has(server)) {
      const missing = await missingCredentials(server);
      if (missing.length) return askCredentials<R>(method, server, target, args, callOptions, missing);
    }
    const pooled = await get(server);
    const { connection } = pooled;
    const callId = callOptions.callId ?? newCallId();
    if (connection.era === 'modern') {
      return runModernCall<R>({
        client: connection.client,
        server,
        tool: target,
        method,
        arguments: args,
        callId,
        ...(callOptions.parent !== undefined ? { parent: callOptions.parent } : {}),
        ...(options.onElicit ? { onElicit: options.onElicit } : {}),
        ...(options.openUrl ? { openUrl: options.openUrl } : {}),
        ...(options.urlOpenedByAnswerer ? { urlOpenedByAnswerer: true } : {}),
        ...(method === 'tools/call' ? toolHeaders(server, pooled, target, args) : {}),
        ttlMs: options.elicitTtlMs,
        requestTimeoutMs: timeoutFor(server),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        now,
      }).then(
        async (outcome) => {
          await onSuccess(server, pooled);
          return outcome;
        },
        (error: unknown) =>
          onFailure(
            server,
            pooled,
            callError(server, target, error, false, method),
            () => run<R>(method, server, target, args, { ...callOptions, callId }),
            false,
          ),
      );
    }
    const call = new LegacyCall<R>({
      server,
      tool: target,
      method,
      arguments: args,
      callId,
      progressToken: `${callId}/${++calls}`,
      ...(options.onElicit ? { onElicit: options.onElicit } : {}),
      ...(options.openUrl ? { openUrl: options.openUrl } : {}),
      ...(options.urlOpenedByAnswerer ? { urlOpenedByAnswerer: true } : {}),
      ttlMs: options.elicitTtlMs,
      requestTimeoutMs: timeoutFor(server),
      now,
      mapError: (error) => callError(server, target, error, false, method),
    });
    pooled.active.push(call as LegacyCall<unknown>);
    const onAbort = (): void =>
      call.cancel(
        new McpxError('CALL_FAILED', `${requestLabel(server, target, method)} was aborted by the caller`, {
          data: { server, tool: target },
        }),
      );
    callOptions.signal?.addEventListener('abort', onAbort, { once: true });
    return call.run(
      (signal) =>
        legacyRequest(connection.client, method, target, args, call.progressToken, signal).finally(() => {
          pooled.active.splice(pooled.active.indexOf(call as LegacyCall<unknown>), 1);
          callOptions.signal?.removeEventListener('abort', onAbort);
        }) as Promise<R>,
    );
  };

  /**
   * SEP-2243: a modern tool call carries `Mcp-Param-*` headers built from the tool's schema, in every round.
   * The schema is known before the first request (listed on a miss); a -32020 re-lists and sends once more.
   */
  const toolHeaders = (
    server: string,
    pooled: Pooled,
    tool: string,
    args: Record<string, unknown>,
  ): Pick<ModernCallOptions, 'headers' | 'onHeaderMismatch'> => ({
    headers: async () => {
      if (!pooled.connection.carriesHeaders) return undefined;
      // Listed first on a miss; not while a cached era is on probation (the call itself must prove it, and run once).
      if (!pooled.tools && !onProbation(pooled)) await listTools(server).catch(() => undefined);
      const scan = pooled.tools?.get(tool);
      return scan?.valid ? paramHeaders(scan.declarations, args) : undefined;
    },
    onHeaderMismatch: async () => {
      if (!pooled.connection.carriesHeaders) return;
      pooled.tools = undefined;
      await listTools(server, { refresh: true }).catch(() => undefined);
    },
  });

  const callTool = (
    server: string,
    tool: string,
    args: Record<string, unknown> = {},
    callOptions: CallOptions = {},
  ): Promise<CallOutcome> => run<CallToolResult>('tools/call', server, tool, args, callOptions);

  const getPrompt = (
    server: string,
    name: string,
    args: Record<string, string> = {},
    callOptions: CallOptions = {},
  ): Promise<PromptOutcome> => run<GetPromptResult>('prompts/get', server, name, args, callOptions);

  const readResource = (server: string, uri: string, callOptions: CallOptions = {}): Promise<ResourceOutcome> =>
    run<ReadResourceResult>('resources/read', server, uri, {}, callOptions);

  /** A listing, with the era checks every first request on a cached verdict gets. */
  const list = async <T>(
    server: string,
    what: string,
    fetch: (client: Client, timeout: number) => Promise<T>,
    retry: () => Promise<T>,
  ): Promise<{ pooled: Pooled; items: T }> => {
    const pooled = await get(server);
    let items: T;
    try {
      items = await fetch(pooled.connection.client, timeoutFor(server));
    } catch (error) {
      const mapped = new McpxError(
        'CALL_FAILED',
        `listing the ${what} of "${server}" failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
          data: { server, ...(error instanceof ProtocolError ? { code: error.code } : {}) },
        },
      );
      return { pooled, items: await onFailure(server, pooled, mapped, retry, true) };
    }
    await onSuccess(server, pooled);
    return { pooled, items };
  };

  const listTools = async (server: string, listOptions: { refresh?: boolean } = {}): Promise<Tool[]> => {
    const { pooled, items } = await list(
      server,
      'tools',
      async (client, timeout) =>
        (await client.listTools(undefined, { timeout, ...(listOptions.refresh ? { cacheMode: 'refresh' as const } : {}) })).tools,
      () => listTools(server, listOptions),
    );
    // What each tool's calls must carry as headers, known from now on.
    pooled.tools = new Map(items.map((tool) => [tool.name, scanHeaderDeclarations(tool.inputSchema)]));
    return items;
  };

  const listPrompts = async (server: string): Promise<Prompt[]> =>
    (
      await list(
        server,
        'prompts',
        async (client, timeout) => (await client.listPrompts(undefined, { timeout })).prompts,
        () => listPrompts(server),
      )
    ).items;

  const listResources = async (server: string): Promise<Resource[]> =>
    (
      await list(
        server,
        'resources',
        async (client, timeout) => (await client.listResources(undefined, { timeout })).resources,
        () => listResources(server),
      )
    ).items;

  const listResourceTemplates = async (server: string): Promise<ResourceTemplate[]> =>
    (
      await list(
        server,
        'resource templates',
        async (client, timeout) => (await client.listResourceTemplates(undefined, { timeout })).resourceTemplates,
        () => listResourceTemplates(server),
      )
    ).items;

  const resume = async <R = CallToolResult>(
    value: Continuation | unknown,
    answers: Record<string, Answer>,
    resumeOptions: { signal?: AbortSignal } = {},
  ): Promise<CallOutcome<R>> => {
    const continuation = parseContinuation(value);
    // Checked before connecting: a bad answer costs nothing and changes nothing.
    const inputResponses = inputResponsesFor(continuation, answers);
    const pooled = await get(continuation.server);
    const { connection } = pooled;
    if (connection.era !== 'modern') {
      throw new McpxError(
        'CONTINUATION_STALE',
        `server "${continuation.server}" now speaks the legacy era, which cannot resume a continuation: run the call again`,
        {
          data: { server: continuation.server, tool: continuation.tool },
        },
      );
    }
    const method = continuation.method ?? 'tools/call';
    return runModernCall<R>(
      {
        client: connection.client,
        server: continuation.server,
        tool: continuation.tool,
        method,
        ...(method === 'tools/call' ? toolHeaders(continuation.server, pooled, continuation.tool, continuation.arguments) : {}),
        arguments: continuation.arguments,
        callId: continuation.callId,
        ...(continuation.parent !== undefined ? { parent: continuation.parent } : {}),
        ...(options.onElicit ? { onElicit: options.onElicit } : {}),
        ...(options.openUrl ? { openUrl: options.openUrl } : {}),
        ...(options.urlOpenedByAnswerer ? { urlOpenedByAnswerer: true } : {}),
        ttlMs: options.elicitTtlMs,
        requestTimeoutMs: timeoutFor(continuation.server),
        ...(resumeOptions.signal ? { signal: resumeOptions.signal } : {}),
        now,
      },
      {
        round: continuation.round,
        inputResponses,
        ...(continuation.requestState !== undefined ? { requestState: continuation.requestState } : {}),
      },
    );
  };

  const relay = async (
    server: string,
    method: AskingMethod,
    target: string,
    args: Record<string, unknown>,
    relayOptions: RelayOptions,
  ): Promise<Record<string, unknown>> => {
    const pooled = await get(server);
    const { connection } = pooled;
    if (connection.era !== 'modern')
      throw new McpxError(
        'CALL_FAILED',
        `server "${server}" speaks the legacy era: its questions cannot be relayed, only asked`,
        { data: { server, tool: target } },
      );
    const params: Record<string, unknown> = {
      ...requestParams(method, target, args),
      _meta: { [CLIENT_CAPABILITIES_META_KEY]: relayOptions.capabilities },
    };
    if (relayOptions.inputResponses !== undefined) params.inputResponses = relayOptions.inputResponses;
    if (relayOptions.requestState !== undefined) params.requestState = relayOptions.requestState;
    const headers = method === 'tools/call' ? await toolHeaders(server, pooled, target, args).headers!() : undefined;
    try {
      const result = await connection.client.request(
        { method, params } as never,
        {
          allowInputRequired: true,
          timeout: timeoutFor(server),
          ...(relayOptions.signal ? { signal: relayOptions.signal } : {}),
          ...(headers && Object.keys(headers).length ? { headers } : {}),
        } as never,
      );
      await onSuccess(server, pooled);
      return result as Record<string, unknown>;
    } catch (error) {
      throw callError(server, target, error, relayOptions.requestState !== undefined, method);
    }
  };

  return {
    serverNames,
    relay,
    era: async (server) => (await get(server)).connection.era,
    listTools: (server) => listTools(server),
    callTool,
    listPrompts,
    getPrompt,
    listResources,
    listResourceTemplates,
    readResource,
    resume,
    close: async () => {
      closed = true;
      const all = await Promise.allSettled([...pool.values()]);
      pool.clear();
      await Promise.all(
        all.map(async (entry) => {
          if (entry.status !== 'fulfilled') return;
          for (const call of [...entry.value.active])
            call.cancel(new McpxError('CALL_FAILED', 'mcpx was closed while the call was open'));
          await entry.value.connection.close().catch(() => undefined);
        }),
      );
      await Promise.all([...retired].map((connection) => connection.close().catch(() => undefined)));
      retired.clear();
    },
  };
}

/** The outcome of the credential questions, as the call's own: once they are answered, the call is made. */
function afterCredentials<R>(
  outcome: InputRequiredOutcome<true>,
  proceed: () => Promise<CallOutcome<R>>,
): InputRequiredOutcome<R> {
  const live = outcome.live!;
  let result: Promise<CallOutcome<R>> | undefined;
  const { questions, callId, server, tool } = outcome;
  return {
    status: 'input-required',
    callId,
    server,
    tool,
    ...(outcome.method ? { method: outcome.method } : {}),
    questions,
    live: {
      expiresAt: live.expiresAt,
      respond: (id, answer) => live.respond(id, answer),
      get result() {
        return (result ??= live.result.then((next) =>
          next.status === 'complete' ? proceed() : afterCredentials(next, proceed),
        ));
      },
    },
  };
}

/** A call cannot ask (a listing): the credentials must be in the secret store already. */
function credentialsMissing(server: string, missing: AskedEntry[]): McpxError {
  const names = missing.map((m) => `${m.ask} (${m.field}.${m.key})`).join(', ');
  return new McpxError(
    'SECRET_MISSING',
    `server "${server}" needs ${names} before it can start; call one of its tools to be asked (mcpx call ${server}.<tool>)`,
    {
      data: { server, missing: missing.map((m) => `${m.field}.${m.key}`) },
    },
  );
}

/** A legacy request that may ask: `_meta.progressToken` names the call its questions belong to. */
function legacyRequest(
  client: Client,
  method: AskingMethod,
  target: string,
  args: Record<string, unknown>,
  progressToken: string,
  signal: AbortSignal,
): Promise<unknown> {
  const _meta = { progressToken };
  const requestOptions = { signal, timeout: NO_SDK_TIMEOUT };
  if (method === 'prompts/get')
    return client.getPrompt({ name: target, arguments: args as Record<string, string>, _meta }, requestOptions);
  // A read that may ask is never answered from the SDK's response cache.
  if (method === 'resources/read') return client.readResource({ uri: target, _meta }, { ...requestOptions, cacheMode: 'bypass' });
  return client.callTool({ name: target, arguments: args, _meta }, requestOptions);
}
