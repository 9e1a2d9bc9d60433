#!/usr/bin/env node
// Bench helper: appends one line to $BENCH_SPAWN_LOG, then runs the target server in this same process
// (`node bench/spawn-counted.mjs <server.js> [args...]`), so counting spawns adds no process of its own.
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [target, ...rest] = process.argv.slice(2);
if (process.env.BENCH_SPAWN_LOG) appendFileSync(process.env.BENCH_SPAWN_LOG, `${process.pid}\n`);
process.argv = [process.argv[0], resolve(target), ...rest];
await import(pathToFileURL(resolve(target)).href);
