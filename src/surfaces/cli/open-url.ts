/**
 * Opens a web page in the person's browser, only after they agreed, and only an https: URL (or http: on this
 * machine). `BROWSER` names the program when set (run directly, never through a shell); otherwise the `open`
 * package picks the platform's opener (xdg-open, macOS open, Windows, WSL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { checkUrl } from '../../elicitation/url.js';

export async function openUrl(url: string, env: Record<string, string | undefined>): Promise<boolean> {
  const check = checkUrl(url);
  if (!check.openable) return false;
  let child: ChildProcess;
  try {
    if (env.BROWSER) child = spawn(env.BROWSER, [check.href], { detached: true, stdio: 'ignore' });
    else child = await (await import('open')).default(check.href);
  } catch {
    return false;
  }
  return new Promise((resolve) => {
    child.once('error', () => resolve(false));
    if (child.pid !== undefined) {
      child.unref();
      resolve(true);
    } else
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
  });
}
