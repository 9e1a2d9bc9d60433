/**
 * Takes the screenshots in docs/web.md: the inbox (desktop and phone) over real calls to the fixture servers, and
 * the history over an audit trail made with a manual clock. Run: node --import tsx scripts/web-screenshots.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createBroker, createManualClock } from '../src/broker/index.js';
import { createApp } from '../src/surfaces/http/app.js';
import { createWebAuth } from '../src/surfaces/http/web/auth.js';
import type { TaskRunner } from '../src/tasks/runner.js';
import { launchChromium, startInboxDaemon } from '../test/helpers/web-inbox.js';

const out = (name: string) => new URL(`../docs/${name}`, import.meta.url).pathname;
const browser = await launchChromium();

async function inbox(): Promise<void> {
  const daemon = await startInboxDaemon({ ttlMs: 30 * 60_000 });
  try {
    const call = (server: string, tool: string, args: Record<string, unknown>) =>
      daemon.rest(`/v1/call/${server}/${tool}`, { method: 'POST', body: args });
    const form = await call('modern', 'ask_form', { title: 'Login times out after 30 s' });
    await call('legacy', 'ask_confirm', { action: 'deploy web@2.3.0 to production' });
    await daemon.broker.openRequest({
      trace: 'cal-5e1d0c2b9a874f11',
      server: 'github',
      tool: 'connect_account',
      mode: 'url',
      era: 'modern',
      ttlMs: 10 * 60_000,
      message: 'Connect your GitHub account to let mcpx open pull requests.',
      url: 'https://github.com/login/oauth/authorize?client_id=Iv1.8a61f9b3a2e5&state=af0ifjsldkj',
    });
    for (const viewport of [
      { width: 1280, height: 760, name: 'web-inbox.png' },
      { width: 390, height: 844, name: 'web-inbox-phone.png' },
    ]) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'light' });
      const page = await context.newPage();
      await page.goto(`${daemon.base}${await daemon.signInPath()}`);
      await page.locator('li.question').nth(2).waitFor();
      await page.locator(`li.question[data-id="${form.body.inputRequired.questions[0].id}"] button`).click();
      await page.getByLabel('Repository').fill('acme/web');
      await page.getByLabel('Priority').selectOption('high');
      await page.screenshot({ path: out(viewport.name), fullPage: viewport.width > 400 });
      await context.close();
    }
  } finally {
    await daemon.close();
  }
}

async function history(): Promise<void> {
  const clock = createManualClock(Date.UTC(2026, 11, 1, 8));
  const broker = createBroker({ clock, allowAnySession: true });
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const s = 1000;
  const m = 60 * s;
  // [server, tool, ttl, answers as [after, action] or 'expired']
  const plan: Array<[string, string, number, Array<[number, 'accept' | 'decline' | 'cancel'] | 'expired'>]> = [
    [
      'ci',
      'deploy_approval',
      30 * m,
      [
        ...Array.from({ length: 14 }, (): [number, 'accept'] => [2 * m + random() * 9 * m, 'accept']),
        [4 * m, 'decline'],
        [26 * m, 'accept'],
        'expired',
        'expired',
      ],
    ],
    [
      'github',
      'create_issue',
      2 * m,
      [
        ...Array.from({ length: 18 }, (): [number, 'accept'] => [4 * s + random() * random() * 40 * s, 'accept']),
        [9 * s, 'decline'],
        [14 * s, 'cancel'],
      ],
    ],
    [
      'db',
      'migrate',
      5 * m,
      [[4.2 * m, 'accept'], [4.6 * m, 'accept'], [3.9 * m, 'decline'], 'expired', 'expired', 'expired', 'expired'],
    ],
  ];
  for (const [server, tool, ttlMs, answers] of plan) {
    for (const answer of answers) {
      const question = await broker.openRequest({
        trace: 'cal-0000000000000001',
        server,
        tool,
        mode: 'form',
        era: 'modern',
        message: '?',
        ttlMs,
      });
      if (answer === 'expired') {
        clock.advance(ttlMs);
        await broker.awaitAnswer(question.id);
      } else {
        clock.advance(Math.round(answer[0]));
        await broker.respond({
          id: question.id,
          action: answer[1],
          ...(answer[1] === 'accept' ? { content: {} } : {}),
          by: 'web',
        });
      }
      clock.advance(7 * m);
    }
  }
  const tasks = { taskOfCall: () => undefined, isAmbiguous: () => false, active: () => 0 } as unknown as TaskRunner;
  const web = createWebAuth({ clock: () => clock.now() });
  const app = createApp({
    broker,
    tasks,
    info: { pid: 1, version: 'demo', startedAt: 0 },
    defaultSession: 'd',
    token: 'x'.repeat(64),
    web,
    clock: () => clock.now(),
  });
  const server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 }, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/ui/history#code=${web.mintCode().code}`);
    await page.locator('#history-chart').waitFor();
    await page.screenshot({ path: out('web-history.png'), fullPage: true });
    await context.close();
  } finally {
    server.closeAllConnections();
    server.close();
    await broker.close();
  }
}

try {
  await inbox();
  await history();
} finally {
  await browser.cleanup();
}
