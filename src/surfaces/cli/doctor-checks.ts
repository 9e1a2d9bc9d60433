/**
 * What `mcpx doctor` finds about one configured server, before anything is asked: its program on PATH (stdio),
 * whether it connects and in which era, what it offers. A missing credential or sign-in is found here and asked
 * by the command; everything else is reported.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { ServerStatus } from '../../client/index.js';
import { isHttpServer, type ServerConfig } from '../../config/index.js';
import type { AdapterConfig } from '../../config/index.js';
import { eraVersion } from '../../types.js';
import type { Discovery } from './discovery.js';

export interface ServerCheck {
  server: string;
  /** `stdio: npx -y …`, `http: https://…`, `openapi adapter`. */
  transport: string;
  /** `ok`: it answers; `asks`: a person's answer fixes it (a credential, a sign-in); `problem`: no answer can. */
  verdict: 'ok' | 'asks' | 'problem';
  /** One line each: what was checked and what was found. */
  findings: Finding[];
  era?: string;
  offers?: { tools: number; prompts: number; resources: number };
}

export interface Finding {
  ok: boolean;
  check: 'command' | 'connect' | 'credentials' | 'sign-in' | 'offers';
  text: string;
}

type Env = Record<string, string | undefined>;

/** Checks one server through the discovery (the daemon's connections, or this process's own). */
export async function checkServer(
  name: string,
  entry: { server?: ServerConfig; adapter?: AdapterConfig },
  discovery: Discovery,
  io: { env: Env; cwd: string },
): Promise<ServerCheck> {
  const findings: Finding[] = [];
  const check: ServerCheck = { server: name, transport: transportOf(entry), verdict: 'ok', findings };
  const server = entry.server;
  if (server && !isHttpServer(server)) {
    const found = findProgram(server.command, programPath(server.env, io.env), server.cwd ?? io.cwd);
    if (!found) {
      findings.push({
        ok: false,
        check: 'command',
        text: `"${server.command}" is not found on PATH (install it, or give its full path in "command")`,
      });
      return { ...check, verdict: 'problem' };
    }
    findings.push({ ok: true, check: 'command', text: found });
  }
  const status = await discovery.status(name);
  return withStatus(check, status, name, discovery);
}

async function withStatus(check: ServerCheck, status: ServerStatus, name: string, discovery: Discovery): Promise<ServerCheck> {
  const { findings } = check;
  const reason = status.reason?.split('\n')[0] ?? '';
  if (status.status === 'needs-credentials') {
    findings.push({ ok: false, check: 'credentials', text: reason });
    return { ...check, verdict: 'asks' };
  }
  if (status.status === 'needs-auth') {
    findings.push({ ok: false, check: 'sign-in', text: `needs a sign-in: ${reason}` });
    return { ...check, verdict: 'asks' };
  }
  if (status.status === 'failed') {
    findings.push({ ok: false, check: 'connect', text: reason });
    return { ...check, verdict: 'problem' };
  }
  const era = status.era ? `${eraVersion(status.era)} (${status.era})` : 'connected';
  findings.push({ ok: true, check: 'connect', text: era });
  const [tools, prompts, resources] = await Promise.all([
    discovery.tools(name).then((t) => t.length),
    discovery.prompts(name).then(
      (p) => p.length,
      () => 0,
    ),
    discovery.resources(name).then(
      (r) => r.resources.length + r.resourceTemplates.length,
      () => 0,
    ),
  ]);
  const offers = { tools, prompts, resources };
  findings.push({
    ok: true,
    check: 'offers',
    text: `${count(tools, 'tool')}, ${count(prompts, 'prompt')}, ${count(resources, 'resource')}`,
  });
  return { ...check, ...(status.era ? { era: eraVersion(status.era) } : {}), offers };
}

const count = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function transportOf(entry: { server?: ServerConfig; adapter?: AdapterConfig }): string {
  const { server, adapter } = entry;
  if (adapter) return 'openapi' in adapter ? 'OpenAPI adapter' : 'CLI adapter';
  if (!server) return 'unknown';
  if (isHttpServer(server)) return `http: ${server.url}`;
  return `stdio: ${[server.command, ...(server.args ?? [])].join(' ')}`;
}

/** The PATH the server is started with: its own env's, when the config sets one as text, else this process's. */
function programPath(serverEnv: Record<string, unknown> | undefined, env: Env): string {
  const own = serverEnv?.PATH;
  return typeof own === 'string' ? own : (env.PATH ?? '');
}

/** Where `command` runs from: a path (relative to `cwd`) that exists, or the first PATH entry holding it. */
export function findProgram(command: string, path: string, cwd: string): string | undefined {
  if (command.includes('/')) {
    const full = isAbsolute(command) ? command : resolve(cwd, command);
    return runnable(full) ? full : undefined;
  }
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, command);
    if (runnable(full)) return full;
  }
  return undefined;
}

function runnable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
