/**
 * Reads an OpenAPI document (a file or an http(s) URL, JSON or YAML) with limits that keep a hostile one from
 * hanging or filling memory: a size cap, a fetch deadline, and `$ref`s to other files or URLs refused unless the
 * config allows them (then @apidevtools/json-schema-ref-parser bundles them into the document).
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load as loadYaml } from 'js-yaml';
import { McpxError } from '../../errors.js';
import { invalid, mib, readBody } from './bounded-read.js';

export { invalid, readBody } from './bounded-read.js';

/** Larger documents are refused: 500 operations with rich schemas are about 1 MB. */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;

export interface OpenApiDocument {
  doc: Record<string, unknown>;
  /** The document's location as a URL (file: or http(s):), for relative server URLs and refs. */
  location: URL;
}

export interface ReadOptions {
  source: string;
  baseDir: string;
  allowRemoteRefs: boolean;
  adapter: string;
  /** Sent when the document is fetched too (an API that needs a token for its description). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

export async function readOpenApi(options: ReadOptions): Promise<OpenApiDocument> {
  const { source, adapter } = options;
  const isUrl = /^https?:\/\//i.test(source);
  const path = isAbsolute(source) ? source : resolve(options.baseDir, source);
  const location = isUrl ? new URL(source) : pathToFileURL(path);
  const text = isUrl
    ? await fetchBounded(location, adapter, options.fetch ?? fetch, options.headers ?? {})
    : await readBounded(path, adapter);
  let doc: unknown;
  try {
    doc = /^\s*\{/.test(text) ? JSON.parse(text) : loadYaml(text);
  } catch (error) {
    throw invalid(adapter, `${source} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`, error);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw invalid(adapter, `${source} is not an OpenAPI document (not an object)`);
  const record = doc as Record<string, unknown>;
  if (typeof record.swagger === 'string')
    throw invalid(
      adapter,
      `${source} is Swagger ${record.swagger}; mcpx reads OpenAPI 3.x (convert it, e.g. with swagger2openapi)`,
    );
  if (typeof record.openapi !== 'string' || !/^3\./.test(record.openapi)) {
    throw invalid(adapter, `${source} has no "openapi": "3.x" field; is it an OpenAPI 3 document?`);
  }
  if (!record.paths || typeof record.paths !== 'object')
    throw invalid(adapter, `${source} has no "paths": there are no operations to serve`);

  const external = externalRefs(record);
  if (external.length && !options.allowRemoteRefs) {
    const shown = external
      .slice(0, 3)
      .map((r) => JSON.stringify(r))
      .join(', ');
    throw invalid(
      adapter,
      `${source} has $refs to other files or URLs (${shown}${external.length > 3 ? `, and ${external.length - 3} more` : ''}); they are not followed unless the entry sets "allowRemoteRefs": true`,
    );
  }
  if (external.length) return { doc: await bundle(record, location, adapter, options.fetch ?? fetch), location };
  return { doc: record, location };
}

/** Every `$ref` that leaves the document, in document order. Visits each object once, so shared (aliased) nodes cost nothing twice. */
function externalRefs(root: unknown): string[] {
  const found = new Set<string>();
  const seen = new Set<object>();
  const queue: unknown[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    if (!node || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const ref = (node as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) found.add(ref);
    for (const value of Object.values(node)) if (value && typeof value === 'object') queue.push(value);
  }
  return [...found];
}

async function bundle(
  doc: Record<string, unknown>,
  location: URL,
  adapter: string,
  fetchImpl: typeof fetch,
): Promise<Record<string, unknown>> {
  const [{ $RefParser }, { refResolvers }] = await Promise.all([
    import('@apidevtools/json-schema-ref-parser'),
    import('./ref-resolvers.js'),
  ]);
  // Every read goes through mcpx's bounded resolvers (ref-resolvers.ts): no file from a remote document.
  const resolvers = await refResolvers({ adapter, root: location, fetch: fetchImpl });
  try {
    const path = location.protocol === 'file:' ? fileURLToPath(location) : location.href;
    return (await $RefParser.bundle(path, doc, {
      resolve: resolvers.resolve,
      timeoutMs: FETCH_TIMEOUT_MS * 2,
    })) as Record<string, unknown>;
  } catch (error) {
    // A refused ref says which, why and what to do itself.
    const refusal = resolvers.refusal();
    if (refusal) throw refusal;
    throw invalid(adapter, `following the document's external $refs failed: ${(error as Error).message}`, error);
  }
}

async function readBounded(path: string, adapter: string): Promise<string> {
  try {
    const info = await stat(path);
    if (info.size > MAX_DOCUMENT_BYTES)
      throw invalid(
        adapter,
        `${path} is ${mib(info.size)}, larger than the ${mib(MAX_DOCUMENT_BYTES)} an OpenAPI document may be`,
      );
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof McpxError) throw error;
    throw invalid(adapter, `cannot read the OpenAPI document ${path}: ${(error as Error).message}`, error);
  }
}

async function fetchBounded(
  url: URL,
  adapter: string,
  fetchImpl: typeof fetch,
  headers: Record<string, string>,
): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5', ...headers },
    });
  } catch (error) {
    throw invalid(adapter, `cannot fetch the OpenAPI document ${url.href}: ${(error as Error).message}`, error);
  }
  if (!response.ok) throw invalid(adapter, `fetching the OpenAPI document ${url.href} gave HTTP ${response.status}`);
  const body = await readBody(response, MAX_DOCUMENT_BYTES);
  if (body.truncated)
    throw invalid(adapter, `${url.href} is larger than the ${mib(MAX_DOCUMENT_BYTES)} an OpenAPI document may be`);
  return body.text;
}
