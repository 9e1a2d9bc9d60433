/**
 * The SQLite store's schema on the keyv table: the audit log table, the triggers that keep the pending index
 * (`p:` rows) and log each question's and answer's event in the same statement as its write, and the migration
 * of files v1 wrote.
 */
import type { Keyv } from 'keyv';
import { prefixEnd, rawKey } from '../rows.js';

/** The statements that bring a file to the current schema, to run in one transaction; each is safe to run again. */
export function schemaStatements(keyv: Keyv, table: string, logTable: string): string[] {
  const t = table;
  const log = logTable;
  const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;
  const namespace = quote(keyv.namespace ?? '');
  const namespaceLength = rawKey(keyv, 'q:').length - 'q:'.length;
  const range = (prefix: string): string =>
    `NEW.key >= ${quote(rawKey(keyv, prefix))} AND NEW.key < ${quote(prefixEnd(rawKey(keyv, prefix)))}`;
  const pendingKey = `${quote(rawKey(keyv, 'p:'))} || substr(NEW.key, ${namespaceLength + 3})`;
  // The row carries the event its write logs (`_event`); the log row's sequence is its place in write order.
  const event = `json_extract(NEW.value, '$.value._event')`;
  const logRow = `INSERT INTO ${log} (namespace, at, expires, value) SELECT ${namespace}, json_extract(${event}, '$.at'), json_extract(NEW.value, '$.expires'),
        json_object('value', json(${event}), 'expires', json_extract(NEW.value, '$.expires'))
      WHERE ${event} IS NOT NULL;`;
  // The index row is the question alone, so listing reads no more than it returns.
  const indexRow = `json_remove(NEW.value, '$.value._event')`;
  const name = `mcpx_v2_${(keyv.namespace ?? 'none').replace(/[^A-Za-z0-9_]/g, '_')}`;
  const v1 = name.replace('mcpx_v2_', 'mcpx_v1_');
  const logStart = rawKey(keyv, 'log:');
  return [
    // The rowid: each insert takes one more than the largest present, so events written in the same millisecond
    // keep their order. No AUTOINCREMENT: its sqlite_sequence row was one more page written by every commit.
    `CREATE TABLE IF NOT EXISTS ${log} (seq INTEGER PRIMARY KEY, namespace TEXT NOT NULL, at INTEGER NOT NULL, expires INTEGER, value TEXT NOT NULL)`,
    // No index on expires: it was two more pages written by every cycle, for a retention delete that runs only
    // beside a read scanning the log anyway. Files that have it drop it (an older process may make it again).
    `DROP INDEX IF EXISTS ${log}_expires`,
    // Files written by v1 logged into the keyv table keyed by time: drop those triggers and move their rows over.
    ...['question_opened', 'question_changed', 'answered', 'answer_replaced'].map(
      (trigger) => `DROP TRIGGER IF EXISTS ${v1}_${trigger}`,
    ),
    `INSERT INTO ${log} (namespace, at, expires, value) SELECT ${namespace}, coalesce(json_extract(value, '$.value.at'), 0), json_extract(value, '$.expires'), value
       FROM ${t} WHERE key >= ${quote(logStart)} AND key < ${quote(prefixEnd(logStart))} ORDER BY key`,
    `DELETE FROM ${t} WHERE key >= ${quote(logStart)} AND key < ${quote(prefixEnd(logStart))}`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_question_opened AFTER INSERT ON ${t} WHEN ${range('q:')}
       BEGIN INSERT OR REPLACE INTO ${t} (key, value) VALUES (${pendingKey}, ${indexRow}); ${logRow} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_question_changed AFTER UPDATE ON ${t} WHEN ${range('q:')}
       BEGIN UPDATE ${t} SET value = ${indexRow} WHERE key = ${pendingKey}; ${logRow} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_answered AFTER INSERT ON ${t} WHEN ${range('a:')}
       BEGIN DELETE FROM ${t} WHERE key = ${pendingKey}; ${logRow} END`,
    `CREATE TRIGGER IF NOT EXISTS ${name}_answer_replaced AFTER UPDATE ON ${t} WHEN ${range('a:')}
       BEGIN DELETE FROM ${t} WHERE key = ${pendingKey}; ${logRow} END`,
  ];
}
