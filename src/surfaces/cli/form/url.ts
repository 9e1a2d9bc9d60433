/**
 * A url-mode question on the terminal: the URL and its domain, sanitised; opened only after the person agrees,
 * and only when it is https (or http on this machine). Accept is consent to open, not proof the page was used.
 */
import * as clack from '@clack/prompts';
import { checkUrl } from '../../../elicitation/url.js';
import type { Answer } from '../../../types.js';
import { sanitizeLine } from '../sanitize.js';
import { onePrompt, type ClackIO } from './prompt-io.js';

export async function askUrl(
  url: string | undefined,
  openUrl: ((url: string) => Promise<boolean>) | undefined,
  io: ClackIO,
): Promise<Answer> {
  const check = checkUrl(url);
  clack.log.message(
    [`URL     ${sanitizeLine(url ?? '', 2000)}`, `domain  ${check.domain ? sanitizeLine(check.domain) : '(none)'}`],
    io,
  );
  if (!check.openable) {
    clack.log.error(`mcpx will not open this: ${check.reason}. Declined.`, io);
    return { action: 'decline' };
  }
  const domain = sanitizeLine(check.domain);
  const choice = await onePrompt(io, (io) =>
    clack.select({
      ...io,
      message: openUrl ? `Open this page on ${domain}?` : `Have you opened this page on ${domain} yourself?`,
      options: [
        { value: 'accept', label: openUrl ? 'Open it' : 'Yes, continue' },
        { value: 'decline', label: 'Decline', hint: 'explicitly no' },
        { value: 'cancel', label: 'Cancel', hint: 'dismiss without choosing' },
      ],
      initialValue: 'cancel',
    }),
  );
  if (clack.isCancel(choice) || choice === 'cancel') return { action: 'cancel' };
  if (choice === 'decline') return { action: 'decline' };
  if (openUrl && !(await openUrl(check.href)))
    clack.log.warn(`Could not open a browser; open it yourself: ${sanitizeLine(check.href, 2000)}`, io);
  return { action: 'accept' };
}
