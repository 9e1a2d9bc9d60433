/**
 * mcpx signs request states itself (node:crypto, synchronously) in the SDK codec's wire format, so a state minted
 * by a serve built on the SDK codec still verifies, and the other way round; anything altered, expired, for
 * another method or under another key is refused.
 */
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createRequestStateSeal, type RequestStateKey } from '../../src/surfaces/mcp-server/request-state.js';

const KEY = 's'.repeat(40);
const fixedKey = (key: string): RequestStateKey => ({ current: async () => key, reread: async () => false });
const call = { mcpReq: { method: 'tools/call' } } as unknown as ServerContext;
const sdk = createRequestStateCodec({ key: KEY, ttlSeconds: 600, bind: (ctx) => ctx.mcpReq.method });
const seal = createRequestStateSeal(fixedKey(KEY), 600_000);
const payload = { task: 'tsk-1', seq: 2, asked: { repo: 'elc-1' } };

describe('the request-state seal', () => {
  it('reads states the SDK codec minted, and the SDK codec reads its states', async () => {
    expect(await seal.verify(await sdk.mint(payload, call), 'tools/call')).toEqual(payload);
    expect(await sdk.verify(await seal.mint(payload, 'tools/call'), call)).toEqual(payload);
  });

  it('refuses a state with any character changed, another method, another key or a past expiry', async () => {
    const state = await seal.mint(payload, 'tools/call');
    const dot = state.lastIndexOf('.');
    const flip = (s: string, at: number): string => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    await expect(seal.verify(flip(state, state.length - 1), 'tools/call')).rejects.toThrow('mac');
    await expect(seal.verify(flip(state, dot - 1), 'tools/call')).rejects.toThrow('mac');
    await expect(seal.verify(state.slice(0, dot), 'tools/call')).rejects.toThrow();
    await expect(seal.verify(state, 'prompts/get')).rejects.toThrow('bind');
    await expect(createRequestStateSeal(fixedKey('o'.repeat(40)), 600_000).verify(state, 'tools/call')).rejects.toThrow('mac');
    const expired = createRequestStateCodec({ key: KEY, ttlSeconds: -120, bind: (ctx) => ctx.mcpReq.method });
    await expect(seal.verify(await expired.mint(payload, call), 'tools/call')).rejects.toThrow('expired');
  });
});
