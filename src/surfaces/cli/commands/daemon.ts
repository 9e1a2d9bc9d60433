/**
 * `mcpx daemon start|stop|status|run`: the process that holds connections and in-flight calls, so a call that
 * stops at a question outlives the command that made it. `run` is the daemon itself (foreground); `start`
 * spawns it detached, as every command that needs one does on first need.
 */
import { isMcpxError } from '../../../errors.js';
import { daemonStatus, ensureDaemon, stopDaemon } from '../../daemon/client.js';
import { daemonPaths, isAlive, listDaemonStates } from '../../daemon/paths.js';
import { parseArgs, UsageError } from '../args.js';
import { findConfigPath } from '../../../config/find.js';
import { EXIT, type CliIO, type Command } from '../io.js';

const USAGE = `usage: mcpx daemon start|stop|status|run [--config file] [--port n] [--idle seconds] [--json]
       mcpx daemon status|stop --all [--json]

  start    start the daemon for this config unless one runs (detached)
  stop     stop it (legacy questions still waiting are abandoned; modern ones stay resumable)
  status   whether it runs, its pid, socket and calls in flight
  run      be the daemon, in the foreground (what start spawns)

  --all           status, stop: every daemon of this user (one per config), not only this config's
  --port n        also listen on 127.0.0.1:n (0 = a free port) with a bearer token (in the state file)
  --idle seconds  stop after this long with nothing in flight (default MCPX_DAEMON_IDLE, else 600; 0 = never)
  --prewarm name  run: start this stdio server's process first, while the daemon loads (a cold mcpx call passes it)
`;

