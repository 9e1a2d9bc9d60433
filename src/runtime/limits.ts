/** The limits a script runs under, their defaults, and how flags like `64m` or `30s` read. */
import { McpxError } from '../errors.js';
import { MIN_MEMORY_BYTES } from './engine.js';
import { cpuUsage } from 'node:process';

export interface ScriptLimits {
  /** Hard cap on the sandbox's whole heap (default 64 MiB, at least 16 MiB). */
  memoryBytes?: number;
  /** QuickJS stack (default 256 KiB, at most 384 KiB: more can overflow the host's own stack). */
  stackBytes?: number;
  /** CPU time the script may spend running (default 30 s). Time spent awaiting a tool call, a timer or a person does not count. */
  cpuMs?: number;
  /** Optional wall-clock deadline for the whole run, waits included. */
  wallMs?: number | undefined;
  /** How many timers may be pending at once (default 10 000). */
  maxTimers?: number;
}

export type ResolvedLimits = Required<Omit<ScriptLimits, 'wallMs'>> & { wallMs: number | undefined };

export const DEFAULT_LIMITS = {
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  cpuMs: 30_000,
  maxTimers: 10_000,
} as const;

const MAX_STACK_BYTES = 384 * 1024;
const MIN_STACK_BYTES = 32 * 1024;

export function resolveLimits(limits: ScriptLimits = {}): ResolvedLimits {
  const memoryBytes = limits.memoryBytes ?? DEFAULT_LIMITS.memoryBytes;
  if (!(memoryBytes >= MIN_MEMORY_BYTES) || !Number.isFinite(memoryBytes)) {
    throw new McpxError(
      'SCRIPT_ERROR',
      `memory limit ${memoryBytes} bytes is too small: a sandbox needs at least 16 MiB (e.g. --memory-limit 64m)`,
      { data: { memoryBytes } },
    );
  }
  const stackBytes = limits.stackBytes ?? DEFAULT_LIMITS.stackBytes;
  if (!(stackBytes >= MIN_STACK_BYTES && stackBytes <= MAX_STACK_BYTES)) {
    throw new McpxError('SCRIPT_ERROR', `stack limit ${stackBytes} bytes is out of range: use 32 KiB to 384 KiB`, {
      data: { stackBytes },
    });
  }
  const cpuMs = limits.cpuMs ?? DEFAULT_LIMITS.cpuMs;
  if (!(cpuMs > 0))
    throw new McpxError('SCRIPT_ERROR', `CPU limit must be a positive duration, got ${cpuMs} ms`, { data: { cpuMs } });
  const wallMs = limits.wallMs;
  if (wallMs !== undefined && !(wallMs > 0))
    throw new McpxError('SCRIPT_ERROR', `timeout must be a positive duration, got ${wallMs} ms`, { data: { wallMs } });
  const maxTimers = limits.maxTimers ?? DEFAULT_LIMITS.maxTimers;
  return { memoryBytes, stackBytes, cpuMs, wallMs, maxTimers };
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?$/i;
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?$/i;

/** `64m`, `512MiB`, `1g`, `67108864` → bytes. */
export function parseSize(text: string, flag: string): number {
  const match = SIZE.exec(text.trim());
  if (!match) throw new McpxError('SCRIPT_ERROR', `${flag} ${JSON.stringify(text)} is not a size: use e.g. 64m, 512mib or 1g`);
  const unit = (match[2] ?? 'b').toLowerCase()[0];
  const scale = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Math.round(Number(match[1]) * scale);
}

/** `30s`, `500ms`, `2m`, `1500` (ms) → milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new McpxError('SCRIPT_ERROR', `${flag} ${JSON.stringify(text)} is not a duration: use e.g. 500ms, 30s or 2m`);
  const unit = (match[2] ?? 'ms').toLowerCase();
  const scale = unit === 's' ? 1000 : unit === 'm' || unit === 'min' ? 60_000 : unit === 'h' ? 3_600_000 : 1;
  return Math.round(Number(match[1]) * scale);
}

/** Slices shorter than this are charged their wall time (see SliceClock). */
const SHORT_SLICE_MS = 1;

/**
 * The CPU time a run's slices used: the VM runs only in slices, and only they are charged. Reading the CPU clock
 * costs 1-4 µs, as much as a tool call's own marshalling, so it is read once per slice, at its start. A short
 * slice is charged its wall time, which bounds its CPU time from above. A longer one may have been held off the CPU
 * (a loaded machine), and is charged the CPU the process used since its start (reading from an earlier slice charged
 * the host's work between slices to the script: 107 ms for a script that used a few).
 */
export class SliceClock {
  usedMs = 0;
  sliceStart = 0;
  private readCpuMs = 0;

  begin(): void {
    this.sliceStart = performance.now();
    this.read();
  }

  end(): void {
    const now = performance.now();
    const wallMs = now - this.sliceStart;
    if (wallMs < SHORT_SLICE_MS) {
      this.usedMs += wallMs;
      return;
    }
    const before = this.readCpuMs;
    this.read();
    this.usedMs += Math.min(wallMs, this.readCpuMs - before);
  }

  /** Whether the slice in progress has taken the run past `limitMs` of CPU. */
  over(limitMs: number, now: number): boolean {
    // The CPU clock is read only once wall time says the limit may be near.
    return this.usedMs + (now - this.sliceStart) > limitMs && this.usedMs + this.cpuSinceRead() > limitMs;
  }

  private cpuSinceRead(): number {
    const { user, system } = cpuUsage();
    return (user + system) / 1000 - this.readCpuMs;
  }

  private read(): void {
    const { user, system } = cpuUsage();
    this.readCpuMs = (user + system) / 1000;
  }
}
