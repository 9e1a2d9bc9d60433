/**
 * A daemon core over the in-memory fixture servers, served on a loopback port with a token as the real daemon
 * serves it, and Debian's chromium driven by playwright-core (never a downloaded browser). For the web inbox's
 * browser tests and its bench.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { chromium, type Browser } from 'playwright-core';
import type { StoreBroker } from '../../src/broker/index.js';
import type { DaemonCore } from '../../src/surfaces/daemon/daemon-core.js';
import { fixtureDaemonCore } from './fixture-daemon-core.js';

export const CHROMIUM = process.env.MCPX_CHROMIUM ?? '/usr/bin/chromium';

export interface InboxDaemon {
  core: DaemonCore;
  broker: StoreBroker;
  /** http://127.0.0.1:<port> */
  base: string;
  token: string;
  /** The REST API with the bearer token, as a script would use it. */
  rest(path: string, init?: { method?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  /** A sign-in path with a fresh one-time code, minted over the unix-socket app as `mcpx elicit web` does. */
  signInPath(): Promise<string>;
  close(): Promise<void>;
}

export async function startInboxDaemon(options: { ttlMs?: number } = {}): Promise<InboxDaemon> {
  const { core, broker } = await fixtureDaemonCore({
    ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}),
    pid: process.pid,
    holder: 'web-test',
    ...(options.ttlMs ? { elicitTtlMs: options.ttlMs } : {}),
  });
  const token = 'a'.repeat(64);
  const socketApp = core.app();
  const server: Server = createServer(getRequestListener(core.app(token).fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    core,
    broker,
    base,
    token,
    async rest(path, init = {}) {
      const response = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${token}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      });
      return { status: response.status, body: await response.json().catch(() => undefined) };
    },
    async signInPath() {
      const response = await socketApp.request('/ui/code', { method: 'POST' });
      return ((await response.json()) as { path: string }).path;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await core.close();
    },
  };
}

/** Debian's chromium, headless, with a fresh profile (Playwright gives each launch its own --user-data-dir). */
export async function launchChromium(): Promise<Browser & { cleanup(): Promise<void> }> {
  const tmp = mkdtempSync(join(tmpdir(), 'mcpx-chromium-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    env: { ...process.env, HOME: tmp, XDG_CONFIG_HOME: tmp, XDG_CACHE_HOME: tmp },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return Object.assign(browser, {
    async cleanup() {
      await browser.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  });
}
