/**
 * How an OpenAPI document's `$ref`s to other files and URLs are read (`allowRemoteRefs`), through
 * json-schema-ref-parser's public resolver options: a fetched document never reads a local file (nor a local one the
 * network); only regular files are read; each read has REF_TIMEOUT_MS and all together MAX_REF_BYTES; and a public
 * document cannot make mcpx fetch a loopback or private address (checked on each redirect).
 */
import { lookup } from 'node:dns/promises';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isUnsafeUrl, ResolverError, type FileInfo, type ParserOptions } from '@apidevtools/json-schema-ref-parser';
import type { McpxError } from '../../errors.js';
import { invalid, mib, readBytes } from './bounded-read.js';

/** All the files and URLs a document's `$ref`s read, together. */
export const MAX_REF_BYTES = 20 * 1024 * 1024;
/** Each `$ref` read (a file, or a URL with its redirects and body). */
export const REF_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;

type Resolve = NonNullable<ParserOptions['resolve']>;

export interface RefReadContext {
  adapter: string;
  /** Where the document itself came from. */
  root: URL;
  fetch: typeof fetch;
}

export interface RefResolvers {
  /** The `resolve` options for `$RefParser.bundle`. */
  resolve: Resolve;
  /** The first ref refused, with its reason: the ref-parser reports it only as text. */
  refusal(): McpxError | undefined;
}

export async function refResolvers(context: RefReadContext): Promise<RefResolvers> {
  const rootIsRemote = context.root.protocol !== 'file:';
  let first: McpxError | undefined;
  const refused = (file: FileInfo, why: string, cause?: unknown): Error => {
    const error = invalid(context.adapter, `$ref ${JSON.stringify(file.reference ?? file.url)} was not followed: ${why}`, cause);
    first ??= error;
    // The parser's own error type, so it stops and keeps the message.
    return new ResolverError(error, file.url);
  };
  // A document that is itself on this machine or a private network may refer to its neighbours there.
  const mayReachPrivate = !rootIsRemote || (await isPrivate(context.root));
  let used = 0;
  const take = (file: FileInfo, bytes: number): void => {
    used += bytes;
    if (used > MAX_REF_BYTES)
      throw refused(
        file,
        `the document's $refs read more than ${mib(MAX_REF_BYTES)} in all (the limit for every referenced file and URL together); bundle the schemas into a smaller document`,
      );
  };
  const resolve = {
    external: true,
    file: {
      order: 100,
      canRead: (file: FileInfo) => !/^https?:/i.test(file.url),
      read: async (file: FileInfo) => {
        const from = file.baseUrl ?? context.root.href;
        if (rootIsRemote || /^https?:/i.test(from))
          throw refused(
            file,
            `a document fetched from a URL may not read local files; publish the referenced file beside the document (an http(s) URL) or use a local copy of the document`,
          );
        return readLocal(file, refused, (bytes) => take(file, bytes));
      },
    },
    http: {
      order: 200,
      canRead: (file: FileInfo) => /^https?:/i.test(file.url),
      read: (file: FileInfo) => fetchRef(context.fetch, file, mayReachPrivate, refused, (bytes) => take(file, bytes)),
    },
  } as Resolve;
  return { resolve, refusal: () => first };
}

type Refuse = (file: FileInfo, why: string, cause?: unknown) => Error;

async function readLocal(file: FileInfo, refused: Refuse, take: (bytes: number) => void): Promise<Buffer> {
  const path = file.url.startsWith('file:') ? fileURLToPath(file.url) : decodeURIComponent(file.url);
  // Non-blocking, so a FIFO cannot hang the open; then anything but a regular file is refused.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: Error) => {
    throw refused(file, `cannot read ${path}: ${error.message}`, error);
  });
  try {
    if (!(await handle.stat()).isFile()) throw refused(file, `${path} is not a regular file; only files are read`);
    const chunks: Buffer[] = [];
    const deadline = Date.now() + REF_TIMEOUT_MS;
    for (;;) {
      const { bytesRead, buffer } = await handle.read({ buffer: Buffer.alloc(64 * 1024) });
      if (bytesRead === 0) break;
      take(bytesRead);
      chunks.push(buffer.subarray(0, bytesRead));
      if (Date.now() > deadline) throw refused(file, `reading ${path} took more than ${REF_TIMEOUT_MS} ms`);
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

async function fetchRef(
  fetchImpl: typeof fetch,
  file: FileInfo,
  mayReachPrivate: boolean,
  refused: Refuse,
  take: (bytes: number) => void,
): Promise<Buffer> {
  // One deadline for the redirects and the body: a server that trickles bytes is cut off too.
  const signal = AbortSignal.timeout(REF_TIMEOUT_MS);
  let url = new URL(file.url);
  for (let hop = 0; ; hop++) {
    if (!mayReachPrivate && (await isPrivate(url)))
      throw refused(
        file,
        `${url.href} is a loopback or private address, which a document on a public address may not make mcpx fetch`,
      );
    let response: Response;
    try {
      response = await fetchImpl(url, {
        redirect: 'manual',
        signal,
        headers: { accept: 'application/json, application/yaml;q=0.9' },
      });
    } catch (error) {
      const reason = signal.aborted ? `no answer within ${REF_TIMEOUT_MS} ms` : (error as Error).message;
      throw refused(file, `cannot fetch ${url.href}: ${reason}`, error);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS) throw refused(file, `${file.url} redirected more than ${MAX_REDIRECTS} times`);
      url = new URL(location, url);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw refused(file, `fetching ${url.href} gave HTTP ${response.status}`);
    }
    try {
      const body = await readBytes(response, MAX_REF_BYTES + 1, take);
      return body.bytes;
    } catch (error) {
      if (signal.aborted) throw refused(file, `${url.href} did not finish within ${REF_TIMEOUT_MS} ms`, error);
      throw error;
    }
  }
}

/** Whether a URL's host is loopback, private or link-local, by name or by any address it resolves to. */
async function isPrivate(url: URL): Promise<boolean> {
  if (isUnsafeUrl(url.href)) return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return false;
  const addresses = await lookup(host, { all: true }).catch(() => []);
  return addresses.some(({ address }) => isUnsafeUrl(`http://${isIP(address) === 6 ? `[${address}]` : address}/`));
}
