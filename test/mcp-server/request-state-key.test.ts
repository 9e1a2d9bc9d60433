/**
 * The request-state key that every `mcpx serve` on one store signs with. The store has no put-if-absent for it, so
 * serves that start together may each write one: the key in use is read at first use (the last write), and a
 * state that fails to verify makes a serve read the key again before refusing it.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { createRequestStateSeal, requestStateKey } from '../../src/surfaces/mcp-server/request-state.js';

const method = 'tools/call';
const KEY_RECORD = 'serve:request-state-key';
const racer = 'k'.repeat(43);

describe('the request-state key shared by serves on one store', () => {
  it('signs with the last write when another serve that started at the same time wrote after this one', async () => {
    const keyv = new Keyv();
    const first = await requestStateKey({}, keyv);
    // The other serve read no key before this one's write landed, then wrote its own.
    await keyv.set(KEY_RECORD, racer);
    const second = await requestStateKey({}, keyv);
    const state = await createRequestStateSeal(first, 60_000).mint({ task: 't' }, method);
    expect(await createRequestStateSeal(second, 60_000).verify(state, method)).toEqual({ task: 't' });
  });

  it('reads the key again when a state fails to verify, and refuses a state signed with no key of the store', async () => {
    const keyv = new Keyv();
    const verifier = createRequestStateSeal(await requestStateKey({}, keyv), 60_000);
    await verifier.mint({ warm: true }, method);
    await keyv.set(KEY_RECORD, racer);
    const minted = await createRequestStateSeal(await requestStateKey({}, keyv), 60_000).mint({ task: 't' }, method);
    expect(await verifier.verify(minted, method)).toEqual({ task: 't' });
    const foreign = await createRequestStateSeal(await requestStateKey({}, new Keyv()), 60_000).mint({ task: 'x' }, method);
    await expect(verifier.verify(foreign, method)).rejects.toThrow();
  });
});
