/** A tool's result on stdout: its text for a person (sanitised on a terminal), the whole CallToolResult with --json. */
import { EXIT, type CliIO } from './io.js';
import { sanitize } from './sanitize.js';
import { issuesFromServerText } from '../../client/server-refusal.js';

interface ContentItem {
  type?: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
  [field: string]: unknown;
}

/**
 * Writes the result; exit 0, or 1 when the tool reported an error (`isError`). A server's refusal of the arguments
 * (`call` names the tool) is said as the fields and what each expected, not as the raw protocol text.
 */
export function printResult(
  result: Record<string, unknown>,
  io: Pick<CliIO, 'stdout' | 'stderr' | 'isTTY'>,
  json: boolean,
  call?: { server: string; tool: string },
): number {
  const failed = result.isError === true;
  if (json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return failed ? EXIT.FAILURE : EXIT.OK;
  }
  const items = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  const parts = items.map(describeItem);
  if (!parts.length && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const text = parts.join('\n');
  const refused = failed && call ? issuesFromServerText(text) : undefined;
  if (refused) {
    const lines = refused.map((issue) => `  ${sanitize(issue.message)}\n`).join('');
    io.stderr.write(
      `mcpx: ${call!.server}.${call!.tool} refused its arguments:\n${lines}see: mcpx list ${call!.server} --schema\n`,
    );
    return EXIT.FAILURE;
  }
  const shown = io.isTTY ? sanitize(text, { maxLength: Number.MAX_SAFE_INTEGER }) : text;
  (failed ? io.stderr : io.stdout).write(shown.endsWith('\n') || shown === '' ? shown : `${shown}\n`);
  return failed ? EXIT.FAILURE : EXIT.OK;
}

function describeItem(item: ContentItem): string {
  switch (item.type) {
    case 'text':
      return item.text ?? '';
    case 'image':
    case 'audio':
      return `[${item.type} ${item.mimeType ?? ''}, ${Math.floor(((item.data ?? '').length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[link ${item.uri ?? ''}]`;
    case 'resource':
      return item.resource?.text ?? `[resource ${item.resource?.uri ?? ''}]`;
    default:
      return JSON.stringify(item);
  }
}
