/**
 * `mcpx serve` in front of @modelcontextprotocol/server-everything (v1 SDK, legacy era): its elicitation tool
 * (registered only after initialize, for a client that declared elicitation) is served, and its question reaches
 * a legacy and a modern client naming the server; accept, decline and cancel come back as given.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup, textOf, v1Client, v2Client, type Answer, type ServeSetup, type TestClient } from '../helpers/serve.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let setup: ServeSetup;
beforeAll(() => {
  setup = serveSetup({ everything: { command: process.execPath, args: [everything, 'stdio'] } });
});

describe.each([
  { name: 'v1 client (legacy)', open: (answer: () => Answer) => v1Client(setup, { answer }) },
  { name: 'v2 client (modern)', open: (answer: () => Answer) => v2Client(setup, { era: 'modern', answer }) },
])('mcpx serve in front of server-everything, with the $name', ({ open }) => {
  let client: TestClient;
  let next: Answer = { action: 'accept', content: { name: 'Ada Lovelace' } };
  beforeAll(async () => {
    client = await open(() => next);
  });
  afterAll(() => client?.close());

  it('forwards its elicitation naming the server; accept, decline and cancel arrive as given', async () => {
    const result = await client.callTool('trigger-elicitation-request');
    expect(client.asked.at(-1)?.message).toMatch(/^everything \(via mcpx\) asks: /);
    expect(textOf(result)).toContain('Ada Lovelace');
    next = { action: 'decline' };
    expect(textOf(await client.callTool('trigger-elicitation-request'))).toMatch(/declined/i);
    next = { action: 'cancel' };
    const cancelled = textOf(await client.callTool('trigger-elicitation-request'));
    expect(cancelled).toMatch(/cancel/i);
    expect(cancelled).not.toMatch(/declined/i);
  });
});

describe.each([
  { name: 'v1 client (legacy)', open: (answer: () => Answer) => v1Client(setup, { answer, url: true }) },
  { name: 'v2 client (modern)', open: (answer: () => Answer) => v2Client(setup, { era: 'modern', answer, url: true }) },
])('mcpx serve forwards a url-mode question to the $name, which declared url elicitation', ({ open }) => {
  let client: TestClient;
  let next: Answer = { action: 'accept' };
  beforeAll(async () => {
    client = await open(() => next);
  });
  afterAll(() => client?.close());

  it('asks in url mode with the page, naming the server; accept, decline and cancel arrive as given', async () => {
    const url = 'https://example.com/consent';
    const accepted = textOf(await client.callTool('trigger-url-elicitation', { url, message: 'Open the consent page' }));
    expect(client.asked.at(-1)).toMatchObject({ mode: 'url', url, message: 'everything (via mcpx) asks: Open the consent page' });
    expect(accepted).toContain('completed the URL elicitation flow');
    next = { action: 'decline' };
    expect(textOf(await client.callTool('trigger-url-elicitation', { url }))).toMatch(/declined/i);
    next = { action: 'cancel' };
    const cancelled = textOf(await client.callTool('trigger-url-elicitation', { url }));
    expect(cancelled).toMatch(/cancel/i);
    expect(cancelled).not.toMatch(/declined/i);
  });
});
