/**
 * The package's public API as a user gets it: the built dist/ imported by the package's own name, as ESM and as
 * CommonJS, and its declarations. The root's names are listed here; every subpath exports exactly what docs/api.md
 * lists for it, and package.json offers exactly the subpaths the page documents. Run after `npm run build`.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { declarationsBuilt } from '../helpers/declarations.js';

const root = resolve(import.meta.dirname, '..', '..');

// dist/*.d.ts, which npm test builds beside the tests (test/helpers/declarations.ts).
beforeAll(() => declarationsBuilt(), 600_000);
const require = createRequire(import.meta.url);

const ROOT_VALUES = [
  'DEFAULT_ELICIT_TTL_MS',
  'DEFAULT_REQUEST_TIMEOUT_MS',
  'McpxError',
  'ToolError',
  'bindServerTools',
  'createMcpx',
  'isMcpxError',
  'unwrapOutcome',
];
const ROOT_TYPES = [
  'Action',
  'Answer',
  'CallOptions',
  'CallOutcome',
  'CompleteOutcome',
  'ContentBlock',
  'Continuation',
  'DurableMcpx',
  'ElicitContext',
  'ElicitHandler',
  'ElicitMode',
  'ElicitationSchema',
  'Era',
  'GetPromptResult',
  'InputRequiredOutcome',
  'Issue',
  'LiveCall',
  'Mcpx',
  'McpxErrorCode',
  'McpxOptions',
  'PolicyOption',
  'PrimitiveSchema',
  'Prompt',
  'PromptOutcome',
  'Question',
  'ReadResourceResult',
  'Resource',
  'ResourceOutcome',
  'ResourceTemplate',
  'ResultOptions',
  'StoreOption',
  'TaskRecord',
  'TaskResult',
  'TaskState',
  'Tool',
  'ToolCallOptions',
  'ToolCaller',
  'ToolResult',
];

interface Documented {
  specifier: string;
  values: string[];
  types: string[];
}

/** docs/api.md's sections: `## \`mcpx/x\`` with a `Values:` and (unless it has none) a `Types:` paragraph. */
function documented(): Documented[] {
  const page = readFileSync(join(root, 'docs', 'api.md'), 'utf8');
  const names = (section: string, label: string): string[] => {
    const paragraph = section.split(/\n\s*\n/).find((p) => p.startsWith(`${label}:`)) ?? '';
    return [...paragraph.matchAll(/`([A-Za-z_][\w]*)`/g)].map((m) => m[1]!).sort();
  };
  return [...page.matchAll(/^## `(mcpx[^`]*)`\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)].map((m) => ({
    specifier: m[1]!,
    values: names(m[2]!, 'Values'),
    types: names(m[2]!, 'Types'),
  }));
}

const distName = (specifier: string): string => (specifier === 'mcpx' ? 'index' : specifier.slice('mcpx/'.length));

/** Every name a built declaration file exports, read from its export statements (a `export *` would hide names). */
function declaredNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause || !ts.isNamedExports(clause)) throw new Error(`${file}: an export * hides which names it exports`);
      names.push(...clause.elements.map((element) => element.name.text));
    } else if (ts.isExportAssignment(statement)) {
      names.push('default');
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      const name = (statement as ts.DeclarationStatement).name;
      names.push(name && ts.isIdentifier(name) ? name.text : 'default');
    }
  }
  return names.sort();
}

const sorted = (names: string[]): string[] => [...names].sort();

describe('the package API', () => {
  const entries = documented();

  it('has a small root: createMcpx, the vocabulary, errors and outcomes', async () => {
    const rootEntry = entries.find((entry) => entry.specifier === 'mcpx');
    expect(rootEntry).toEqual({ specifier: 'mcpx', values: sorted(ROOT_VALUES), types: sorted(ROOT_TYPES) });
    expect(Object.keys(await import('mcpx')).sort()).toEqual(sorted(ROOT_VALUES));
    expect(declaredNames(join(root, 'dist', 'index.d.ts'))).toEqual(sorted([...ROOT_VALUES, ...ROOT_TYPES]));
    expect(ROOT_VALUES.length + ROOT_TYPES.length).toBe(46);
  });

  it('offers exactly the subpaths docs/api.md documents, each as ESM, CommonJS and declarations', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const offered = Object.keys(pkg.exports).filter((key) => key !== './package.json');
    expect(offered.sort()).toEqual(
      entries.map((entry) => (entry.specifier === 'mcpx' ? '.' : `./${distName(entry.specifier)}`)).sort(),
    );
    for (const entry of entries) {
      const name = distName(entry.specifier);
      expect(pkg.exports[entry.specifier === 'mcpx' ? '.' : `./${name}`]).toEqual({
        import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
        require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
      });
    }
  });

  it.each(documented().map((entry) => [entry.specifier, entry] as const))(
    '%s exports what docs/api.md lists, in ESM, CommonJS and its declarations',
    async (specifier, entry) => {
      expect(entry.values.length).toBeGreaterThan(0);
      const esm = (await import(specifier)) as Record<string, unknown>;
      expect(Object.keys(esm).sort()).toEqual(entry.values);
      const cjs = require(specifier) as Record<string, unknown>;
      expect(Object.keys(cjs).sort()).toEqual(entry.values);
      const all = sorted([...entry.values, ...entry.types]);
      expect(declaredNames(join(root, 'dist', `${distName(specifier)}.d.ts`))).toEqual(all);
      expect(declaredNames(join(root, 'dist', `${distName(specifier)}.d.cts`))).toEqual(all);
    },
  );

  it('runs from CommonJS: a question kept in a SQLite store opened through require', async () => {
    const { openSqliteStore } = require('mcpx/stores') as typeof import('../../src/entries/stores.js');
    const { createBroker } = require('mcpx/broker') as typeof import('../../src/broker/index.js');
    const store = await openSqliteStore(join(mkdtempSync(join(tmpdir(), 'mcpx-cjs-')), 'questions.sqlite'));
    const broker = createBroker({ store, session: 'cjs' });
    try {
      const opened = await broker.openRequest({
        server: 's',
        tool: 't',
        mode: 'form',
        message: 'Name?',
        era: 'legacy',
        trace: 'cal-1',
      });
      expect((await broker.pending()).map((entry) => entry.id)).toEqual([opened.id]);
    } finally {
      await broker.close();
    }
  });
});
