/**
 * The era verdict per server, so a later connect skips the `server/discover` probe (and a stdio server is spawned
 * once). A modern verdict keeps the discover result the SDK adopts with zero round trips; a legacy verdict is
 * re-probed after `legacyMaxAgeMs`, because an upgraded server still answers `initialize` and would stay legacy.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { makePrivateDir, writePrivateFile } from '../private-files.js';
import type { Era } from '../types.js';

export interface EraVerdict {
  era: Era;
  /** Modern: the server's DiscoverResult, JSON as received. */
  discover?: Record<string, unknown>;
  /** When the verdict was reached (ms since epoch). */
  at: number;
}

/** Where verdicts live. Keys are server fingerprints (see `serverFingerprint`). */
export interface EraCache {
  get(key: string): Promise<EraVerdict | undefined>;
  set(key: string, verdict: EraVerdict): Promise<void>;
  delete(key: string): Promise<void>;
}

export function createMemoryEraCache(): EraCache {
  const map = new Map<string, EraVerdict>();
  return {
    get: async (key) => map.get(key),
    set: async (key, verdict) => void map.set(key, verdict),
    delete: async (key) => void map.delete(key),
  };
}

/** A JSON file (`<stateDir>/era-cache.json`), re-read on every get so several processes share it. */
export function createFileEraCache(path: string): EraCache {
  const read = (): Record<string, EraVerdict> => {
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, EraVerdict>) : {};
    } catch {
      // Missing or corrupt: a cache miss only costs a probe.
      return {};
    }
  };
  const write = (all: Record<string, EraVerdict>): void => {
    makePrivateDir(dirname(path));
    writePrivateFile(path, JSON.stringify(all, null, 2) + '\n');
  };
  return {
    get: async (key) => read()[key],
    set: async (key, verdict) => write({ ...read(), [key]: verdict }),
    delete: async (key) => {
      const all = read();
      if (key in all) {
        delete all[key];
        write(all);
      }
    },
  };
}

/** Identifies a server by what reaches it (command line and env, or URL), not by its name in one config. */
export function serverFingerprint(server: {
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, unknown> | undefined;
  cwd?: string | undefined;
  url?: string | undefined;
}): string {
  const identity =
    server.url !== undefined
      ? { url: server.url }
      : { command: server.command, args: server.args ?? [], env: server.env ?? {}, cwd: server.cwd ?? '' };
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 32);
}
