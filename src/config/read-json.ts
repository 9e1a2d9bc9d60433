/**
 * Reads a config file as JSONC, as VS Code writes `.mcp.json` (comments and trailing commas allowed). A syntax
 * error names the file, the line and the column, and calls it a config.
 */
import { readFileSync } from 'node:fs';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { McpxError } from '../errors.js';

/** The parsed contents of the config file at `path`; throws CONFIG_NOT_FOUND or CONFIG_INVALID. */
export function readConfigJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new McpxError('CONFIG_NOT_FOUND', `cannot read config file ${path}: ${(error as Error).message}`, {
      cause: error,
      data: { file: path },
    });
  }
  const errors: ParseError[] = [];
  const raw: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return raw;
  const { line, column } = positionOf(text, first.offset);
  const problem = words(printParseErrorCode(first.error));
  const message = `config file ${path} is not valid JSON at line ${line}, column ${column}: ${problem}`;
  throw new McpxError('CONFIG_INVALID', message, {
    data: {
      file: path,
      line,
      column,
      issues: [
        { field: '', expected: 'a JSON object like {"mcpServers": {...}} (comments and trailing commas are fine)', message },
      ],
    },
  });
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** `PropertyNameExpected` -> `property name expected`. */
function words(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
