/**
 * The config's `web` block: where the daemon listens for paired devices (phones) each time it starts, as
 * `mcpx elicit web --pair --listen` would. cert and key are paths the daemon reads at start (relative to the
 * config file), never copied anywhere; the address rules (no plain HTTP off loopback) are checked when it opens.
 */
import * as z from 'zod';
import type { Issue } from '../errors.js';

const webSchema = z.strictObject({
  listen: z.string().regex(/^(?:(?:\[[^\]]+\]|[^:\s]+):)?\d{1,5}$/),
  cert: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
  behindProxy: z.boolean().optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
});
export type WebListenConfig = z.infer<typeof webSchema>;

const EXPECTED: Record<string, string> = {
  listen: 'host:port, e.g. "0.0.0.0:8443" or "127.0.0.1:8080": where the daemon listens for paired devices',
  cert: 'the path of a PEM certificate file (with "key")',
  key: 'the path of a PEM private key file (with "cert")',
  behindProxy: 'true: a reverse proxy in front serves HTTPS (with "url")',
  url: 'the https:// address devices open, e.g. "https://inbox.example.com"',
};

/** The `web` block, validated; problems are pushed to `issues` with fields under `web`. */
export function parseWebBlock(block: unknown, issues: Issue[]): WebListenConfig | undefined {
  if (block === undefined) return undefined;
  const result = webSchema.safeParse(block);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = issue.path.map(String).join('.');
      const unknown = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const expected = unknown.length
        ? `only ${Object.keys(EXPECTED).join(', ')}`
        : (EXPECTED[field] ?? 'an object like {"listen": "0.0.0.0:8443", "cert": "cert.pem", "key": "key.pem"}');
      issues.push({
        field: field ? `web.${field}` : 'web',
        expected,
        message: unknown.length
          ? `web: unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`
          : `field "web${field ? `.${field}` : ''}": expected ${expected}`,
      });
    }
    return undefined;
  }
  const web = result.data;
  const missing = web.cert === undefined ? 'cert' : 'key';
  const problem =
    (web.cert === undefined) !== (web.key === undefined)
      ? { field: `web.${missing}`, message: `field "web.${missing}" is missing: TLS needs both "cert" and "key"` }
      : web.cert !== undefined && web.behindProxy
        ? {
            field: 'web.behindProxy',
            message: 'field "web.behindProxy": choose one: "cert"/"key" (mcpx serves TLS) or "behindProxy" (a proxy does)',
          }
        : web.behindProxy && web.url === undefined
          ? {
              field: 'web.url',
              message: 'field "web.url" is missing: "behindProxy" needs the https:// address the proxy serves the inbox at',
            }
          : undefined;
  if (problem) {
    issues.push({ ...problem, expected: EXPECTED[problem.field.slice('web.'.length)]! });
    return undefined;
  }
  return web;
}
