/** Reads with a cap, and the adapter's error: shared by the document, its `$ref`s and the operations' responses. */
import { McpxError } from '../../errors.js';

/** Reads a response body up to `limit` bytes; past it the stream is cancelled and `truncated` is set. */
export async function readBody(response: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  const { bytes, truncated } = await readBytes(response, limit);
  return { text: bytes.toString('utf8'), truncated };
}

/** The bytes of a body up to `limit`; `take` sees each chunk's size first and may throw to stop the read. */
export async function readBytes(
  response: Response,
  limit: number,
  take?: (bytes: number) => void,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  if (!response.body) return { bytes: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      take?.(value.byteLength);
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks), truncated: true };
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function invalid(adapter: string, message: string, cause?: unknown): McpxError {
  return new McpxError('ADAPTER_INVALID', `adapter "${adapter}": ${message}`, {
    ...(cause !== undefined ? { cause } : {}),
    data: { server: adapter },
  });
}
