/**
 * The daemon's REST surface as a Hono app (no listen() inside: the daemon or a test serves it).
 * A call that stops at a question answers 202 with `Location: /v1/elicit/{id}` and `Retry-After`: the request was
 * understood and completion is pending, which is not the caller's mistake.
 */
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { Tool } from '@modelcontextprotocol/client';
import { elicitationOf } from '../../broker/index.js';
import type { Broker, ElicitRequest, RespondInput } from '../../broker/index.js';
import { respondWith } from '../../elicitation/describe.js';
import { checkUrl } from '../../elicitation/url.js';
import type { TaskRunner } from '../../tasks/runner.js';
import type { Delivered } from '../../tasks/delivery.js';
import type { ProgressHub } from '../../tasks/progress.js';
import { accessGuard, type RemoteAccess } from './web/gate.js';
import type { WebAuth } from './web/auth.js';
import type { DeviceRegistry } from './web/devices.js';
import type { ListenRequest } from './web/listen.js';
import { mountWebRoutes } from './web/routes.js';
import { toolPaths } from './tool-paths.js';
import { errorBody, toHttpError } from './errors.js';
import { errors, json } from './openapi.js';
import { HealthSchema, type RestElicitation } from './schemas.js';
import type { RouteContext } from './routes/context.js';
import { mountCallRoute, mountTaskRoute } from './routes/calls.js';
import { mountElicitRoutes } from './routes/elicit.js';
import { mountEventsRoute } from './routes/events.js';
import { mountServerRoutes } from './routes/servers.js';
import { mountRequestRoutes } from './routes/requests.js';
import type { DiscoveryCatalog } from './routes/discovery.js';

export interface AppDeps {
  broker: Broker;
  tasks: TaskRunner;
  info: { pid: number; version: string; startedAt: number };
  /** The session a call or answer is in when the request names none. */
  defaultSession: string;
  /** When set, every request must carry `Authorization: Bearer <token>` (the loopback TCP port; the unix socket needs none). */
  token?: string;
  /** The daemon runs inside the command (daemon.inline): calls cannot outlive it, and the text says so. */
  inline?: boolean;
  clock?: () => number;
  /** SSE keepalive comment interval. */
  keepAliveMs?: number;
  /** The configured servers and their tools, over the daemon's pooled connections (for `mcpx gen`). */
  catalog?: ToolCatalog;
  /** The web inbox's sign-ins (shared by the socket app, which mints codes, and the port's, which browsers use). */
  web?: WebAuth;
  /** Opens the daemon's loopback port if it has none yet, and says which it is (the socket app: web sign-in links). */
  openPort?: () => Promise<number>;
  /** Devices paired with the web inbox (their credentials, hashed, in the state store). */
  devices?: DeviceRegistry;
  /** Opens the listener for phones, or finds it open, and says its address (the socket app: pairing links). */
  openRemote?: (request: ListenRequest | undefined) => Promise<string>;
  /** This app is the listener for phones: no bearer token, paired devices only, on these host names. */
  remote?: RemoteAccess;
  /** Answers so that a held legacy call's holder passes it on (ELICITATION_ABANDONED if it died): `tasks/delivery.ts`. */
  respondHeld?: (input: RespondInput) => Promise<Delivered>;
  /** The progress of the calls the runner drives: `call.progress` events on /v1/events, for those who ask for that kind. */
  progress?: Pick<ProgressHub, 'subscribe'>;
  /** The largest request body taken, in bytes (default 1 MiB, MCPX_DAEMON_MAX_BODY): past it 413, read no further. */
  maxBodyBytes?: number;
}

/** A request body larger than this is refused (413) before it is read whole: arguments and answers are small. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** What the tool-listing routes read: the daemon's own warm connections, so no server is spawned per request. */
export interface ToolCatalog extends DiscoveryCatalog {
  serverNames(): Promise<string[]>;
  listTools(server: string): Promise<Tool[]>;
}

const healthRoute = createRoute({
  method: 'get',
  path: '/v1/health',
  operationId: 'health',
  summary: 'The daemon is up.',
  responses: { 200: json(HealthSchema, 'pid, version, start time, calls in flight'), ...errors(401) },
});

