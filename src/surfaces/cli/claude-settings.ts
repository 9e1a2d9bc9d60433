/**
 * mcpx's entry in Claude Code's settings (`hooks.Elicitation`): added or removed without touching any other hook or
 * setting. mcpx's entry is the one whose command runs `hook claude-code`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { McpxError } from '../../errors.js';

type Json = Record<string, unknown>;
interface HookCommand {
  type: 'command';
  command: string;
  timeout: number;
}

const OURS = /(^|\s|\/)(mcpx|cli\.js)['"]?\s+hook\s+claude-code(\s|$)/;

/** The settings file: the user's (`~/.claude/settings.json`) or the project's (`.claude/settings.json`). */
export function settingsPath(scope: 'user' | 'project', cwd: string, env: Record<string, string | undefined>): string {
  return scope === 'project' ? join(cwd, '.claude', 'settings.json') : join(env.HOME || homedir(), '.claude', 'settings.json');
}

const isOurs = (hook: unknown): boolean =>
  typeof hook === 'object' &&
  hook !== null &&
  typeof (hook as Json).command === 'string' &&
  OURS.test((hook as Json).command as string);

/** The settings without mcpx's Elicitation entry; a group, list or `hooks` it leaves empty goes too. */
export function withoutMcpxHook(settings: Json): Json {
  const hooks = settings.hooks as Json | undefined;
  if (!hooks || !Array.isArray(hooks.Elicitation)) return settings;
  const groups = (hooks.Elicitation as unknown[]).flatMap((group) => {
    if (typeof group !== 'object' || group === null || !Array.isArray((group as Json).hooks)) return [group];
    const kept = ((group as Json).hooks as unknown[]).filter((hook) => !isOurs(hook));
    if (kept.length === ((group as Json).hooks as unknown[]).length) return [group];
    return kept.length ? [{ ...(group as Json), hooks: kept }] : [];
  });
  const { Elicitation: _old, ...otherEvents } = hooks;
  const nextHooks = groups.length ? { ...hooks, Elicitation: groups } : otherEvents;
  const { hooks: _hooks, ...rest } = settings;
  return Object.keys(nextHooks).length ? { ...settings, hooks: nextHooks } : rest;
}

/** The settings with mcpx's entry (for every server: an empty matcher), replacing an older one of mcpx's. */
export function withMcpxHook(settings: Json, hook: HookCommand): Json {
  const without = withoutMcpxHook(settings);
  const hooks = (without.hooks as Json | undefined) ?? {};
  const groups = Array.isArray(hooks.Elicitation) ? (hooks.Elicitation as unknown[]) : [];
  return { ...without, hooks: { ...hooks, Elicitation: [...groups, { matcher: '', hooks: [hook] }] } };
}

/** Reads the settings file ({} when there is none); a file that is not a JSON object is refused, and left as it is. */
export function readSettings(path: string): Json {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new McpxError(
      'CONFIG_INVALID',
      `${path} is not valid JSON (${(error as Error).message}); fix it by hand, mcpx left it as it is`,
      {
        data: { file: path },
      },
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new McpxError('CONFIG_INVALID', `${path} is not a JSON object; fix it by hand, mcpx left it as it is`, {
      data: { file: path },
    });
  if (
    parsed &&
    (parsed as Json).hooks !== undefined &&
    (typeof (parsed as Json).hooks !== 'object' || Array.isArray((parsed as Json).hooks))
  )
    throw new McpxError('CONFIG_INVALID', `${path}: "hooks" is not an object; fix it by hand, mcpx left it as it is`, {
      data: { file: path },
    });
  return parsed as Json;
}

/** Writes the settings whole (a temporary file renamed over it), keeping the file's mode; false when nothing changed. */
export function writeSettings(path: string, before: Json, after: Json): boolean {
  if (isDeepStrictEqual(before, after)) return false;
  mkdirSync(dirname(path), { recursive: true });
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  const temporary = `${path}.mcpx-${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(after, null, 2)}\n`, { mode });
  renameSync(temporary, path);
  return true;
}
