/**
 * QuickJS instances, one per run: the WebAssembly module is compiled once per process, and each run gets a
 * fresh instance on its own capped `WebAssembly.Memory` (QuickJS's own memory limit is not a total cap in
 * quickjs-emscripten 0.32; a capped Memory is). A small pool of pre-instantiated instances hides the ~10 ms
 * instantiation and setup (runtime, context, globals) from the run that needs one.
 */
import { readFile } from 'node:fs/promises';
import type { CustomizeVariantOptions, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { prepareSandbox, type PreparedSandbox } from './prepared.js';

const PAGE_BYTES = 65_536;
/** The emscripten glue refuses a Memory smaller than its initial 16 MiB (LinkError). */
export const MIN_MEMORY_BYTES = 256 * PAGE_BYTES;

type WasmMemory = Exclude<NonNullable<CustomizeVariantOptions['wasmMemory']>, () => unknown>;
// The project's lib has no DOM, so the WebAssembly globals are typed here (the types themselves come with Node's).
interface WasmGlobals {
  compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmGlobals }).WebAssembly;

let compiled: Promise<WebAssembly.Module> | undefined;
// Loaded on first use, so importing mcpx costs nothing until a script runs.
let quickjs:
  Promise<[typeof import('quickjs-emscripten-core'), typeof import('@jitl/quickjs-wasmfile-release-sync').default]> | undefined;

async function instantiate(maximumPages: number): Promise<QuickJSWASMModule> {
  quickjs ??= Promise.all([
    import('quickjs-emscripten-core'),
    import('@jitl/quickjs-wasmfile-release-sync').then((m) => m.default),
  ]);
  const [{ newQuickJSWASMModuleFromVariant, newVariant }, variant] = await quickjs;
  const wasmMemory = new wasm.Memory({ initial: 256, maximum: maximumPages });
  if (compiled) return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: await compiled, wasmMemory }));
  // The first instance loads the .wasm the variant's own way, which tells where the file is (no import.meta,
  // so CJS builds work too); every later instance reuses the module compiled once from that file.
  let located: string | undefined;
  const first = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmMemory, locateFile: (name, prefix) => (located = `${prefix}${name}`) }),
  );
  if (located && !compiled) compiled = readFile(located).then((bytes) => wasm.compile(bytes));
  return first;
}

async function prepare(maximumPages: number): Promise<PreparedSandbox> {
  return prepareSandbox(await instantiate(maximumPages));
}

const pools = new Map<number, PreparedSandbox[]>();
const refilling = new Set<number>();
let poolSize = 2;

function pagesFor(memoryBytes: number): number {
  return Math.max(256, Math.ceil(memoryBytes / PAGE_BYTES));
}

function refill(pages: number): void {
  if (poolSize === 0 || refilling.has(pages)) return;
  refilling.add(pages);
  const pool = pools.get(pages) ?? [];
  pools.set(pages, pool);
  const next = async (): Promise<void> => {
    while (pool.length < poolSize) pool.push(await prepare(pages));
  };
  next()
    .catch(() => undefined) // a failed refill only costs the next run its instantiation
    .finally(() => refilling.delete(pages));
}

/**
 * A sandbox on a fresh QuickJS instance whose heap can never grow past `memoryBytes` (rounded up to 64 KiB pages),
 * with its globals installed. Each is used by one run only.
 */
export async function acquireSandbox(memoryBytes: number): Promise<PreparedSandbox> {
  const pages = pagesFor(memoryBytes);
  const ready = pools.get(pages)?.pop();
  refill(pages);
  return ready ?? prepare(pages);
}

/**
 * Prepares `count` sandboxes for runs with this memory limit (the pool keeps that many ready).
 * Resolves when they are ready; `count: 0` turns pooling off and drops what is pooled.
 */
export async function warmSandboxes(options: { memoryBytes?: number; count?: number } = {}): Promise<void> {
  const pages = pagesFor(options.memoryBytes ?? 64 * 1024 * 1024);
  poolSize = options.count ?? poolSize;
  if (poolSize === 0) {
    pools.clear();
    return;
  }
  const pool = pools.get(pages) ?? [];
  pools.set(pages, pool);
  while (pool.length < poolSize) pool.push(await prepare(pages));
}
