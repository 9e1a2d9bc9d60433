import { describe, expect, it } from 'vitest';
import { isMcpxError } from '../../src/errors.js';
import {
  ToolError,
  bindServerTools,
  unwrapOutcome,
  type ToolCallOutcome,
  type ToolCaller,
} from '../../src/codegen/client-runtime.js';

const complete = (result: Record<string, unknown>): ToolCallOutcome => ({ status: 'complete', result });

describe('unwrapOutcome', () => {
  it('returns the structured content for a tool with an output schema', () => {
    expect(unwrapOutcome(complete({ content: [], structuredContent: { n: 1 } }), 's', 't', true)).toEqual({ n: 1 });
  });

  it('returns the whole result for a tool without one', () => {
    const result = { content: [{ type: 'text', text: 'hi' }] };
    expect(unwrapOutcome(complete(result), 's', 't', false)).toBe(result);
  });

  it('throws ToolError with the result for a tool error', () => {
    const result = { content: [{ type: 'text', text: 'no such repo' }], isError: true };
    let caught: unknown;
    try {
      unwrapOutcome(complete(result), 'gh', 'create_issue', false);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ToolError);
    expect((caught as ToolError).result).toBe(result);
    expect((caught as ToolError).message).toBe('gh.create_issue failed: no such repo');
  });

  it('throws ToolError when a structured tool returns no structured content', () => {
    expect(() => unwrapOutcome(complete({ content: [] }), 's', 't', true)).toThrow(/returned no structuredContent/);
  });

  it('throws INPUT_REQUIRED carrying the outcome for an unanswered question', () => {
    const outcome: ToolCallOutcome = {
      status: 'input-required',
      callId: 'cal-1',
      server: 'gh',
      tool: 'create_issue',
      questions: [{ id: 'elc-0123456789abcdef', message: 'Which repo?' }],
    };
    let caught: unknown;
    try {
      unwrapOutcome(outcome, 'gh', 'create_issue', true);
    } catch (error) {
      caught = error;
    }
    expect(isMcpxError(caught, 'INPUT_REQUIRED')).toBe(true);
    expect((caught as { data: { outcome: unknown } }).data.outcome).toBe(outcome);
    expect((caught as Error).message).toContain('Which repo?');
    expect((caught as Error).message).toContain('elc-0123456789abcdef');
  });
});

describe('bindServerTools', () => {
  it('calls each tool by its original name on the wire', async () => {
    const calls: Array<[string, string, Record<string, unknown>]> = [];
    const caller: ToolCaller = {
      async callTool(server, tool, args) {
        calls.push([server, tool, args]);
        return complete({ content: [], structuredContent: { ok: true } });
      },
    };
    const tools = bindServerTools<{ readFile(args?: object): Promise<unknown>; __proto___(): Promise<unknown> }>(
      caller,
      'my.server',
      {
        readFile: { name: 'read-file', structured: true },
        __proto___: { name: '__proto__', structured: false },
      },
    );
    expect(await tools.readFile({ path: '/x' })).toEqual({ ok: true });
    await tools.__proto___();
    expect(calls).toEqual([
      ['my.server', 'read-file', { path: '/x' }],
      ['my.server', '__proto__', {}],
    ]);
  });
});
