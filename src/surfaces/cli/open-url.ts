/** Opens a web page in the person's browser: only http(s), never through a shell. `BROWSER` names the program. */
import { spawn } from 'node:child_process';

export async function openUrl(url: string, env: Record<string, string | undefined>): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return false;
  const program = env.BROWSER || (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  return new Promise((resolve) => {
    const child = spawn(program, [parsed.href], { detached: true, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
