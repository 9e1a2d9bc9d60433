/** Races acquireLock for each lock path at its own instant (argv: startAt, gapMs, ...paths), prints one JSON result per path, and stays alive as the holder until told to exit (stdin closes). */
import { acquireLock } from '../../src/surfaces/daemon/lock.js';

const [startAt, gapMs, ...paths] = process.argv.slice(2);
const results: boolean[] = [];
for (const [index, path] of paths.entries()) {
  const at = Number(startAt) + index * Number(gapMs);
  while (Date.now() < at) {
    // Spin, so every racer leaves the wait within the same millisecond.
  }
  results.push(acquireLock(path).ok);
}
process.stdout.write(JSON.stringify(results) + '\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
