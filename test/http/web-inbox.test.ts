/**
 * The web inbox in a real browser: Debian's chromium driven by playwright-core against a daemon core served on a
 * loopback port with a token, over the in-memory fixture servers (which report what they received).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureEcho } from '../helpers/fixture-servers.js';
import { launchChromium, startInboxDaemon, type InboxDaemon } from '../helpers/web-inbox.js';

describe('web inbox', () => {
  let daemon: InboxDaemon;
  let browser: Browser & { cleanup(): Promise<void> };
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    [daemon, browser] = await Promise.all([startInboxDaemon(), launchChromium()]);
    context = await browser.newContext();
    page = await context.newPage();
    await page.goto(`${daemon.base}${await daemon.signInPath()}`);
    await page.locator('#inbox').waitFor();
  });
  afterAll(async () => {
    await browser?.cleanup();
    await daemon?.close();
  });

  /** Starts a call that asks; resolves with its task and question id once the daemon answered 202. */
  async function ask(tool: string, args: Record<string, unknown> = {}): Promise<{ task: string; id: string }> {
    const { status, body } = await daemon.rest(`/v1/call/modern/${tool}`, { method: 'POST', body: args });
    expect(status).toBe(202);
    return { task: body.inputRequired.task, id: body.inputRequired.questions[0].id };
  }

  async function received(task: string): Promise<ReturnType<typeof fixtureEcho>['received']> {
    const { body } = await daemon.rest(`/v1/tasks/${task}?wait=20`);
    expect(body.task.state).toBe('complete');
    return fixtureEcho(body.task.result).received;
  }

  const row = (id: string) => page.locator(`li.question[data-id="${id}"]`);

  it('signs in from the link and takes the one-time code out of the address bar', async () => {
    expect(page.url()).toBe(`${daemon.base}/ui`);
    const cookies = await context.cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('shows a question opened by a call without a reload, and accepts it with content as web', async () => {
    const { task, id } = await ask('ask_form', { title: 'bug' });
    await expect.poll(() => row(id).textContent()).toContain('Where should "bug" go?');
    expect(await row(id).textContent()).toContain('modern.ask_form');
    await row(id).getByRole('button').click();
    await page.getByLabel('Repository').fill('me/thing');
    await page.getByLabel('Private').check();
    await page.getByLabel('Priority').selectOption('high');
    await page.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => page.locator('#detail-status').textContent()).toContain('Accepted');
    expect((await received(task)).details).toEqual({
      action: 'accept',
      content: { repo: 'me/thing', private: true, priority: 'high' },
    });
    expect((await daemon.broker.lookup(id))?.by).toBe('web');
    expect(await row(id).count()).toBe(0);
  });

  it('sends decline and cancel as themselves', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const { task, id } = await ask('ask_confirm');
      await row(id).getByRole('button').click();
      await page.getByRole('button', { name: action === 'decline' ? 'Decline' : 'Cancel', exact: true }).click();
      await expect
        .poll(() => page.locator('#detail-status').textContent())
        .toContain(action === 'decline' ? 'Declined' : 'Cancelled');
      expect((await received(task)).confirm).toEqual({ action });
      expect(await daemon.broker.lookup(id)).toMatchObject({ action, by: 'web' });
    }
  });

  it("shows the server's issue beside its field and leaves the question pending", async () => {
    const { id } = await ask('ask_form', { title: 'short' });
    await row(id).getByRole('button').click();
    const repo = page.getByLabel('Repository');
    // The browser checks minLength too: take that check away, so the value reaches the server's.
    await repo.evaluate((input) => input.removeAttribute('minlength'));
    await repo.fill('ab');
    await page.getByRole('button', { name: 'Accept' }).click();
    const issue = page.locator('[data-field-error="repo"]');
    await expect.poll(() => issue.textContent()).toMatch(/repo: expected .*3/);
    expect(await repo.getAttribute('aria-invalid')).toBe('true');
    expect((await daemon.rest(`/v1/elicit/${id}`)).body.elicitation.state).toBe('pending');
    expect(await row(id).count()).toBe(1);
    // The browser's own check: an empty required field never leaves the page.
    await repo.fill('');
    await page.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => issue.textContent()).not.toMatch(/repo: expected/);
    expect((await daemon.rest(`/v1/elicit/${id}`)).body.elicitation.state).toBe('pending');
    await daemon.rest(`/v1/elicit/${id}/cancel`, { method: 'POST' });
    await expect.poll(() => row(id).count()).toBe(0);
  });

  it('answers with the keyboard alone on a phone-sized screen', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${daemon.base}/ui`);
    await phone.locator('#inbox').waitFor();
    const { task, id } = await ask('ask_confirm', { action: 'ship it' });
    const open = phone.locator(`li.question[data-id="${id}"] button`);
    await open.focus();
    await phone.keyboard.press('Enter');
    const focused = () => phone.evaluate(() => (globalThis as any).document.activeElement?.id as string);
    await expect.poll(focused).toBe('detail-title');
    // The question takes the screen; nothing scrolls sideways; controls are finger-sized.
    expect(await phone.locator('#inbox').isVisible()).toBe(false);
    expect(await phone.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).toBeLessThanOrEqual(
      390,
    );
    expect((await phone.getByRole('button', { name: 'Accept' }).boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await phone.keyboard.press('Tab');
    expect(await focused()).toMatch(/^f-elc-[0-9a-f]{16}-0$/);
    await phone.keyboard.press('Space');
    await phone.keyboard.press('Tab');
    expect(await focused()).toBe('accept');
    await phone.keyboard.press('Enter');
    expect((await received(task)).confirm).toEqual({ action: 'accept', content: { confirm: true } });
    await phone.keyboard.press('Escape');
    await phone.locator('#inbox').waitFor();
    await phone.close();
  });

  it('builds every field kind from the schema, with defaults, and checks bounds in the browser first', async () => {
    const question = await daemon.broker.openRequest({
      trace: 'cal-0000000000000003',
      server: 'ops',
      tool: 'schedule',
      mode: 'form',
      era: 'modern',
      message: 'Schedule the job',
      requestedSchema: {
        type: 'object',
        properties: {
          email: { type: 'string', format: 'email', title: 'Email' },
          day: { type: 'string', format: 'date', title: 'Day' },
          count: { type: 'integer', minimum: 1, maximum: 5, default: 2, title: 'Count' },
          ratio: { type: 'number', minimum: 0, maximum: 1, title: 'Ratio' },
          notify: { type: 'boolean', default: true, title: 'Notify' },
          colour: {
            type: 'string',
            oneOf: [
              { const: 'r', title: 'Red' },
              { const: 'g', title: 'Green' },
            ],
            default: 'g',
            title: 'Colour',
          },
          size: { type: 'string', enum: ['s', 'm', 'l'], enumNames: ['Small', 'Medium', 'Large'], title: 'Size' },
          tags: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'a', title: 'Alpha' },
                { const: 'b', title: 'Beta' },
                { const: 'c', title: 'Gamma' },
              ],
            },
            minItems: 1,
            maxItems: 2,
            default: ['a'],
            title: 'Tags',
          },
        },
        required: ['email', 'count', 'size'],
      },
    });
    await row(question.id).getByRole('button').click();
    expect(await page.getByLabel('Email').getAttribute('type')).toBe('email');
    expect(await page.getByLabel('Day').getAttribute('type')).toBe('date');
    const count = page.getByLabel('Count');
    expect([await count.inputValue(), await count.getAttribute('min'), await count.getAttribute('max')]).toEqual(['2', '1', '5']);
    expect(await page.getByLabel('Notify').isChecked()).toBe(true);
    expect(await page.getByLabel('Colour').inputValue()).toBe('g');
    expect(await page.getByLabel('Size').locator('option').allTextContents()).toEqual(['Choose…', 'Small', 'Medium', 'Large']);
    expect(await page.getByRole('checkbox', { name: 'Alpha' }).isChecked()).toBe(true);

    await page.getByLabel('Email').fill('not an address');
    await count.fill('9');
    await page.getByRole('checkbox', { name: 'Beta' }).check();
    await page.getByRole('checkbox', { name: 'Gamma' }).check();
    await page.getByRole('button', { name: 'Accept' }).click();
    for (const field of ['email', 'count', 'size', 'tags'])
      expect(await page.locator(`[data-field-error="${field}"]`).textContent(), field).not.toBe('');
    expect(await page.locator('[data-field-error="tags"]').textContent()).toBe('Choose at most 2.');
    expect(await daemon.broker.lookup(question.id)).toBeUndefined();

    await page.getByLabel('Email').fill('ops@example.com');
    await page.getByLabel('Day').fill('2026-12-24');
    await count.fill('3');
    await page.getByLabel('Ratio').fill('0.5');
    await page.getByLabel('Size').selectOption({ label: 'Large' });
    await page.getByRole('checkbox', { name: 'Gamma' }).uncheck();
    await page.getByRole('button', { name: 'Accept' }).click();
    await expect.poll(() => page.locator('#detail-status').textContent()).toContain('Accepted');
    expect((await daemon.broker.lookup(question.id))?.content).toEqual({
      email: 'ops@example.com',
      day: '2026-12-24',
      count: 3,
      ratio: 0.5,
      notify: true,
      colour: 'g',
      size: 'l',
      tags: ['a', 'b'],
    });
  });

  it('shows a url question with its domain and a link the person chooses to follow', async () => {
    // The daemon declares no url capability to servers yet, so the question is opened in its broker directly.
    const question = await daemon.broker.openRequest({
      trace: 'cal-0000000000000002',
      server: 'auth',
      tool: 'connect',
      mode: 'url',
      era: 'modern',
      message: 'Connect your account',
      url: 'https://example.com/mcpx-fixture/authorize?state=1',
    });
    await row(question.id).getByRole('button').click();
    expect(await page.locator('.url .domain').textContent()).toBe('Domain: example.com');
    const link = page.getByRole('link', { name: 'Open example.com in a new tab' });
    expect(await link.getAttribute('href')).toBe('https://example.com/mcpx-fixture/authorize?state=1');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await page.getByRole('button', { name: 'Done: accept' }).click();
    await expect.poll(() => page.locator('#detail-status').textContent()).toContain('Accepted');
    expect(await daemon.broker.lookup(question.id)).toMatchObject({ action: 'accept', by: 'web' });
  });

  it('shows server text as text, never as HTML', async () => {
    const question = await daemon.broker.openRequest({
      trace: 'cal-0000000000000001',
      server: 'evil',
      tool: 't',
      mode: 'form',
      era: 'modern',
      message: '<img src=x id=pwned onerror="document.title=\'pwned\'">',
      requestedSchema: { type: 'object', properties: {} },
    });
    await expect.poll(() => row(question.id).textContent()).toContain('<img src=x id=pwned');
    expect(await page.locator('#pwned').count()).toBe(0);
    await daemon.broker.respond({ id: question.id, action: 'cancel', by: 'api' });
  });

  it('refuses an answer sent from another origin, even a same-site one that carries the cookie', async () => {
    const { id } = await ask('ask_confirm');
    const other: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><p>elsewhere</p>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const elsewhere = await context.newPage();
      await elsewhere.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const refused = elsewhere.waitForResponse((r) => r.url().endsWith(`/v1/elicit/${id}/accept`));
      await elsewhere.evaluate((url) => {
        void fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{"content":{"confirm":true}}' }).catch(
          () => undefined,
        );
      }, `${daemon.base}/v1/elicit/${id}/accept`);
      expect((await refused).status()).toBe(403);
      await elsewhere.close();
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
    // With the cookie and the CSRF token but a forged Origin (as a non-browser client could send).
    const csrf = await page.evaluate(async () => ((await (await fetch('/ui/session')).json()) as { csrf: string }).csrf);
    const forged = await context.request.post(`${daemon.base}/v1/elicit/${id}/accept`, {
      headers: { origin: 'http://evil.example', 'x-mcpx-csrf': csrf, 'content-type': 'application/json' },
      data: { content: { confirm: true } },
    });
    expect(forged.status()).toBe(403);
    expect((await daemon.rest(`/v1/elicit/${id}`)).body.elicitation.state).toBe('pending');
    await daemon.rest(`/v1/elicit/${id}/decline`, { method: 'POST' });
  });

  it('shows a page without the sign-in nothing', async () => {
    const { id } = await ask('ask_confirm');
    const stranger = await browser.newContext();
    try {
      const guest = await stranger.newPage();
      await guest.goto(`${daemon.base}/ui`);
      await guest.locator('#signin').waitFor();
      expect(await guest.locator('li.question').count()).toBe(0);
      expect(await guest.locator('body').textContent()).not.toContain(id);
      const direct = await guest.evaluate(async (path) => (await fetch(path)).status, `/v1/elicit/${id}`);
      expect(direct).toBe(401);
      // A used code signs nobody in.
      const used = await daemon.signInPath();
      const first = await context.newPage();
      await first.goto(`${daemon.base}${used}`);
      await first.locator('#inbox').waitFor();
      await first.close();
      const late = await stranger.newPage();
      await late.goto(`${daemon.base}${used}`);
      await late.locator('#signin').waitFor();
      expect(await late.locator('#signin-reason').textContent()).toContain('used already or has expired');
      expect(await late.locator('li.question').count()).toBe(0);
    } finally {
      await stranger.close();
      await daemon.rest(`/v1/elicit/${id}/decline`, { method: 'POST' });
    }
  });

  it('signs out, after which the page sees nothing', async () => {
    const own = await browser.newContext();
    try {
      const tab = await own.newPage();
      await tab.goto(`${daemon.base}${await daemon.signInPath()}`);
      await tab.locator('#inbox').waitFor();
      await tab.getByRole('button', { name: 'Sign out' }).click();
      await tab.locator('#signin').waitFor();
      expect(await tab.locator('#signin-reason').textContent()).toBe('Signed out.');
      expect(await tab.evaluate(async () => (await fetch('/v1/elicit')).status)).toBe(401);
      expect(await own.cookies()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('charts how questions ended and when they were answered against the TTL', async () => {
    await page.goto(`${daemon.base}/ui/history`);
    await page.locator('#history-chart').waitFor();
    const table = page.getByRole('table');
    const formRow = table.getByRole('row').filter({ hasText: 'ask_form' });
    // ask_form: one accepted, one cancelled (the invalid-value test).
    expect(await formRow.locator('td.num').allTextContents()).toEqual(expect.arrayContaining(['2']));
    expect(await page.locator('#history-chart desc').textContent()).toContain('modern.ask_confirm');
    expect(await page.locator('#history-chart rect.bar-decline').count()).toBeGreaterThan(0);
  });
});
