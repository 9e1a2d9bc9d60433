/**
 * What the README says about @types/node must hold for a strict project importing mcpx: compiled against this
 * checkout's declarations (dist/index.d.ts, as `mcpx` resolves in an installed project) with every diagnostic
 * counted, none filtered. mcpx's declarations re-export the MCP SDK's types, whose declarations name Node's globals
 * (`Buffer`), so a project needs @types/node; the README must say so, and with it the check is clean. A full
 * strict check of the SDK's declarations takes tens of seconds on a busy machine, hence the long timeouts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { declarationsBuilt } from '../helpers/declarations.js';

const root = resolve(import.meta.dirname, '..', '..');
const declarations = join(root, 'dist', 'index.d.ts');

// dist/*.d.ts, which npm test builds beside the tests (test/helpers/declarations.ts).
beforeAll(() => declarationsBuilt(), 600_000);

// The two checks read the same declarations: each file is parsed once (by language version) and shared.
const parsed = new Map<string, ts.SourceFile | undefined>();
function sharedHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, version, onError, shouldCreate) => {
    const key = `${JSON.stringify(version)}:${fileName}`;
    if (!parsed.has(key)) parsed.set(key, parse(fileName, version, onError, shouldCreate));
    return parsed.get(key);
  };
  return host;
}

/** A strict consumer of `mcpx` that loads the given `types`. */
function consumerProgram(types: string[]): ts.Program {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-types-'));
  const main = join(dir, 'main.ts');
  writeFileSync(
    main,
    [
      "import { createMcpx, type McpxOptions } from 'mcpx';",
      "import type { ScriptSource } from 'mcpx/runtime';",
      'const options: McpxOptions = {};',
      'const script: ScriptSource | undefined = undefined;',
      'export const made = [createMcpx, options, script];',
      '',
    ].join('\n'),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    types,
    typeRoots: [join(root, 'node_modules', '@types')],
    // `mcpx` as an installed project sees it; its dependencies resolve from the checkout's node_modules.
    baseUrl: dir,
    paths: { mcpx: [declarations], 'mcpx/*': [join(root, 'dist', '*.d.ts')] },
  };
  const program = ts.createProgram({ rootNames: [main], options, host: sharedHost(options) });
  expect(program.getSourceFiles().some((file) => file.fileName === declarations)).toBe(true);
  return program;
}

const described = (d: ts.Diagnostic): string =>
  `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;

/** Every diagnostic of a strict consumer of `mcpx` that loads the given `types` (none filtered). */
function consumerDiagnostics(types: string[]): string[] {
  return ts.getPreEmitDiagnostics(consumerProgram(types)).map(described);
}

/**
 * The first diagnostic of that consumer, or none when the whole check is clean. Files are checked last first: the
 * imported declarations (where a missing Node global shows) come last in a program, TypeScript's own lib first, so
 * a failing check stops after a few files instead of checking every one.
 */
function firstConsumerDiagnostic(types: string[]): string | undefined {
  const program = consumerProgram(types);
  const files = [...program.getSourceFiles()].reverse();
  for (const found of [
    () => program.getOptionsDiagnostics(),
    ...files.map((file) => () => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    () => program.getGlobalDiagnostics(),
  ]) {
    const [first] = found();
    if (first) return described(first);
  }
  return undefined;
}

describe('the type declarations in a strict consumer project', () => {
  it('type-check with @types/node, with no error filtered', () => {
    expect(consumerDiagnostics(['node'])).toEqual([]);
  }, 180_000);

  it('need @types/node exactly when the README says so', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const withoutNode = firstConsumerDiagnostic([]);
    if (withoutNode !== undefined) {
      expect(readme).not.toMatch(/need no `@types\/node`/);
      expect(readme).toMatch(/npm install --save-dev @types\/node/);
    } else {
      expect(readme).not.toMatch(/npm install --save-dev @types\/node/);
    }
  }, 180_000);
});
