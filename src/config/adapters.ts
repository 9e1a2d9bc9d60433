/**
 * Adapter entries in `mcpServers`: a service with no MCP server, made tools by mcpx. `{"openapi": ...}` turns an
 * OpenAPI document's operations into tools; `{"cli": ...}` exposes chosen commands of a program. Both are
 * read-only unless the entry says otherwise, and writes are confirmed by a question before they are sent.
 */
import * as z from 'zod';
import type { Issue } from '../errors.js';
import { expandDeep } from './expand.js';

const HTTP_METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/** Methods that change nothing: allowed by default, never confirmed by default. */
export const READ_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'OPTIONS'];

const method = z
  .string()
  .transform((m) => m.toUpperCase())
  .pipe(z.enum([...HTTP_METHODS, 'ALL']));
const stringMap = z.record(z.string(), z.string());

export const openApiAdapterSchema = z.strictObject({
  /** A file (relative to the config file) or an http(s) URL, JSON or YAML. */
  openapi: z.string().min(1),
  /** Where requests go; default: the document's first `servers` URL (resolved against the document's URL). */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  headers: stringMap.optional(),
  /** Which operations become tools: `["GET"]` (the default) or `["all"]`, or a list of methods. */
  methods: z.array(method).min(1).optional(),
  /** Which methods ask before they are sent; default every method that is not GET, HEAD or OPTIONS. */
  confirm: z.array(method).optional(),
  /** Follow `$ref`s to other files and URLs (default false: only refs inside the document). */
  allowRemoteRefs: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxResponseBytes: z.number().int().positive().optional(),
});

/** One word of a command line: literal text with `{name}` placeholders, or words used only when a field is true/set. */
const argWord = z.union([z.string(), z.strictObject({ when: z.string().min(1), args: z.array(z.string()) })]);

export const cliCommandSchema = z.strictObject({
  description: z.string().optional(),
  args: z.array(argWord),
  /** JSON Schema (an object schema) of the tool's arguments; `{name}` placeholders name its properties. */
  input: z.record(z.string(), z.unknown()).optional(),
  /** Whether the command changes something: then each call is confirmed by a question first. */
  writes: z.boolean().optional(),
});

export const cliAdapterSchema = z.strictObject({
  /** The program, run with execFile (never a shell). */
  cli: z.string().min(1),
  /** Words put before every command's own. */
  args: z.array(z.string()).optional(),
  cwd: z.string().min(1).optional(),
  env: stringMap.optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().positive().optional(),
  commands: z.record(z.string(), cliCommandSchema),
});

export type OpenApiAdapterConfig = Omit<z.infer<typeof openApiAdapterSchema>, 'methods' | 'confirm'> & {
  methods?: Array<HttpMethod | 'ALL'>;
  confirm?: Array<HttpMethod | 'ALL'>;
};
export type CliCommandConfig = z.infer<typeof cliCommandSchema>;
export type CliAdapterConfig = z.infer<typeof cliAdapterSchema>;
export type AdapterConfig = OpenApiAdapterConfig | CliAdapterConfig;

export function isOpenApiAdapter(adapter: AdapterConfig): adapter is OpenApiAdapterConfig {
  return typeof (adapter as OpenApiAdapterConfig).openapi === 'string';
}

/** Whether a `mcpServers` entry is an adapter rather than a server. */
export function isAdapterEntry(entry: unknown): entry is Record<string, unknown> {
  return typeof entry === 'object' && entry !== null && !Array.isArray(entry) && ('openapi' in entry || 'cli' in entry);
}

/** Validates an adapter entry and expands `${VAR}` in it; problems go to `issues`, naming the server and field. */
export function parseAdapter(
  name: string,
  entry: Record<string, unknown>,
  env: Record<string, string | undefined>,
  issues: Issue[],
  forms?: Map<string, string>,
): AdapterConfig | undefined {
  const base = `mcpServers.${name}`;
  if ('openapi' in entry && 'cli' in entry) {
    issues.push({
      field: base,
      expected: 'one of "openapi" or "cli"',
      message: `server "${name}": has both "openapi" and "cli"; an adapter is one or the other`,
    });
    return undefined;
  }
  const schema: z.ZodType = 'openapi' in entry ? openApiAdapterSchema : cliAdapterSchema;
  const result = schema.safeParse(entry);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const path = issue.path.map(String).join('.');
      issues.push({
        field: path ? `${base}.${path}` : base,
        expected: issue.message,
        message: `server "${name}": ${path ? `field "${path}": ` : ''}${issue.message}`,
      });
    }
    return undefined;
  }
  const before = issues.length;
  // Command-line words and input schemas are kept as written: `${...}` there is the program's, not ours.
  const data = result.data as AdapterConfig;
  const expanded = isOpenApiAdapter(data)
    ? expandDeep(data, env, base, issues, forms)
    : {
        ...data,
        ...expandDeep(
          {
            cli: data.cli,
            ...(data.cwd ? { cwd: data.cwd } : {}),
            ...(data.env ? { env: data.env } : {}),
            ...(data.args ? { args: data.args } : {}),
          },
          env,
          base,
          issues,
          forms,
        ),
      };
  return issues.length === before ? (expanded as AdapterConfig) : undefined;
}
