/**
 * Adds a server entry to a config file's text, as a person would edit it: comments, key order, indentation and
 * line endings stay as they were (jsonc-parser's edits touch only the entry). The text in, the text out: the
 * caller reads and writes the file.
 */
import { applyEdits, findNodeAtLocation, modify, parse, parseTree, type Node, type ParseError } from 'jsonc-parser';
import { McpxError } from '../errors.js';
import { checkConfig } from './load.js';
import { SERVER_NAME } from './schema.js';

/** A server entry as `mcpx add` writes it: a stdio command or a url, and values asked for at first use. */
export type NewServerEntry = Record<string, unknown> & ({ command: string } | { url: string });

/**
 * The config text with `entry` under `mcpServers.<name>` (or `servers`, where the file already uses VS Code's key).
 * No text (no file yet) starts `{"mcpServers": {}}`. A name already there is refused unless `force` replaces it.
 */
export function addServerEntry(
  text: string | undefined,
  name: string,
  entry: NewServerEntry,
  options: { force?: boolean; file: string; env: Record<string, string | undefined> },
): string {
  if (!SERVER_NAME.test(name))
    throw new McpxError(
      'CONFIG_INVALID',
      `"${name}" cannot name a server: use letters, digits, "_" and "-" (no dots or spaces)`,
      {
        data: { server: name },
      },
    );
  const source = text === undefined || text.trim() === '' ? '{\n  "mcpServers": {}\n}\n' : text;
  const errors: ParseError[] = [];
  const raw = parse(source, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  if (errors.length || !raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new McpxError('CONFIG_INVALID', `${options.file} is not a JSON object, so no server can be added to it; fix it first`, {
      data: { file: options.file },
    });
  const record = raw as Record<string, unknown>;
  const key = record.mcpServers === undefined && record.servers !== undefined ? 'servers' : 'mcpServers';
  const servers = record[key];
  if (servers !== undefined && (!servers || typeof servers !== 'object' || Array.isArray(servers)))
    throw new McpxError('CONFIG_INVALID', `"${key}" in ${options.file} is not an object; fix it first`, {
      data: { file: options.file },
    });
  if (servers && name in servers && !options.force)
    throw new McpxError(
      'SERVER_EXISTS',
      `${options.file} already has a server named "${name}"; choose another name, or replace it with --force`,
      { data: { server: name, file: options.file } },
    );
  const edited = insertEntry(source, key, name, entry);
  // Checked as every command will read it, before anything is written: a bad value names its field.
  checkConfig(parse(edited, [], { allowTrailingComma: true }), options.file, options.env);
  return edited;
}

/**
 * The text with the entry written in: a new one after the last server (on its own line, past that server's comma and
 * line comment, which stay where they were), or in place of the old one's value. Only new text is formatted.
 */
function insertEntry(source: string, key: string, name: string, entry: NewServerEntry): string {
  const format = formattingOf(source);
  const unit = format.insertSpaces ? ' '.repeat(format.tabSize) : '\t';
  const tree = parseTree(source, [], { allowTrailingComma: true });
  const servers = tree && findNodeAtLocation(tree, [key]);
  if (!servers || servers.type !== 'object')
    return applyEdits(source, modify(source, [key, name], entry, { formattingOptions: format }));
  const block = (indent: string): string => JSON.stringify(entry, null, unit).split('\n').join(`${format.eol}${indent}`);
  const existing = servers.children?.find((p) => p.children?.[0]?.value === name)?.children?.[1];
  if (existing) return splice(source, existing.offset, existing.length, block(lineIndent(source, existing.offset)));
  const last = servers.children?.at(-1);
  if (!last) {
    const outer = lineIndent(source, servers.offset);
    const inner = outer + unit;
    const text = `${format.eol}${inner}${JSON.stringify(name)}: ${block(inner)}${format.eol}${outer}`;
    return splice(source, servers.offset + 1, servers.length - 2, text);
  }
  const indent = lineIndent(source, last.offset);
  const { at, comma } = afterProperty(source, last);
  const text = `${format.eol}${indent}${JSON.stringify(name)}: ${block(indent)}${comma ? ',' : ''}`;
  const inserted = splice(source, at, 0, text);
  // No comma after the last server yet: one goes right after its value.
  return comma ? inserted : splice(inserted, last.offset + last.length, 0, ',');
}

/** Where a new property goes after `property`: the end of its line (past its comma and a line comment). */
function afterProperty(source: string, property: Node): { at: number; comma: boolean } {
  let at = property.offset + property.length;
  const skipBlanks = (): void => {
    while (source[at] === ' ' || source[at] === '\t') at++;
  };
  skipBlanks();
  const comma = source[at] === ',';
  if (comma) at++;
  skipBlanks();
  if (source.startsWith('//', at)) while (at < source.length && source[at] !== '\n' && source[at] !== '\r') at++;
  else if (source.startsWith('/*', at) && source.indexOf('*/', at) !== -1) at = source.indexOf('*/', at) + 2;
  return { at: comma || /[\r\n]/.test(source[at] ?? '\n') ? at : property.offset + property.length, comma };
}

/** The blanks that start the line holding `offset`. */
function lineIndent(source: string, offset: number): string {
  const start = source.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(source.slice(start))![0];
}

const splice = (text: string, at: number, length: number, insert: string): string =>
  text.slice(0, at) + insert + text.slice(at + length);

/** The file's own indentation and line ending, so the new entry looks like the rest. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented ? indented.length : 2, eol };
}
