/**
 * A tool's result on stdout: its text for a person (sanitised on a terminal, where JSON text is indented and
 * coloured), the whole CallToolResult with --json. Into a pipe, the text is exactly what the server sent.
 */
import { EXIT, type CliIO } from './io.js';
import { sanitize } from './sanitize.js';
import { errorLead, jsonFor, prettyJson, styleFor, type Style } from './style.js';
import { issuesFromServerText } from '../../client/light.js';

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
  io: Pick<CliIO, 'stdout' | 'stderr' | 'isTTY'> & { env?: CliIO['env'] },
  json: boolean,
  call?: { server: string; tool: string },
): number {
  const failed = result.isError === true;
  const out = failed ? io.stderr : io.stdout;
  const style = styleFor(out, io.env ?? {});
  if (json) {
    io.stdout.write(`${jsonFor(io.stdout, result, styleFor(io.stdout, io.env ?? {}))}\n`);
    return failed ? EXIT.FAILURE : EXIT.OK;
  }
  const items = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
  const parts = items.map(describeItem);
  const structured = !parts.length && result.structuredContent !== undefined;
  if (structured) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const text = parts.join('\n');
  const refused = failed && call ? issuesFromServerText(text) : undefined;
  if (refused) {
    const lines = refused.map((issue) => `  ${sanitize(issue.message)}\n`).join('');
    io.stderr.write(
      `${errorLead(io.stderr, io.env ?? {})} ${call!.server}.${call!.tool} refused its arguments:\n${lines}see: mcpx list ${call!.server} --schema\n`,
    );
    return EXIT.FAILURE;
  }
  // For a person (on a terminal, or colour forced): JSON indented and coloured, server text sanitised.
  const forPerson = style.enabled || io.isTTY || (out as { isTTY?: boolean }).isTTY === true;
  const shown = !forPerson
    ? text
    : structured
      ? prettyJson(result.structuredContent, style, Number.MAX_SAFE_INTEGER)
      : items.map((item) => readable(describeItem(item), style)).join('\n');
  out.write(shown.endsWith('\n') || shown === '' ? shown : `${shown}\n`);
  return failed ? EXIT.FAILURE : EXIT.OK;
}

/** A text that is a JSON object or array, indented and coloured; any other text sanitised as it is. */
function readable(text: string, style: Style): string {
  if (/^\s*[[{]/.test(text)) {
    try {
      return prettyJson(JSON.parse(text), style, Number.MAX_SAFE_INTEGER);
    } catch {
      // not JSON after all
    }
  }
  return sanitize(text, { maxLength: Number.MAX_SAFE_INTEGER });
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
