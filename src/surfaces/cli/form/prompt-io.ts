/**
 * Where a form's prompts read and draw, and the signal that stops them. Each prompt gets its own child of that
 * signal, dropped when the prompt ends: clack adds an abort listener per prompt and never removes it, so a long
 * form on one signal passed Node's limit of ten (MaxListenersExceededWarning).
 */
import type { Readable, Writable } from 'node:stream';

export type ClackIO = { input: Readable; output: Writable; signal?: AbortSignal };

/** Runs one prompt on a child signal of `io.signal` that lives only as long as the prompt. */
export async function onePrompt<T>(io: ClackIO, prompt: (io: ClackIO) => Promise<T>): Promise<T> {
  const outer = io.signal;
  if (!outer) return prompt(io);
  const inner = new AbortController();
  const abort = (): void => inner.abort();
  if (outer.aborted) inner.abort();
  else outer.addEventListener('abort', abort, { once: true });
  try {
    return await prompt({ ...io, signal: inner.signal });
  } finally {
    outer.removeEventListener('abort', abort);
  }
}
