/**
 * The bearer tokens `mcpx serve --http` accepts: MCPX_SERVE_TOKEN, else those of a token file (--token-file, else
 * <stateDir>/serve-token, made 0600 with a fresh token the first time). Each line of a token file is a token of its
 * own: give each host its own line and their sessions stay apart (http-principals.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { McpxError } from '../../errors.js';
import { stateDir } from '../../paths.js';
import { createPrivateFile } from '../../private-files.js';
import { newBearerToken } from '../bearer.js';

export interface ServeTokens {
  /** Every token accepted; the first one's requests without X-Mcpx-Session act in serve's own session. */
  tokens: string[];
  /** The file they were read from (absent for MCPX_SERVE_TOKEN). */
  file?: string;
  /** true when this start made the file. */
  made: boolean;
}

/** Shorter tokens are refused: a guessable token is no lock. */
const MIN_TOKEN_LENGTH = 16;

export function serveTokenFile(env: Record<string, string | undefined>): string {
  return join(stateDir(env), 'serve-token');
}

function checked(tokens: string[], from: string): string[] {
  const short = tokens.find((token) => token.length < MIN_TOKEN_LENGTH);
  if (short !== undefined)
    throw new McpxError(
      'CONFIG_INVALID',
      `${from} holds a token of ${short.length} characters: a token needs at least ${MIN_TOKEN_LENGTH} (make one with \`openssl rand -hex 32\`)`,
    );
  return tokens;
}

/** The file's tokens, once it is known that no other user can read it (then the tokens are no secret). */
function readTokenFile(file: string): string[] {
  let stats;
  try {
    stats = statSync(file);
  } catch (error) {
    throw new McpxError('CONFIG_INVALID', `cannot read the token file ${file}: ${(error as Error).message}`);
  }
  if (!stats.isFile()) throw new McpxError('CONFIG_INVALID', `the token file ${file} is not a file`);
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid())
    throw new McpxError('CONFIG_INVALID', `the token file ${file} belongs to another user: its tokens are not yours alone`);
  if ((stats.mode & 0o077) !== 0)
    throw new McpxError(
      'CONFIG_INVALID',
      `the token file ${file} can be read by other users (mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}), so its tokens may be known: delete it for a new one, or \`chmod 600 ${file}\` if nobody else could have read it`,
    );
  const tokens = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  if (!tokens.length) throw new McpxError('CONFIG_INVALID', `the token file ${file} holds no token (one per line)`);
  return checked(tokens, `the token file ${file}`);
}

export function serveTokens(env: Record<string, string | undefined>, tokenFile?: string): ServeTokens {
  if (tokenFile !== undefined) return { tokens: readTokenFile(tokenFile), file: tokenFile, made: false };
  const fromEnv = env.MCPX_SERVE_TOKEN?.trim();
  if (fromEnv) return { tokens: checked([fromEnv], 'MCPX_SERVE_TOKEN'), made: false };
  const file = serveTokenFile(env);
  const made = createPrivateFile(file, `${newBearerToken()}\n`);
  return { tokens: readTokenFile(file), file, made };
}
