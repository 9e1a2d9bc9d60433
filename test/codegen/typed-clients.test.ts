/**
 * Clients generated from real servers (committed in test/fixtures/generated/ by `mcpx gen`): calls through them
 * reach the servers and come back typed. The expectTypeOf lines are checked by `npm run typecheck`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createMcpx, isMcpxError, ToolError, type Mcpx, type ToolResult } from '../../src/index.js';
import { createTools, type Tools } from '../fixtures/generated/client/index.js';
import type { GetStructuredContent } from '../fixtures/generated/client/everything.js';
import type { ReadGraph } from '../fixtures/generated/client/memory.js';
import type { ReadTextFile } from '../fixtures/generated/client/filesystem.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The committed codegen config, with the filesystem and memory servers pointed at a temp dir. */
function config(dir: string): Record<string, unknown> {
  const base = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'codegen-servers.json'), 'utf8')) as {
    mcpServers: Record<string, { command: string; args: string[]; env?: Record<string, string> }>;
  };
  const servers = base.mcpServers;
  for (const s of Object.values(servers)) {
    s.command = process.execPath;
    s.args = s.args.map((a) => (a.endsWith('.js') || a.endsWith('.mjs') ? join(root, a) : a));
  }
  (servers.filesystem as { args: string[] }).args[1] = dir;
  (servers.memory as { env: Record<string, string> }).env = { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
  return base;
}

describe('generated clients over real servers', () => {
  let dir: string;
  let mcpx: Mcpx;
  let tools: Tools;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpx-codegen-'));
    writeFileSync(join(dir, 'note.txt'), 'hello from a file\n');
    mcpx = await createMcpx({
      config: config(dir) as never,
      cwd: root,
      env: { ...process.env, MCPX_STATE_DIR: join(dir, 'state') },
      onElicit: async (question) =>
        question.requestedSchema?.properties.repo ? { action: 'accept', content: { repo: 'me/thing' } } : { action: 'decline' },
    });
    tools = createTools(mcpx);
  }, 60_000);

  afterAll(async () => {
    await mcpx?.close();
  });

  it('calls the dual-era fixture by its wire name and answers its question', async () => {
    const result = await tools.fixture.no_ask({ text: 'hi' });
    expectTypeOf(result).toEqualTypeOf<ToolResult>();
    expect(JSON.stringify(result.content)).toContain('hi');
    const asked = await tools.fixture.ask_form({ title: 'x' });
    expect(JSON.stringify(asked.structuredContent)).toContain('"action":"accept"');
  });

  it("awaits server-everything's task tool like any tool (the generated call asks for an MCP task)", async () => {
    const report = await tools.everything.simulateResearchQuery({ topic: 'tides' });
    expectTypeOf(report).toEqualTypeOf<ToolResult>();
    expect(report.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('# Research Report: tides') });
  });

  it('calls the legacy v1 fixture', async () => {
    const result = await tools.legacy.no_ask({ text: 'old' });
    expect(JSON.stringify(result.content)).toContain('old');
  });

  it('calls server-everything, with typed structured content where it declares an output schema', async () => {
    const echo = await tools.everything.echo({ message: 'ping' });
    expect(echo.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('ping') });
    expectTypeOf(tools.everything.getStructuredContent).parameter(0).toEqualTypeOf<GetStructuredContent.Input>();
    const weather = await tools.everything.getStructuredContent({ location: 'Chicago' });
    expectTypeOf(weather).toEqualTypeOf<GetStructuredContent.Output>();
    expectTypeOf(weather.temperature).toEqualTypeOf<number>();
    expect(typeof weather.temperature).toBe('number');
    expect(typeof weather.conditions).toBe('string');
    // @ts-expect-error not one of the cities the schema lists (never called: the server would refuse it)
    const paris = (): Promise<unknown> => tools.everything.getStructuredContent({ location: 'Paris' });
    expect(typeof paris).toBe('function');
  });

  it('calls server-filesystem', async () => {
    const file = await tools.filesystem.read_text_file({ path: join(dir, 'note.txt') });
    expectTypeOf(file).toEqualTypeOf<ReadTextFile.Output>();
    expect(file.content).toContain('hello from a file');
    await expect(tools.filesystem.read_text_file({ path: '/etc/hostname' })).rejects.toBeInstanceOf(ToolError);
  });

  it('calls server-memory', async () => {
    await tools.memory.create_entities({
      entities: [{ name: 'mcpx', entityType: 'project', observations: ['generates typed clients'] }],
    });
    const graph = await tools.memory.read_graph();
    expectTypeOf(graph).toEqualTypeOf<ReadGraph.Output>();
    expect(graph.entities.map((e) => e.name)).toContain('mcpx');
  });

  it('throws INPUT_REQUIRED carrying the outcome when nothing here answers', async () => {
    const later = await createMcpx({
      config: config(dir) as never,
      cwd: root,
      env: { ...process.env, MCPX_STATE_DIR: join(dir, 'state-later') },
      answerLater: true,
    });
    try {
      const error = await createTools(later)
        .fixture.ask_form({ title: 'x' })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isMcpxError(error, 'INPUT_REQUIRED')).toBe(true);
      const outcome = (error as { data: { outcome: { status: string; questions: Array<{ id: string }> } } }).data.outcome;
      expect(outcome.status).toBe('input-required');
      expect(outcome.questions[0]?.id).toMatch(/^elc-[0-9a-f]{16}$/);
    } finally {
      await later.close();
    }
  });
});
