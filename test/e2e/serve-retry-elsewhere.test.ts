/**
 * A modern client that declared elicitation only (no sampling, no roots), through two `mcpx serve --http`
 * processes on one state store: the request state names the held call and is signed with the store's key, so the
 * retry with the answers may reach the other process, which answers through the broker and returns the call's
 * result (or its next round) from the store. Both upstream eras; decline and cancel stay distinct.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioFixture } from '../helpers/fixture-servers.js';
import { modernPost, received, serveSetup, startHttpServe, type HttpServeProcess, type ServeSetup } from '../helpers/serve.js';

let setup: ServeSetup;
let first: HttpServeProcess;
let second: HttpServeProcess;
beforeAll(async () => {
  setup = serveSetup({ legacy: stdioFixture('legacy-v1'), modern: { ...stdioFixture('dual-era'), era: 'modern' } });
  [first, second] = await Promise.all([startHttpServe(setup), startHttpServe(setup)]);
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

const SESSION = { 'x-mcpx-session': 'retry-elsewhere' };
const ELICITATION = { elicitation: { form: {} } };
/** The one question of a round: a modern upstream's key, else (a legacy one names none) the question's id. */
const onlyKey = (result: Record<string, unknown> | undefined): string => {
  const keys = Object.keys((result?.inputRequests ?? {}) as Record<string, unknown>);
  expect(keys).toHaveLength(1);
  return keys[0]!;
};
const call = (url: string, name: string, extra: Record<string, unknown> = {}) =>
  modernPost(url, 'tools/call', { name, arguments: { title: 'r' }, ...extra }, { capabilities: ELICITATION, headers: SESSION });

describe.each(['legacy', 'modern'] as const)('a %s upstream, asked through one serve, answered through another', (upstream) => {
  it.each([
    ['accept', { action: 'accept', content: { repo: 'acme/api' } }],
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
  ] as const)('completes the call with %s as given', async (action, response) => {
    const round = await call(first.url, `${upstream}__ask_form`);
    expect(round.body.error).toBeUndefined();
    expect(round.body.result?.resultType).toBe('input_required');
    const done = await call(second.url, `${upstream}__ask_form`, {
      inputResponses: { [onlyKey(round.body.result)]: response },
      requestState: round.body.result!.requestState,
    });
    expect(done.body.error).toBeUndefined();
    expect(done.body.result?.resultType).toBe('complete');
    expect(received(done.body.result!, 'details')).toMatchObject(response);
    expect(received(done.body.result!, 'details')?.action).toBe(action);
  });

  it('asks the next round from the other serve too, and the third request may go back to the first', async () => {
    const round = await call(first.url, `${upstream}__ask_rounds`);
    const next = await call(second.url, `${upstream}__ask_rounds`, {
      inputResponses: { [onlyKey(round.body.result)]: { action: 'accept', content: { repo: 'acme/api' } } },
      requestState: round.body.result!.requestState,
    });
    expect(next.body.result?.resultType).toBe('input_required');
    expect(JSON.stringify(next.body.result?.inputRequests)).toContain('confirm');
    const done = await call(first.url, `${upstream}__ask_rounds`, {
      inputResponses: { [onlyKey(next.body.result)]: { action: 'accept', content: { confirm: true } } },
      requestState: next.body.result!.requestState,
    });
    expect(done.body.result?.resultType).toBe('complete');
    expect(received(done.body.result!, 'confirm')).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('refuses a state used with other arguments at the other serve', async () => {
    const round = await call(first.url, `${upstream}__ask_form`);
    const refused = await modernPost(
      second.url,
      'tools/call',
      {
        name: `${upstream}__ask_form`,
        arguments: { title: 'other' },
        inputResponses: { [onlyKey(round.body.result)]: { action: 'cancel' } },
        requestState: round.body.result!.requestState,
      },
      { capabilities: ELICITATION, headers: SESSION },
    );
    expect(refused.body.error?.code).toBe(-32602);
  });
});
