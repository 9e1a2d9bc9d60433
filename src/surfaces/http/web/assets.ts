/**
 * The inbox's page, script and style: plain files shipped in the package (src/surfaces/http/web/ui/, copied to
 * dist/ui/ by the build), read once and kept in memory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { McpxError } from '../../../errors.js';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

export const ASSET_NAMES = ['index.html', 'inbox.js', 'form.js', 'history.js', 'api.js', 'inbox.css', 'icon.svg'] as const;
export type AssetName = (typeof ASSET_NAMES)[number];

let dir: string | undefined;
const cache = new Map<string, Buffer>();

function uiDir(): string {
  // From source the files sit beside this module; from the bundle (dist/*.js) in dist/ui/.
  dir ??= fileURLToPath(new URL('./ui/', import.meta.url));
  if (!existsSync(dir)) throw new McpxError('DAEMON_UNAVAILABLE', `The web inbox files are missing from ${dir}; reinstall mcpx.`);
  return dir;
}

export function readAsset(name: string): { body: Buffer; type: string } | undefined {
  if (!(ASSET_NAMES as readonly string[]).includes(name)) return undefined;
  let body = cache.get(name);
  if (!body) {
    body = readFileSync(`${uiDir()}${name}`);
    cache.set(name, body);
  }
  return { body, type: TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream' };
}
