/**
 * The state dir holds every answer, task arguments and results, tokens and the key that signs serve's
 * `requestState`: it is its owner's alone. Every writer makes its dir here (0700) and writes through here (0600,
 * from the first byte); a dir an older mcpx left open is tightened by `tightenPrivateDir`, whose report the
 * surface prints.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { McpxError } from './errors.js';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Group and other bits: none may be set on anything under the state dir. */
const OPEN_BITS = 0o077;

/** Creates `dir` (and missing parents) 0700; an existing dir is left as it is (see `tightenPrivateDir`). */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Writes `text` to `path` atomically (a 0600 temp file renamed over it), so a reader never sees half a file and
 * nobody else can read it even for a moment. `durable` syncs the file first (secrets: not lost to a power cut).
 */
export function writePrivateFile(path: string, text: string, options: { durable?: boolean } = {}): void {
  const temp = writeTemp(path, text, options.durable === true);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Creates a 0600 file holding `text` (its dir 0700) unless one exists: true when this call made it. Whole or not at
 * all, and of two processes racing, exactly one makes it (a hard link fails when the name is taken), so two serves
 * starting at once agree on one token.
 */
export function createPrivateFile(path: string, text: string): boolean {
  makePrivateDir(dirname(path));
  const temp = writeTemp(path, text, false);
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The one way a private file is written: whole, 0600 from the first byte, beside `path`, to be renamed or linked. */
function writeTemp(path: string, text: string, durable: boolean): string {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, text, null, 'utf8');
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return temp;
}

/**
 * Makes sure `path` exists and is 0600 before a library (SQLite) opens it: created empty and 0600, or an existing
 * one's group and other bits cleared, with its `companions` (SQLite's `-wal`, `-shm`, `-journal`, which SQLite
 * creates with the database file's own mode).
 */
export function ensurePrivateFile(path: string, companions: string[] = []): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const file of [path, ...companions]) {
    const stats = statIfAny(file);
    if (stats && stats.isFile() && stats.mode & OPEN_BITS) chmodSync(file, stats.mode & ~OPEN_BITS & 0o777);
  }
}

/** What `tightenPrivateDir` changed: the dir's old mode when it was open, and the entries it closed. */
export interface Tightened {
  dir: string;
  /** The dir's mode before (0o755 …), when the dir itself was open. */
  dirWas?: number;
  /** Entries under it (files, sockets, sub-dirs) whose group or other bits were cleared. */
  entries: string[];
}

/**
 * Closes a state dir an older mcpx (or a umask) left open: the dir and its sub-dirs to 0700, the files in them
 * (one level below a sub-dir at most: the dir is mcpx's, but a mistaken MCPX_STATE_DIR must not cost a deep walk)
 * without group or other bits. Undefined when there is nothing to do, or no dir yet (it is made 0700 when first
 * written). A shared dir (sticky, as /tmp) is refused: anyone could plant files in it.
 */
export function tightenPrivateDir(dir: string): Tightened | undefined {
  const stats = statIfAny(dir);
  if (!stats?.isDirectory()) return undefined;
  if (stats.mode & 0o1000)
    throw new McpxError(
      'CONFIG_INVALID',
      `the state dir ${dir} is a shared directory (mode ${octal(stats.mode)}), where other users can add files: set MCPX_STATE_DIR to a directory of your own`,
      { data: { dir } },
    );
  const tightened: Tightened = { dir, entries: [] };
  if (stats.mode & OPEN_BITS) {
    closeUp(dir, stats);
    tightened.dirWas = stats.mode & 0o777;
  }
  const walk = (parent: string, depth: number): void => {
    for (const name of readdirSync(parent)) {
      const path = join(parent, name);
      const entry = statIfAny(path);
      // A symbolic link is not followed: what it points to is not the state dir's.
      if (!entry || entry.isSymbolicLink()) continue;
      if (entry.mode & OPEN_BITS) {
        closeUp(path, entry);
        tightened.entries.push(path);
      }
      if (entry.isDirectory() && depth < 1) walk(path, depth + 1);
    }
  };
  walk(dir, 0);
  return tightened.dirWas !== undefined || tightened.entries.length ? tightened : undefined;
}

/** One line for a person: what was open and what it is now. */
export function describeTightened(t: Tightened): string {
  const files = t.entries.length ? ` and ${t.entries.length} file${t.entries.length === 1 ? '' : 's'} in it 0600` : '';
  const what =
    t.dirWas !== undefined
      ? `the state dir ${t.dir} was open to other users (mode ${octal(t.dirWas)}): made it 0700${files}`
      : `files in the state dir ${t.dir} were open to other users: made ${t.entries.length === 1 ? 'it' : 'them'} 0600`;
  return `${what}, so answers, tokens and the signing key are yours alone.`;
}

function closeUp(path: string, stats: Stats): void {
  try {
    chmodSync(path, stats.isDirectory() ? PRIVATE_DIR_MODE : stats.mode & ~OPEN_BITS & 0o777);
  } catch (error) {
    throw new McpxError(
      'CONFIG_INVALID',
      `${path} is open to other users (mode ${octal(stats.mode)}) and cannot be made private (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): it belongs to uid ${stats.uid}; set MCPX_STATE_DIR to a directory of your own`,
      { cause: error, data: { path } },
    );
  }
}

function statIfAny(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const octal = (mode: number): string => `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;
