/**
 * The secrets of a server's `oauth` block at the moment of need: an asked value from the secret store (the pool
 * reads them, or asks for them, before it connects), or a file read afresh each time (a workload token the
 * platform rotates). Neither the value nor a file's content is ever put in an error message.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { McpxError } from '../errors.js';
import type { OAuthConfig, SecretValue } from '../config/oauth-schema.js';
import type { SecretReader } from './machine-provider.js';

function settingAt(oauth: OAuthConfig, key: string): SecretValue | string | undefined {
  if (key.startsWith('idp.')) return oauth.idp?.[key.slice(4) as 'clientSecret' | 'idToken'];
  return oauth[key as 'clientSecret' | 'privateKey' | 'assertion'];
}

export function secretReader(server: string, oauth: OAuthConfig, asked: Record<string, string> | undefined): SecretReader {
  return async (key) => {
    const setting = settingAt(oauth, key);
    if (typeof setting === 'string') return setting;
    if (setting && 'file' in setting) {
      const path = setting.file.replace(/^~(?=\/|$)/, homedir());
      let text: string;
      try {
        text = (await readFile(path, 'utf8')).trim();
      } catch (error) {
        const why = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        throw new McpxError(
          'SECRET_MISSING',
          `server "${server}": oauth.${key} is read from ${path}, which cannot be read (${why})`,
          {
            data: { server, field: `oauth.${key}`, file: path },
          },
        );
      }
      if (!text)
        throw new McpxError('SECRET_MISSING', `server "${server}": oauth.${key} is read from ${path}, which is empty`, {
          data: { server, field: `oauth.${key}`, file: path },
        });
      return text;
    }
    const given = asked?.[key];
    if (given !== undefined) return given;
    throw new McpxError(
      'SECRET_MISSING',
      `server "${server}" needs ${setting?.ask ?? key} (oauth.${key}) before it can connect; call one of its tools to be asked (mcpx call ${server}.<tool>)`,
      { data: { server, missing: [`oauth.${key}`] } },
    );
  };
}
