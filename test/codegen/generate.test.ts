import { describe, expect, it } from 'vitest';
import {
  checkTypeScript,
  generateClient,
  generateScriptDeclarations,
  readSchemaHash,
  type ToolDefinition,
} from '../../src/codegen/index.js';
import { compileGenerated } from './compile-helpers.js';
import { makeTools } from './many-tools.js';

const obj = (properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> => ({
  type: 'object',
  properties,
  required,
});

const hardTools: ToolDefinition[] = [
  {
    name: 'create_issue',
    description: 'Create an issue.',
    inputSchema: obj(
      { title: { type: 'string' }, priority: { enum: ['low', 'high'] }, labels: { type: 'array', items: { type: 'string' } } },
      ['title'],
    ),
    outputSchema: obj({ number: { type: 'integer' }, url: { type: 'string', format: 'uri' } }, ['number', 'url']),
  },
  { name: 'read-file', inputSchema: obj({ path: { type: 'string' } }, ['path']) },
  { name: 'read.file', inputSchema: obj({}) },
  { name: 'readFile', inputSchema: obj({ fd: { type: 'integer' } }) },
  { name: 'delete', inputSchema: obj({ id: { type: 'string' } }, ['id']), annotations: { destructiveHint: true } },
  { name: '2fa', inputSchema: obj({}) },
  { name: '__proto__', inputSchema: obj({}) },
  { name: 'constructor', inputSchema: obj({}) },
  {
    name: 'promise',
    inputSchema: {
      ...obj({ p: { $ref: '#/$defs/Promise' } }, ['p']),
      $defs: { Promise: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    },
    outputSchema: {
      $ref: '#/$defs/Promise',
      $defs: { Promise: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
    },
  },
  { name: 'with space', description: 'Ends */ the comment?', inputSchema: obj({ 'a-b': { type: 'number' } }) },
  { name: 'class', inputSchema: { type: 'object', properties: { x: { $ref: 'file:///etc/passwd' } } } },
  { name: 'no_schema' },
];

const servers = {
  github: hardTools,
  'my-server': makeTools(10),
  'my.server': makeTools(3),
  '9lives': [{ name: 'x', inputSchema: obj({}) }],
  tools: [{ name: 'y' }],
};

describe('generateClient', () => {
  it('writes one module per server plus an index, each with a schema hash', async () => {
    const { files } = await generateClient(servers);
    expect(files.map((f) => f.path).sort()).toEqual([
      '9lives.ts',
      'github.ts',
      'index.ts',
      'my-server.ts',
      'my-server_2.ts',
      'tools.ts',
    ]);
    for (const f of files) expect(readSchemaHash(f.text)).toBe(f.hash);
  });

  it('warns, naming tool and path, for what it cannot type', async () => {
    const { warnings } = await generateClient({ github: hardTools });
    expect(warnings).toEqual([
      {
        server: 'github',
        tool: 'class',
        path: '/inputSchema/properties/x/$ref',
        message: expect.stringContaining('never fetched'),
      },
    ]);
  });

  it('compiles under strict and exactOptionalPropertyTypes with zero diagnostics', async () => {
    const { files } = await generateClient(servers);
    expect(await compileGenerated(files)).toEqual([]);
    expect(await compileGenerated(files, {}, { exactOptionalPropertyTypes: true })).toEqual([]);
  });

  it('keeps the same hash for the same tools in another order, and changes it when a schema changes', async () => {
    const a = await generateClient({ github: hardTools });
    const b = await generateClient({ github: [...hardTools].reverse() });
    expect(b.files.map((f) => f.text)).toEqual(a.files.map((f) => f.text));
    const changed = hardTools.map((t) =>
      t.name === 'delete' ? { ...t, inputSchema: obj({ id: { type: 'integer' } }, ['id']) } : t,
    );
    const c = await generateClient({ github: changed });
    expect(c.files[0]?.hash).not.toBe(a.files[0]?.hash);
  });

  it('types arguments and results (checked by the compiler)', async () => {
    const { files } = await generateClient(servers);
    const usage = `
import { createTools } from './gen/index.js';
import { type CreateIssue, type Promise_, githubToolSpecs } from './gen/github.js';
import type { ToolCaller, ToolResult } from 'mcpx';
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function assertType<T extends true>(): void {}
declare const mcpx: ToolCaller;
const tools = createTools(mcpx);
export async function use(): Promise<void> {
  const issue = await tools.github.create_issue({ title: 'x', priority: 'low' });
  assertType<Equal<typeof issue, CreateIssue.Output>>();
  assertType<Equal<typeof issue.number, number>>();
  assertType<Equal<Parameters<typeof tools.github.create_issue>[0], CreateIssue.Input>>();
  assertType<Equal<CreateIssue.Input['priority'], 'low' | 'high' | undefined>>();
  // 'readFile' is already an identifier, so it keeps the bare name; 'read-file' and 'read.file' are numbered.
  const file = await tools.github.readFile({ fd: 1 });
  assertType<Equal<typeof file, ToolResult>>();
  await tools.github.readFile_2({ path: '/x' });
  await tools.github.readFile_3();
  await tools.github.delete({ id: 'a' });
  await tools.github._2fa();
  await tools.github.__proto___();
  await tools.github.constructor_();
  const p = await tools.github.promise({ p: { id: 'a' } });
  assertType<Equal<typeof p, Promise_.Output>>();
  await tools.github.withSpace({ 'a-b': 1 });
  await tools.github.class({ x: 'anything' });
  await tools.github.no_schema({ free: 1 });
  await tools.myServer.tool_0({ title: 't' });
  await tools.myServer_2.tool_1({ query: 'q' });
  await tools._9lives.x();
  await tools.tools.y();
  assertType<Equal<typeof githubToolSpecs.readFile_2.name, 'read-file'>>();
  // @ts-expect-error title is required
  await tools.github.create_issue({});
  // @ts-expect-error not one of the enum members
  await tools.github.create_issue({ title: 'x', priority: 'urgent' });
  // @ts-expect-error unknown property
  await tools.github.delete({ id: 'a', force: true });
  // @ts-expect-error args are required when a property is
  await tools.github.delete();
  // @ts-expect-error no such tool
  await tools.github.nope();
}
`;
    expect(await compileGenerated(files, { '/usage.ts': usage })).toEqual([]);
  });

  it('reports a wrong use of a generated client (the type test can fail)', async () => {
    const { files } = await generateClient({ github: hardTools });
    const diagnostics = await compileGenerated(files, {
      '/bad.ts':
        "import { createTools } from './gen/index.js';\ndeclare const m: import('mcpx').ToolCaller;\nexport const r = createTools(m).github.create_issue({ title: 1 });\n",
    });
    expect(diagnostics.map((d) => d.code)).toEqual([2322]);
  });

  it('never throws on hostile tool lists: garbage entries, non-schemas, nesting deeper than the call stack', async () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 50_000; i += 1) deep = { type: 'object', properties: { a: deep } };
    const hostile = [
      null,
      1,
      'x',
      { name: 5 },
      { name: 'a', inputSchema: null },
      { name: 'b', inputSchema: [1, 2] },
      { name: 'c', inputSchema: { properties: [], required: 'x', allOf: {} } },
      { name: 'd', inputSchema: { $ref: 5 }, outputSchema: 'x' },
      { name: 'deep', inputSchema: deep },
    ];
    const { files, warnings } = await generateClient({ w: hostile as unknown as ToolDefinition[] });
    expect(warnings.map((w) => `${w.tool}${w.path}: ${w.message}`)).toEqual([
      ': 4 tool(s) without a string name skipped',
      'a/inputSchema: is not a schema (expected an object or a boolean); typed as unknown',
      'b/inputSchema: is not a schema (expected an object or a boolean); typed as unknown',
      'c/inputSchema/properties: properties is not an object; ignored',
      'c/inputSchema/allOf: allOf is not an array; ignored',
      'd/inputSchema/$ref: $ref is not a string; ignored',
      'd/outputSchema: is not a schema (expected an object or a boolean); typed as unknown',
      `deep/inputSchema${'/properties/a'.repeat(41)}: nested deeper than 40 levels; typed as unknown`,
    ]);
    expect(await compileGenerated(files)).toEqual([]);
  });

  it('keeps hostile server and tool names inside comments and strings', async () => {
    const evil = 'x\u2028export const pwned = 1;//\n*/ declare const y: 1;';
    const { files } = await generateClient({
      [evil]: [{ name: evil, description: evil, inputSchema: obj({ [evil]: { type: 'string', description: evil } }) }],
    });
    const file = files.find((f) => f.path !== 'index.ts')?.path.replace(/\.ts$/, '.js') ?? '';
    const probe = `// @ts-expect-error the name never becomes code
import { pwned } from './gen/${file}';
// @ts-expect-error nor does the text after a comment terminator
export const z: 1 = y;
export const p: unknown = pwned;
`;
    expect(await compileGenerated(files, { '/probe.ts': probe })).toEqual([]);
  });

  it('generates 1,000 tools that compile clean', async () => {
    const { files, warnings } = await generateClient({ big: makeTools(1000) });
    expect(warnings).toEqual([]);
    expect(await compileGenerated(files)).toEqual([]);
  });
});

describe('generateScriptDeclarations', () => {
  it('declares tools, onElicit, ask, ToolError, console and setTimeout for a script', async () => {
    const { file } = await generateScriptDeclarations(servers);
    const script = `
const issue = await tools.github.create_issue({ title: 'x' });
const n: number = issue.number;
onElicit(async (q) => {
  if (q.mode === 'url') return { action: 'decline' };
  if (q.requestedSchema?.properties.repo) return { action: 'accept', content: { repo: 'me/thing' } };
  return undefined;
});
const answer = await ask({ message: 'Go on?' });
if (answer.action === 'accept') console.log(answer.content);
try {
  await tools.myServer.tool_4({ path: 'p', content: 'c' });
} catch (error) {
  if (error instanceof ToolError) console.error(error.server, error.tool, error.code, error.result?.content);
}
const confirmed = await ask('Really?', { type: 'object', properties: { sure: { type: 'boolean' } } });
console.log(confirmed.action);
onElicit(null);
const t = setTimeout((x: number) => console.info(n, x), 10, 1);
clearTimeout(t);
// @ts-expect-error title is required
await tools.github.create_issue({});
// @ts-expect-error no such server
tools.gitlab;
// @ts-expect-error an answer is accept, decline or cancel
onElicit(async () => ({ action: 'maybe' }));
`;
    const diagnostics = await checkTypeScript({ '/mcpx-env.d.ts': file.text, '/script.ts': script }, { scripts: true });
    expect(diagnostics).toEqual([]);
  });

  it('makes a wrong script fail the check', async () => {
    const { file } = await generateScriptDeclarations({ github: hardTools });
    const diagnostics = await checkTypeScript({
      '/mcpx-env.d.ts': file.text,
      '/script.ts': "await tools.github.create_issue({ title: 'x', priority: 'urgent' });\nexport {};\n",
    });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.message).toContain('"low" | "high"');
  });
});

describe('script declarations and the shared vocabulary', () => {
  it('declare Question and Answer exactly as src/types.ts defines them', async () => {
    const { readFileSync } = await import('node:fs');
    const types = readFileSync(new URL('../../src/types.ts', import.meta.url), 'utf8');
    const { file } = await generateScriptDeclarations({});
    const check = `
import type { Question as CoreQuestion, Answer as CoreAnswer } from './types.js';
declare const core: CoreQuestion;
declare const script: Question;
export const a: Question = core;
export const b: CoreQuestion = script;
declare const coreAnswer: CoreAnswer;
declare const scriptAnswer: Answer;
export const c: Answer = coreAnswer;
export const d: CoreAnswer = scriptAnswer;
`;
    expect(
      await checkTypeScript({
        '/types.ts': types,
        '/abort.d.ts': 'interface AbortSignal { readonly aborted: boolean }',
        '/mcpx-env.d.ts': file.text,
        '/check.ts': check,
      }),
    ).toEqual([]);
  });
});
