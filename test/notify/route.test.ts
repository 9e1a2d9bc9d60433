/** Which sinks hear of a question: `on` and `match`, with the policy's own matchers and its audience. */
import { describe, expect, it } from 'vitest';
import { createBroker } from '../../src/broker/index.js';
import { parseConfig } from '../../src/config/index.js';
import { sinksFor, payloadOf } from '../../src/notify/index.js';
import { parsePolicy } from '../../src/policy/index.js';

const sinks = parseConfig(
  {
    mcpServers: {},
    notify: [
      { command: ['all'] },
      { command: ['github-forms'], match: { server: 'git*', mode: 'form' } },
      { command: ['person'], match: { audience: 'person' }, on: ['opened', 'answered'] },
      { command: ['expiries'], on: ['expired'] },
    ],
  },
  'mcpx.json',
  {},
).notify!;

async function open(input: { server: string; tool: string; audience?: 'user'; secret?: boolean }) {
  const broker = createBroker();
  const request = await broker.openRequest({
    trace: 'cal-0000000000000001',
    server: input.server,
    tool: input.tool,
    mode: 'form',
    era: 'legacy',
    message: 'Which repo?',
    requestedSchema: { type: 'object', properties: { value: { type: 'string', title: 'Token' } }, required: ['value'] },
    ...(input.audience ? { audience: input.audience } : {}),
    ...(input.secret ? { secret: { service: 'credential:x', account: 'env.TOKEN' }, asker: 'mcpx' as const } : {}),
  });
  await broker.close();
  return request;
}

const names = (chosen: Array<{ name: string }>): string[] => chosen.map((s) => s.name);

describe('sinksFor', () => {
  it('matches server globs and mode like a policy rule, and each sink only on its events', async () => {
    const github = await open({ server: 'github', tool: 'create_issue' });
    const policy = parsePolicy({});
    expect(names(sinksFor(sinks, 'opened', github, policy))).toEqual(['command[0]', 'command[1]']);
    expect(names(sinksFor(sinks, 'expired', github, policy))).toEqual(['command[3]']);
    expect(names(sinksFor(sinks, 'answered', github, policy))).toEqual([]);
    expect(names(sinksFor(sinks, 'test', github, policy))).toHaveLength(4);
  });

  it('matches tool globs and a field the question asks for', async () => {
    const filtered = parseConfig(
      {
        mcpServers: {},
        notify: [
          { command: ['creates'], match: { tool: 'create_*' } },
          { command: ['values'], match: { field: 'value' } },
          { command: ['urls'], match: { mode: 'url' } },
        ],
      },
      'mcpx.json',
      {},
    ).notify!;
    const policy = parsePolicy({});
    expect(names(sinksFor(filtered, 'opened', await open({ server: 'github', tool: 'create_issue' }), policy))).toEqual([
      'command[0]',
      'command[1]',
    ]);
    expect(names(sinksFor(filtered, 'opened', await open({ server: 'github', tool: 'list_issues' }), policy))).toEqual([
      'command[1]',
    ]);
  });

  it("routes on the question's audience: the server's hint, the policy's audience, mcpx's own questions", async () => {
    const anyone = await open({ server: 'jira', tool: 't' });
    expect(names(sinksFor(sinks, 'opened', anyone, parsePolicy({})))).toEqual(['command[0]']);
    expect(names(sinksFor(sinks, 'opened', anyone, parsePolicy({ audience: 'person' })))).toEqual(['command[0]', 'command[2]']);
    const hinted = await open({ server: 'jira', tool: 't', audience: 'user' });
    expect(names(sinksFor(sinks, 'opened', hinted, parsePolicy({})))).toEqual(['command[0]', 'command[2]']);
    const own = await open({ server: 'jira', tool: 't', secret: true });
    expect(names(sinksFor(sinks, 'answered', own, parsePolicy({})))).toEqual(['command[2]']);
  });
});

describe('payloadOf', () => {
  it('says what is asked and never what was answered', async () => {
    const request = await open({ server: 'github', tool: 'create_issue' });
    const payload = payloadOf('answered', request, {
      now: 0,
      answer: { id: request.id, action: 'accept', content: { value: 'hunter22' }, by: 'cli', at: 1, pid: 1 },
    });
    expect(payload.fields).toEqual([{ name: 'value', title: 'Token', type: 'string', required: true }]);
    expect(payload.answer).toEqual({ action: 'accept', by: 'cli' });
    expect(JSON.stringify(payload)).not.toContain('hunter22');
  });
});
