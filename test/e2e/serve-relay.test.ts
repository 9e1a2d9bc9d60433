/**
 * A modern client that declared sampling or roots, through `mcpx serve --http`, in front of a modern upstream (the
 * conformance fixture): the upstream's sampling, roots and elicitation requests reach the client only as declared,
 * its requestState travels inside mcpx's signed envelope, and the retry may reach another `mcpx serve` process on
 * the same store. A tampered, foreign or expired envelope is a JSON-RPC error. Real processes throughout.
 */
import { describe, expect, it } from 'vitest';
import { modernPost, textOf } from '../helpers/serve.js';
import { useConformanceSetup, useHttpServe } from '../helpers/serve-hooks.js';

const ALL = { elicitation: {}, sampling: {}, roots: { listChanged: true } };

const setup = useConformanceSetup((url) => ({ conformance: { url } }));
/** Two serve processes on one state store (one key), and a third whose states expire after a second. */
const first = useHttpServe(setup);
const second = useHttpServe(setup);
const shortLived = useHttpServe(setup, [], { MCPX_ELICIT_TTL_MS: '1000' });

// The session the questions belong to, the same at every serve process (else each process is its own session).
const SESSION = { 'x-mcpx-session': 'relay-test' };
const call = (url: string, name: string, capabilities: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  modernPost(url, 'tools/call', { name, arguments: {}, ...extra }, { capabilities, headers: SESSION });

describe('mcpx serve relays a modern upstream to a modern client that declared sampling or roots', () => {
  it('forwards sampling/createMessage, and the answer given to another serve process on the same store completes the call', async () => {
    const round = await call(first.url, 'test_input_required_result_sampling', { sampling: {} });
    expect(round.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { capital_question: { method: 'sampling/createMessage' } },
    });
    const state = round.body.result!.requestState as string;
    expect(typeof state).toBe('string');
    const sampled = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
    const done = await call(
      second.url,
      'test_input_required_result_sampling',
      { sampling: {} },
      { inputResponses: { capital_question: sampled }, requestState: state },
    );
    expect(done.body.error).toBeUndefined();
    expect(done.body.result?.resultType).toBe('complete');
    expect(textOf(done.body.result!)).toContain('Paris');
  });

  it('forwards roots/list and returns the roots the client gave', async () => {
    const round = await call(first.url, 'test_input_required_result_list_roots', { roots: {} });
    expect(round.body.result?.inputRequests).toEqual({ client_roots: { method: 'roots/list', params: {} } });
    const done = await call(
      first.url,
      'test_input_required_result_list_roots',
      { roots: {} },
      {
        inputResponses: { client_roots: { roots: [{ uri: 'file:///work/project' }] } },
        requestState: round.body.result!.requestState,
      },
    );
    expect(textOf(done.body.result!)).toContain('file:///work/project');
  });

  it('declares upstream only what the client declared: sampling only gets no elicitation or roots request', async () => {
    const round = await call(first.url, 'test_input_required_result_capabilities', { sampling: {} });
    expect(round.body.result?.resultType).toBe('input_required');
    expect(Object.values(round.body.result!.inputRequests as Record<string, { method: string }>).map((r) => r.method)).toEqual([
      'sampling/createMessage',
    ]);
  });

  it('names the real originator in a relayed question, and decline and cancel reach the upstream as given', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const round = await call(first.url, 'test_input_required_result_elicitation', ALL);
      expect(round.body.result?.inputRequests?.user_name?.params?.message).toBe(
        'conformance (via mcpx) asks: What is your name?',
      );
      const done = await call(second.url, 'test_input_required_result_elicitation', ALL, {
        inputResponses: { user_name: { action } },
        requestState: round.body.result!.requestState,
      });
      expect(textOf(done.body.result!)).toBe(`No name given (${action}).`);
    }
  });

  it('keeps the upstream state inside its own envelope: the client never sees it, the upstream gets it back byte-exact', async () => {
    const round = await call(first.url, 'test_input_required_result_request_state', ALL);
    const state = round.body.result!.requestState as string;
    const done = await call(second.url, 'test_input_required_result_request_state', ALL, {
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: state,
    });
    expect(textOf(done.body.result!)).toBe('state-ok: request_state confirmed (accept)');
  });

  it('refuses a tampered state, and a state used for other arguments or by another session, with a JSON-RPC error', async () => {
    const round = await call(first.url, 'test_input_required_result_sampling', { sampling: {} });
    const state = round.body.result!.requestState as string;
    const answer = { capital_question: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' } };
    const tampered = await call(
      second.url,
      'test_input_required_result_sampling',
      { sampling: {} },
      { inputResponses: answer, requestState: `${state}-TAMPERED` },
    );
    expect(tampered.body.error?.code).toBe(-32602);
    expect(tampered.body.result).toBeUndefined();
    const foreign = await modernPost(
      second.url,
      'tools/call',
      { name: 'test_input_required_result_sampling', arguments: { other: 1 }, inputResponses: answer, requestState: state },
      { capabilities: { sampling: {} }, headers: SESSION },
    );
    expect(foreign.body.error?.code).toBe(-32602);
    const otherSession = await modernPost(
      second.url,
      'tools/call',
      { name: 'test_input_required_result_sampling', arguments: {}, inputResponses: answer, requestState: state },
      { capabilities: { sampling: {} } },
    );
    expect(otherSession.body.error?.code).toBe(-32602);
  });

  it('refuses an expired state with a JSON-RPC error', async () => {
    const round = await call(shortLived.url, 'test_input_required_result_sampling', { sampling: {} });
    const state = round.body.result!.requestState as string;
    // The state's expiry is a whole second after minting, checked in whole seconds: wait until it is past for certain.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const late = await call(
      shortLived.url,
      'test_input_required_result_sampling',
      { sampling: {} },
      {
        inputResponses: { capital_question: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' } },
        requestState: state,
      },
    );
    expect(late.body.error?.code).toBe(-32602);
  });
});
