/**
 * The broker's light door: what a warm CLI call and the shell prompt's count need, without the broker, keyv or ajv
 * (its index.ts loads them all: ~2 MB and tens of ms per command). Only modules with no heavy imports belong here.
 */
export { resolveSession, type SessionBinding } from './session.js';
export { questionOf } from './question.js';
export { defaultSqlitePath } from './default-store.js';
export { countPendingInSqliteFile } from './stores/sqlite/count.js';
