/**
 * The daemon's stdio servers die with it, even when it is killed (SIGKILL) and cannot close them: not every server
 * watches the end of its stdin (server-everything's v1 stdio transport does not, and its elicitation tool keeps it
 * alive for 10 minutes), so it was left running as an orphan.
 */
import { spawn } from 'node:child_process';

/** TERM first, so a server can close; KILL after this long, to whatever of the group is left. */
const GRACE_SECONDS = 2;

// `kill -SIG -<pgid>` signals the group (dash takes no `--`); it fails, and the watcher just exits, when no group
// with that id exists (the daemon led none).
const SCRIPT = `while read -r _; do :; done; kill -TERM -"$1" 2>/dev/null || exit 0; sleep ${GRACE_SECONDS}; kill -KILL -"$1" 2>/dev/null; exit 0`;

/*
 * A tiny `sh` reads a pipe only the daemon holds; when the daemon is gone the pipe ends, and it signals the daemon's
 * process group: the daemon is started detached (its own group, led by its pid), and every server it spawns, with
 * their own children, is in it. Outside a group the daemon leads (run in the foreground by hand), there is no such
 * group and nothing is signalled.
 */
/** Starts the watcher for this process's group; it never keeps the daemon alive. */
export function reapGroupOnExit(): void {
  if (process.platform === 'win32') return;
  // Its own group (detached), so the TERM it sends the daemon's group does not stop it before the KILL.
  const watcher = spawn('/bin/sh', ['-c', SCRIPT, 'mcpx-daemon-reaper', String(process.pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  watcher.on('error', () => undefined);
  watcher.stdin?.on('error', () => undefined);
  watcher.unref();
  (watcher.stdin as { unref?: () => void } | null)?.unref?.();
}
