/** What the terminal inbox draws: the badge, a url question's URL and domain, and server text sanitised. */
import { describe, expect, it } from 'vitest';
import type { ShownQuestion as Elicitation } from '../../src/surfaces/backend/backend.js';
import { headerBadge, renderInbox, type InboxState } from '../../src/surfaces/cli/inbox/view.js';

const now = 1_800_000_000_000;
const question = (over: Partial<Elicitation>): Elicitation => ({
  id: 'elc-0000000000000001',
  trace: 'cal-0000000000000001',
  session: 's',
  state: 'pending',
  era: 'legacy',
  server: 'fx',
  tool: 'ask',
  mode: 'form',
  message: 'Which repository?',
  expiresAt: now + 90_000,
  timeLeftMs: 90_000,
  createdAt: now,
  ...over,
});
const OUR_CODES = /\u001b\[(?:[0-9;]*m)/g;

describe('inbox view', () => {
  it('badges the count loudly, and nothing when none waits', () => {
    expect(headerBadge(0)).toBe('');
    expect(headerBadge(1)).toBe('● 1 question');
    expect(headerBadge(3)).toBe('● 3 questions');
  });

  it('shows a url question with its URL and its domain as punycode', () => {
    const state: InboxState = {
      questions: [question({ mode: 'url', url: 'https://exаmple.com/authorize', message: 'Sign in' })],
      selected: 0,
      view: 'detail',
      source: 'daemon',
    };
    const screen = renderInbox(state, now, 100).join('\n');
    expect(screen).toContain('domain  xn--exmple-4nf.com');
    expect(screen).toContain('URL     https://exаmple.com/authorize');
    expect(screen).toContain('o opens it in your browser');
  });

  it('removes escape sequences and control characters from server text', () => {
    const hostile = 'Pick\u001b]0;pwned\u0007 a \u001b[2J\u001b[31mrepo\u202e';
    const state: InboxState = {
      questions: [question({ message: hostile, server: 'fx\u001b[1A', tool: 'a\u0007sk' })],
      selected: 0,
      view: 'list',
      source: 'store',
    };
    for (const view of ['list', 'detail'] as const) {
      const screen = renderInbox({ ...state, view }, now, 100).join('\n');
      expect(screen.replace(OUR_CODES, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
      expect(screen).toContain('Pick a repo');
      expect(screen).toContain('fx.ask');
    }
  });
});
