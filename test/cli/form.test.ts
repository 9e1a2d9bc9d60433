import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Question } from '../../src/types.js';
import { openTerminal, type Terminal } from './helpers/tmux.js';

const root = join(import.meta.dirname, '..', '..');
const harness = join(import.meta.dirname, 'fixtures', 'form-harness.ts');

const formQuestion: Question = {
  id: 'elc-00000000000000a1',
  server: 'github',
  tool: 'create_issue',
  mode: 'form',
  message: 'Which repository should this go in?',
  era: 'legacy',
  callId: 'cal-00000000000000a1',
  requestedSchema: {
    type: 'object',
    properties: {
      repo: { type: 'string', description: 'owner/name', minLength: 3 },
      email: { type: 'string', format: 'email', title: 'Contact email' },
      count: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
      urgent: { type: 'boolean', default: true },
      color: {
        type: 'string',
        oneOf: [
          { const: 'r', title: 'Red' },
          { const: 'g', title: 'Green' },
        ],
      },
      size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
      tags: { type: 'array', items: { type: 'string', enum: ['bug', 'docs', 'ui'] }, minItems: 1 },
    },
    required: ['repo', 'email', 'color', 'tags'],
  },
};

let terminal: Terminal | undefined;
afterEach(() => terminal?.close());

function runForm(question: unknown, options: { openUrl?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-form-'));
  const questionFile = join(dir, 'question.json');
  const answerFile = join(dir, 'answer.json');
  const openedFile = join(dir, 'opened.txt');
  writeFileSync(questionFile, JSON.stringify(question));
  terminal = openTerminal(
    ['node', '--import', 'tsx', harness, questionFile, answerFile, ...(options.openUrl ? [openedFile] : [])],
    { cwd: root },
  );
  const t = terminal;
  return {
    t,
    async answer(): Promise<unknown> {
      await t.waitFor('FORM-DONE');
      return JSON.parse(readFileSync(answerFile, 'utf8'));
    },
    opened: () => (existsSync(openedFile) ? readFileSync(openedFile, 'utf8') : undefined),
  };
}

describe('terminal form', () => {
  it('answers every field kind and re-asks a bad value', async () => {
    const { t, answer } = runForm(formQuestion);
    await t.waitFor('Answer this question?');
    expect(t.screen()).toContain('github.create_issue asks');
    t.keys('Enter');
    await t.waitFor('repo — owner/name');
    t.type('ab');
    t.keys('Enter');
    await t.waitFor('expected at least 3 characters');
    t.type('c');
    t.keys('Enter');
    await t.waitFor('Contact email');
    t.type('not-an-email');
    t.keys('Enter');
    await t.waitFor('expected a valid email');
    for (let i = 0; i < 'not-an-email'.length; i++) t.keys('BSpace');
    t.type('me@example.com');
    t.keys('Enter');
    await t.waitFor('count (optional)');
    t.type('9');
    t.keys('Enter');
    await t.waitFor('expected a number <= 5');
    t.keys('BSpace');
    t.type('4');
    t.keys('Enter');
    await t.waitFor('urgent (optional)');
    t.keys('Right', 'Enter'); // Yes (the default) -> No
    await t.waitFor('Green');
    t.keys('Down', 'Enter');
    await t.waitFor('size (optional)');
    t.keys('Enter'); // keeps the default, m
    await t.waitFor('docs');
    t.keys('Enter'); // nothing selected: refused, asked again
    await t.waitFor('tags: expected at least 1 selections');
    t.keys('Space', 'Down', 'Down', 'Space', 'Enter');
    expect(await answer()).toEqual({
      action: 'accept',
      content: { repo: 'abc', email: 'me@example.com', count: 4, urgent: false, color: 'g', size: 'm', tags: ['bug', 'ui'] },
    });
  });

  it('fills defaults when a field is left empty', async () => {
    const question = {
      ...formQuestion,
      requestedSchema: { type: 'object', properties: { count: { type: 'number', default: 3 } } },
    };
    const { t, answer } = runForm(question);
    await t.waitFor('Answer this question?');
    t.keys('Enter');
    await t.waitFor('default: 3');
    t.keys('Enter');
    expect(await answer()).toEqual({ action: 'accept', content: { count: 3 } });
  });

  it("puts a script's own question (ask(q), no server) under the script's name", async () => {
    const { t, answer } = runForm({
      mode: 'form',
      message: 'Deploy to which region?',
      requestedSchema: { type: 'object', properties: { region: { type: 'string', enum: ['eu', 'us'] } }, required: ['region'] },
    });
    // Keys only once a prompt shows: the note ('the script asks', the message) is drawn before the prompt takes
    // the keyboard, and a key sent then reaches a terminal still in line mode.
    await t.waitFor('Answer this question?');
    expect(t.screen()).toContain('the script asks');
    t.keys('Enter');
    await t.waitFor(/\bus\b/); // the region field's choices (the message also says "region")
    t.keys('Down', 'Enter');
    expect(await answer()).toEqual({ action: 'accept', content: { region: 'us' } });
  });

  it('declines as an explicit choice', async () => {
    const { t, answer } = runForm(formQuestion);
    await t.waitFor('Answer this question?');
    t.keys('Down', 'Enter');
    expect(await answer()).toEqual({ action: 'decline' });
  });

  it('cancels on Ctrl-C in the middle of the form', async () => {
    const { t, answer } = runForm(formQuestion);
    await t.waitFor('Answer this question?');
    t.keys('Enter');
    await t.waitFor('repo — owner/name');
    t.type('half');
    t.keys('C-c');
    expect(await answer()).toEqual({ action: 'cancel' });
  });

  it('shows a url and its domain and opens it only after the person agrees', async () => {
    const question = {
      ...formQuestion,
      mode: 'url',
      requestedSchema: undefined,
      url: 'https://auth.example.com/connect?x=1',
      message: 'Connect your account',
    };
    const { t, answer, opened } = runForm(question, { openUrl: true });
    await t.waitFor('Open this page on auth.example.com?');
    expect(t.screen()).toContain('https://auth.example.com/connect?x=1');
    expect(opened()).toBeUndefined();
    t.keys('Up', 'Up', 'Enter'); // the default is Cancel; Open it is first
    expect(await answer()).toEqual({ action: 'accept' });
    expect(opened()).toBe('https://auth.example.com/connect?x=1');
  });

  it('declines a url without opening it', async () => {
    const question = {
      ...formQuestion,
      mode: 'url',
      requestedSchema: undefined,
      url: 'https://xn--80ak6aa92e.com/login',
      message: 'Log in',
    };
    const { t, answer, opened } = runForm(question, { openUrl: true });
    await t.waitFor('domain  xn--80ak6aa92e.com');
    t.keys('Up', 'Enter');
    expect(await answer()).toEqual({ action: 'decline' });
    expect(opened()).toBeUndefined();
  });

  it('keeps escape sequences in server text away from the terminal', async () => {
    const question = {
      ...formQuestion,
      server: 'evil\u001b[2J',
      message: 'Pick one\u001b]0;pwned-title\u0007\u001b[31m red\u001b[0m\u009b1;1H done',
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', title: 'Sure?\u001b[8m hidden' } } },
    };
    const { t, answer } = runForm(question);
    await t.waitFor('Answer this question?');
    const screen = t.screen();
    expect(screen).toContain('evil.create_issue asks');
    expect(screen).toContain('Pick one red done');
    expect(t.title()).not.toContain('pwned');
    t.keys('Enter');
    await t.waitFor('Sure? hidden');
    t.keys('Enter');
    expect(await answer()).toEqual({ action: 'accept', content: { ok: false } });
  });
});
