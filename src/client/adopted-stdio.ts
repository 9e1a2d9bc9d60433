/**
 * A stdio server's process started early (prespawn.ts) as an MCP transport: newline-delimited JSON-RPC over its
 * stdin and stdout with the SDK's public `ReadBuffer` and `serializeMessage`, its stderr piped to `stderr`, and
 * closed as the SDK's `StdioClientTransport` closes its own (stdin ended, then SIGTERM, then SIGKILL).
 */
import {
  ReadBuffer,
  SdkError,
  SdkErrorCode,
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';

/** How long each step of a close waits for the process to go before the next, harder one. */
const CLOSE_STEP_MS = 2_000;

export class AdoptedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, readable from construction on, as the SDK's transport gives it with `stderr: 'pipe'`. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly adopted: ChildProcess) {}

  async start(): Promise<void> {
    if (this.child) throw new Error('AdoptedStdioTransport already started');
    const child = (this.child = this.adopted);
    child.on('error', (error) => this.onerror?.(error));
    child.on('close', () => {
      this.child = undefined;
      this.onclose?.();
    });
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        this.buffer.append(chunk);
        this.deliver();
      } catch (error) {
        this.onerror?.(error as Error);
        this.close().catch(() => undefined);
      }
    });
    child.stdout?.on('error', (error) => this.onerror?.(error));
    child.stderr?.pipe(this.stderr);
  }

  /** Every whole message read so far; a line that is not a message is reported and skipped. */
  private deliver(): void {
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const within = (): Promise<void> =>
        Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_STEP_MS).unref())]);
      try {
        child.stdin?.end();
      } catch {
        // Already gone: the steps below find it exited.
      }
      await within();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await within();
      }
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    this.buffer.clear();
  }
}
