/**
 * Adds a server entry to a config file's text, as a person would edit it: comments, key order, indentation and
 * line endings stay as they were (jsonc-parser's edits touch only the entry). The text in, the text out: the
 * caller reads and writes the file.
 */
import { applyEdits, modify, parse, type ParseError } from 'jsonc-parser';
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
  const edits = modify(source, [key, name], entry, { formattingOptions: formattingOf(source) });
  const edited = applyEdits(source, edits);
  // Checked as every command will read it, before anything is written: a bad value names its field.
  checkConfig(parse(edited, [], { allowTrailingComma: true }), options.file, options.env);
  return edited;
}

/** The file's own indentation and line ending, so the new entry looks like the rest. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented ? indented.length : 2, eol };
}