function seconds(value: string | boolean | undefined, name: string): number | undefined {
  if (value === undefined || typeof value === 'boolean') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} takes a whole number >= 0, got ${JSON.stringify(value)}`);
  return n;
}

export const command: Command = async (argv, io) => {
  let parsed;
  try {
    parsed = parseArgs(argv, { booleans: ['json', 'all'], strings: ['config', 'port', 'idle', 'prewarm'] });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`mcpx daemon: ${error.message}\n\n${USAGE}`);
    return EXIT.USAGE;
  }
  const [verb, ...extra] = parsed.positional;
  if (parsed.flags.help) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (!verb || extra.length || !['start', 'stop', 'status', 'run'].includes(verb)) {
    io.stderr.write(
      `mcpx daemon: expected start, stop, status or run${verb ? `, got ${JSON.stringify([verb, ...extra].join(' '))}` : ''}\n\n${USAGE}`,
    );
    return EXIT.USAGE;
  }
  let port: number | undefined;
  let idle: number | undefined;
  try {
    port = seconds(parsed.flags.port, 'port');
    idle = seconds(
      parsed.flags.idle ?? io.env.MCPX_DAEMON_IDLE,
      parsed.flags.idle === undefined ? 'idle (MCPX_DAEMON_IDLE)' : 'idle',
    );
  } catch (error) {
    io.stderr.write(`mcpx daemon: ${(error as Error).message}\n`);
    return EXIT.USAGE;
  }
  const json = parsed.flags.json === true;
  if (parsed.flags.all === true) {
    if (verb !== 'status' && verb !== 'stop') {
      io.stderr.write(`mcpx daemon: --all goes with status or stop, not ${verb}\n\n${USAGE}`);
      return EXIT.USAGE;
    }
    return verb === 'stop' ? stopAll(io, json) : statusAll(io, json);
  }
  try {
    const configPath = findConfigPath(parsed.flags.config as string | undefined, io.cwd, io.env);
    if (verb === 'run') {
      const { runDaemonCommand } = await import('../../daemon/main.js');
      return await runDaemonCommand({
        env: io.env,
        cwd: io.cwd,
        configPath,
        ...(port !== undefined ? { port } : {}),
        ...(idle !== undefined ? { idleMs: idle * 1000 } : {}),
        stdout: io.stdout,
        stderr: io.stderr,
      });
    }
    if (verb === 'start') {
      const client = await ensureDaemon(io.env, configPath, {
        cwd: io.cwd,
        inlineFallback: false,
        ...(idle !== undefined ? { idleMs: idle * 1000 } : {}),
        ...(port !== undefined ? { port } : {}),
      });
      await client.close();
      const state = client.state!;
      if (port !== undefined && state.port === undefined)
        io.stderr.write('mcpx daemon: a daemon already runs without a port; stop it first to add one\n');
      const { token: _token, ...shown } = state;
      io.stdout.write(
        json
          ? JSON.stringify({ running: true, ...shown }) + '\n'
          : `mcpx daemon: running (pid ${state.pid}) on ${state.socket}${state.port ? ` and 127.0.0.1:${state.port} (bearer token in the state file)` : ''}\n`,
      );
      return EXIT.OK;
    }
    if (verb === 'stop') {
      const result = await stopDaemon(io.env, configPath);
      if (json) io.stdout.write(JSON.stringify(result) + '\n');
      else io.stdout.write(result.stopped ? `mcpx daemon: stopped (pid ${result.pid})\n` : 'mcpx daemon: not running\n');
      return EXIT.OK;
    }
    const status = await daemonStatus(io.env, configPath);
    if (json) {
      io.stdout.write(
        JSON.stringify({
          running: status.running,
          socket: status.paths.socket,
          configPath: status.paths.configPath,
          ...status.health,
          ...(status.state?.port ? { port: status.state.port, tokenFile: status.paths.state } : {}),
          ...(status.state?.remote ? { devices: status.state.remote } : {}),
          ...(status.state?.remoteError ? { devicesError: status.state.remoteError } : {}),
        }) + '\n',
      );
    } else if (status.running && status.health) {
      const h = status.health;
      io.stdout.write(
        `mcpx daemon: running (pid ${h.pid}, version ${h.version}) since ${new Date(h.startedAt).toISOString()}\n` +
          `  socket   ${status.paths.socket}\n` +
          (status.state?.port
            ? `  port     127.0.0.1:${status.state.port}\n  token    the "token" field of ${status.paths.state} (owner-only); send it as Authorization: Bearer <token>\n`
            : `  port     none: the socket only (mcpx daemon start --port 0 opens a loopback port with a bearer token)\n`) +
          (status.state?.remote
            ? `  devices  ${status.state.remote.url} (listening on ${status.state.remote.listen}; mcpx elicit web --devices)\n`
            : status.state?.remoteError
              ? `  devices  not listening on ${status.state.remoteError.listen}: ${status.state.remoteError.message}\n`
              : '') +
          `  config   ${status.paths.configPath ?? '(none)'}\n` +
          `  calls    ${h.activeCalls} in flight\n`,
      );
    } else {
      io.stdout.write(`mcpx daemon: not running (config ${daemonPaths(io.env, configPath).configPath ?? '(none)'})\n`);
    }
    return status.running ? EXIT.OK : EXIT.FAILURE;
  } catch (error) {
    io.stderr.write(`mcpx daemon: ${isMcpxError(error) ? error.message : (error as Error).message}\n`);
    return EXIT.FAILURE;
  }
};

/** `status --all`: one line per live daemon of this user (stale state files are left out); exit 1 when none runs. */
async function statusAll(io: CliIO, json: boolean): Promise<number> {
  const live = listDaemonStates(io.env).filter((state) => isAlive(state.pid));
  const statuses = await Promise.all(live.map((state) => daemonStatus(io.env, state.configPath)));
  const running = statuses.filter((status) => status.running);
  if (json) {
    const shown = running.map((status) => ({
      pid: status.health?.pid,
      configPath: status.paths.configPath ?? null,
      socket: status.paths.socket,
      activeCalls: status.health?.activeCalls,
      ...(status.state?.port ? { port: status.state.port } : {}),
    }));
    io.stdout.write(JSON.stringify({ daemons: shown }) + '\n');
  } else if (running.length === 0) {
    io.stdout.write('mcpx daemon: none running\n');
  } else {
    for (const status of running)
      io.stdout.write(
        `pid ${status.health?.pid}  calls ${status.health?.activeCalls ?? 0}  config ${status.paths.configPath ?? '(none)'}\n`,
      );
  }
  return running.length > 0 ? EXIT.OK : EXIT.FAILURE;
}

/** `stop --all`: stops every live daemon of this user; exit 1 when one did not stop. */
async function stopAll(io: CliIO, json: boolean): Promise<number> {
  const live = listDaemonStates(io.env).filter((state) => isAlive(state.pid));
  const results = await Promise.all(
    live.map(async (state) => {
      try {
        return { configPath: state.configPath ?? null, ...(await stopDaemon(io.env, state.configPath)) };
      } catch (error) {
        return { configPath: state.configPath ?? null, stopped: false, pid: state.pid, error: (error as Error).message };
      }
    }),
  );
  if (json) io.stdout.write(JSON.stringify({ daemons: results }) + '\n');
  else if (results.length === 0) io.stdout.write('mcpx daemon: none running\n');
  for (const result of json ? [] : results)
    io.stdout.write(
      'error' in result
        ? `mcpx daemon: ${result.error} (config ${result.configPath ?? '(none)'})\n`
        : `mcpx daemon: ${result.stopped ? `stopped (pid ${result.pid})` : 'not running'} config ${result.configPath ?? '(none)'}\n`,
    );
  return results.some((result) => 'error' in result) ? EXIT.FAILURE : EXIT.OK;
}