/** Builds the REST app over a broker and a task runner. */
export function createApp(deps: AppDeps): OpenAPIHono {
  const { broker, tasks } = deps;
  const now = deps.clock ?? Date.now;
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issues = result.error.issues.map((i) => ({ field: i.path.join('.'), expected: i.code, message: i.message }));
        return c.json(
          errorBody(
            'REQUEST_INVALID',
            `The request is not valid: ${issues.map((i) => `${i.field || 'body'}: ${i.message}`).join('; ')}`,
            { issues },
          ),
          400,
        );
      }
      return undefined;
    },
  });

  app.onError((error, c) => {
    const { status, body } = toHttpError(error);
    return c.json(body, status);
  });
  app.notFound((c) => c.json(errorBody('NOT_FOUND', `No route ${c.req.method} ${c.req.path}; see /openapi.json`), 404));

  if (deps.token !== undefined || deps.remote)
    app.use(
      '*',
      accessGuard(deps.token, deps.web, {
        ...(deps.devices ? { devices: deps.devices } : {}),
        ...(deps.remote ? { remote: deps.remote } : {}),
      }),
    );
  // Counted as it streams in (or judged by Content-Length): a body past the limit is never buffered whole.
  const maxBodyBytes = deps.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        c.json(
          errorBody(
            'PAYLOAD_TOO_LARGE',
            `The request body is larger than the daemon takes (${maxBodyBytes} bytes); send less, or start the daemon with MCPX_DAEMON_MAX_BODY set higher (e.g. 4m).`,
            { limit: maxBodyBytes },
          ),
          413,
        ),
    }),
  );
  if (deps.web)
    mountWebRoutes(app, {
      web: deps.web,
      broker,
      clock: now,
      ...(deps.openPort ? { openPort: deps.openPort } : {}),
      ...(deps.devices ? { devices: deps.devices } : {}),
      ...(deps.openRemote ? { openRemote: deps.openRemote } : {}),
      ...(deps.remote ? { remote: true } : {}),
    });

  // The REST `Elicitation` is the core's listed view, with the task that holds the call and the command that answers.
  const toElicitation = (request: ElicitRequest): RestElicitation =>
    ({
      ...elicitationOf(request, now(), {
        task: request.task ?? tasks.taskOfCall(request.trace),
        respondWith: respondWith(request),
      }),
      ...(request.mode === 'url' ? urlView(request.url) : {}),
    }) as RestElicitation;

  const context: RouteContext = { deps, now, toElicitation };

  // Registered in this order, which is the order of the OpenAPI document's paths.
  mountCallRoute(app, context);
  mountElicitRoutes(app, context);
  mountTaskRoute(app, context);
  mountEventsRoute(app, context);
  mountServerRoutes(app, context);
  mountRequestRoutes(app, context);

  app.openapi(healthRoute, (c) => c.json({ ...deps.info, activeCalls: tasks.active() }, 200));

  const documentConfig = {
    openapi: '3.1.0',
    info: {
      title: 'mcpx daemon',
      version: deps.info.version,
      description:
        'Call MCP tools through the mcpx daemon. A call that stops at a question answers 202; answer it at /v1/elicit/{id}/accept|decline|cancel.',
    },
  };
  // The routes' document, plus a path per configured tool (typed body and result) when the daemon has a catalog.
  app.get('/openapi.json', async (c) => {
    const document = app.getOpenAPI31Document(documentConfig) as unknown as {
      paths: Record<string, unknown>;
      components?: { schemas?: Record<string, unknown> };
    } & Record<string, unknown>;
    if (!deps.catalog) return c.json(document);
    const perTool = await toolPaths(deps.catalog);
    document.paths = { ...document.paths, ...perTool.paths };
    document.components = { ...document.components, schemas: { ...document.components?.schemas, ...perTool.schemas } };
    if (perTool.skipped.length) document['x-mcpx-skipped-servers'] = perTool.skipped;
    return c.json(document);
  });

  return app;
}

/** url mode: the domain to show beside the URL, and whether mcpx would open it. */
function urlView(url: string | undefined): { domain?: string; urlOpenable: boolean } {
  const check = checkUrl(url);
  return { ...(check.domain ? { domain: check.domain } : {}), urlOpenable: check.openable };
}
