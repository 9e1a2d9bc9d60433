/**
 * The waiter in another process for the broker bench: for each id read from stdin it says `waiting <id>`,
 * awaits the answer, and says `woke <id>` the moment it arrives.
 */
import { createInterface } from 'node:readline';
import { createBroker, openPostgresStore, openRedisStore, openSqliteStore } from '../src/broker/index.js';

const [kind, location] = process.argv.slice(2);
const store =
  kind === 'redis'
    ? await openRedisStore(location!)
    : kind === 'postgres'
      ? await openPostgresStore(location!)
      : await openSqliteStore(location!);
const broker = createBroker({ store, allowAnySession: true });
for await (const id of createInterface({ input: process.stdin })) {
  if (!id) continue;
  const woke = broker.awaitAnswer(id);
  process.stdout.write(`waiting ${id}\n`);
  await woke;
  process.stdout.write(`woke ${id}\n`);
}
await broker.close();
await store.close();
