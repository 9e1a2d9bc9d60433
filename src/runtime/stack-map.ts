/**
 * Maps positions in the evaluated JavaScript back to the script's own lines (TypeScript is stripped before
 * it runs, which moves lines), and drops frames of the runtime's prelude.
 */
import { SourceMap, type SourceMapPayload } from 'node:module';
import { PRELUDE_FILENAME } from './prelude.js';

export type StackMapper = (text: string) => string;

/** A source map (v3) as esbuild writes it: declared here so the public types need no @types/node. */
export interface ScriptSourceMap {
  version: number;
  file: string;
  sources: string[];
  sourcesContent: string[];
  names: string[];
  mappings: string;
  sourceRoot: string;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createStackMapper(filename: string, payload?: ScriptSourceMap): StackMapper {
  const map = payload ? new SourceMap(payload satisfies SourceMapPayload) : undefined;
  const position = new RegExp(`${escape(filename)}:(\\d+)(?::(\\d+))?`, 'g');
  const preludeFrame = new RegExp(`^\\s*at .*${escape(PRELUDE_FILENAME)}.*$\\n?`, 'gm');
  return (text) => {
    const withoutPrelude = text.replace(preludeFrame, '');
    if (!map) return withoutPrelude;
    return withoutPrelude.replace(position, (whole, line: string, column: string | undefined) => {
      // QuickJS lines and columns are 1-based; SourceMap#findEntry takes and returns 0-based offsets.
      const entry = map.findEntry(Number(line) - 1, column === undefined ? 0 : Number(column) - 1) as {
        originalLine?: number;
        originalColumn?: number;
      };
      if (entry.originalLine === undefined) return whole;
      return `${filename}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
    });
  };
}
