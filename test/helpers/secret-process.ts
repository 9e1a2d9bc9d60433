/**
 * The secret store from its own process (node --import tsx), for the cross-process tests:
 *   set <stateDir> <service> <account> <value>...   sets each value under account, account-1, account-2 ...
 *   get <stateDir> <service> <account>              prints {kind, value, reason?}
 */
import { openSecretStore } from '../../src/secrets/index.js';

const [mode, stateDir, service, account, ...values] = process.argv.slice(2);
if (!stateDir || !service || !account)
  throw new Error('usage: secret-process set|get <stateDir> <service> <account> [values...]');
const store = await openSecretStore({ stateDir });
if (mode === 'set') {
  for (const [index, value] of values.entries()) await store.set(service, index === 0 ? account : `${account}-${index}`, value);
  process.stdout.write(`${JSON.stringify({ kind: store.kind })}\n`);
} else {
  const reason = store.fallbackReason === undefined ? {} : { reason: store.fallbackReason };
  process.stdout.write(
    `${JSON.stringify({ kind: store.kind, value: (await store.get(service, account)) ?? null, ...reason })}\n`,
  );
}
