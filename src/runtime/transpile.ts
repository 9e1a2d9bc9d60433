/**
 * Turns a script file's text into JavaScript QuickJS can evaluate: TypeScript types are stripped with esbuild
 * (about 4 ms, against about 25 ms for `ts.transpileModule`), with a source map so errors point at the
 * script's own lines. JavaScript is evaluated as written.
 */
import type { ScriptSourceMap } from './stack-map.js';
import { McpxError } from '../errors.js';
import type { ScriptSource } from './types.js';

const TYPESCRIPT = /\.(?:ts|mts|cts)$/i;

/** Prepares `source` (the text of `filename`) to run. Syntax errors come back as SCRIPT_ERROR with file:line:column. */
export async function prepareScript(source: string, filename: string): Promise<ScriptSource> {
  if (!TYPESCRIPT.test(filename)) return { code: source, filename };
  const { transform } = await import('esbuild');
  try {
    const result = await transform(source, {
      loader: 'ts',
      format: 'esm',
      target: 'es2022',
      sourcemap: 'external',
      sourcefile: filename,
      sourcesContent: false,
      logLevel: 'silent',
    });
    return { code: result.code, filename, sourceMap: JSON.parse(result.map) as ScriptSourceMap };
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> }).errors;
    const first = errors?.[0];
    if (!first) throw error;
    const where = first.location ? `${filename}:${first.location.line}:${first.location.column + 1}` : filename;
    throw new McpxError('SCRIPT_ERROR', `${where}: ${first.text}`, {
      data: { filename, line: first.location?.line, column: first.location ? first.location.column + 1 : undefined },
    });
  }
}
