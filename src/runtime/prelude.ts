/**
 * The guest half of the globals, evaluated inside QuickJS before the script. It receives the host's
 * functions (which take and return strings and numbers only), keeps them in a closure the script cannot
 * reach, defines `tools`, `ToolError`, `onElicit`, `ask`, `console`, `setTimeout` and `clearTimeout`
 * as non-writable globals, and returns the functions the host calls back into.
 */
export const PRELUDE_FILENAME = 'mcpx:prelude';

export interface CallRecord {
  token: number;
  server: string;
  tool: string;
  argsText: string;
}

/** Reads what the prelude's takeCalls returns: the tool calls the script made since the last take. */
export function readCallRecords(text: string): CallRecord[] {
  const calls: CallRecord[] = [];
  for (let at = 0; at < text.length;) {
    const tokenEnd = text.indexOf(':', at);
    const serverLengthEnd = text.indexOf(':', tokenEnd + 1);
    const toolLengthEnd = text.indexOf(':', serverLengthEnd + 1);
    const serverStart = toolLengthEnd + 1;
    const toolStart = serverStart + Number(text.slice(tokenEnd + 1, serverLengthEnd));
    const argsStart = toolStart + Number(text.slice(serverLengthEnd + 1, toolLengthEnd));
    const newline = text.indexOf('\n', argsStart);
    const end = newline < 0 ? text.length : newline;
    calls.push({
      token: Number(text.slice(at, tokenEnd)),
      server: text.slice(serverStart, toolStart),
      tool: text.slice(toolStart, argsStart),
      argsText: text.slice(argsStart, end),
    });
    at = end + 1;
  }
  return calls;
}

export const PRELUDE = String.raw`(host) => {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const freeze = Object.freeze;
  const define = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: false, enumerable: false, configurable: false });

  class ToolError extends Error {
    constructor(message, details) {
      super(message);
      this.name = 'ToolError';
      if (details) {
        this.server = details.server;
        this.tool = details.tool;
        if (details.code !== undefined) this.code = details.code;
        if (details.result !== undefined) this.result = details.result;
      }
    }
  }
  define('ToolError', ToolError);

  // Calls, asks and elicitations wait on the host; the host settles them by token.
  const waiting = new Map();
  let nextToken = 1;
  const wait = (start) =>
    new Promise((resolve, reject) => {
      const token = nextToken++;
      waiting.set(token, { resolve, reject });
      try {
        start(token);
      } catch (error) {
        waiting.delete(token);
        reject(error);
      }
    });
  // ok: data is the value, else the failure's { message, code, server, tool, result }; as JSON text ('' for
  // undefined) when isText (the host makes plain data directly in this context where it can).
  const settle = (token, ok, isText, data) => {
    const entry = waiting.get(token);
    if (!entry) return;
    waiting.delete(token);
    const reply = isText ? (data === '' ? undefined : parse(data)) : data;
    if (ok) entry.resolve(reply);
    else entry.reject(new ToolError(reply.message, reply));
  };

  // Tool calls wait here until the slice ends, and the host takes them all in one call: a host function called
  // per tool call costs several times what the whole call costs inside QuickJS. One record per call,
  // '<token>:<server length>:<tool length>:<server><tool><args JSON>', records joined by '\n' (JSON has no raw
  // newline, and the lengths say where the names end whatever they contain).
  const outbox = [];
  const takeCalls = () => {
    if (outbox.length === 0) return '';
    const text = outbox.join('\n');
    outbox.length = 0;
    return text;
  };

  const plain = (value, what) => {
    let text;
    try {
      text = stringify(value);
    } catch (error) {
      throw new TypeError(what + ' must be plain data (JSON): ' + (error && error.message));
    }
    return text;
  };

  // A call's promise is made without a closure of its own: capture hands its resolvers over.
  let captured;
  const capture = (resolve, reject) => {
    captured = { resolve, reject };
  };
  const callTool = (server, tool, args) => {
    if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
      return Promise.reject(new TypeError('tools.' + server + '.' + tool + '(args) takes one object of arguments'));
    }
    let text;
    let why = 'it has no JSON form';
    try {
      text = stringify(args === undefined ? {} : args);
    } catch (error) {
      why = error && error.message;
    }
    if (typeof text !== 'string') {
      return Promise.reject(new TypeError('the arguments of tools.' + server + '.' + tool + '() must be plain data (JSON): ' + why));
    }
    const token = nextToken++;
    const promise = new Promise(capture);
    waiting.set(token, captured);
    outbox.push(token + ':' + server.length + ':' + tool.length + ':' + server + tool + text);
    return promise;
  };

  const refuse = () => false;
  const sealed = { set: refuse, defineProperty: refuse, deleteProperty: refuse, setPrototypeOf: refuse };
  const servers = new Map();
  const serverProxy = (server) => {
    let proxy = servers.get(server);
    if (!proxy) {
      const toolFns = new Map();
      proxy = new Proxy(freeze(Object.create(null)), {
        ...sealed,
        get(_, tool) {
          let fn = toolFns.get(tool);
          if (fn) return fn;
          // 'then' keeps 'await tools.x' from treating the proxy as a promise.
          if (typeof tool !== 'string' || tool === 'then') return undefined;
          fn = freeze((args) => callTool(server, tool, args));
          toolFns.set(tool, fn);
          return fn;
        },
      });
      servers.set(server, proxy);
    }
    return proxy;
  };
  define('tools', new Proxy(freeze(Object.create(null)), {
    ...sealed,
    get(_, server) {
      const known = servers.get(server);
      if (known) return known;
      if (typeof server !== 'string' || server === 'then') return undefined;
      return serverProxy(server);
    },
  }));

  let elicitHandler;
  define('onElicit', (handler) => {
    if (handler !== null && handler !== undefined && typeof handler !== 'function') {
      throw new TypeError('onElicit(handler) takes a function, or null to stop answering');
    }
    elicitHandler = handler || undefined;
    host.elicitRegistered(elicitHandler ? 1 : 0);
  });

  const describe = (error) => {
    if (error instanceof Error) return error.name + ': ' + error.message + (error.stack ? '\n' + error.stack : '');
    try {
      return 'a non-error value: ' + stringify(error);
    } catch {
      return 'a non-error value: ' + String(error);
    }
  };

  const answerQuestion = (token, text) => {
    const question = freeze(parse(text));
    Promise.resolve()
      .then(() => (elicitHandler ? elicitHandler(question) : undefined))
      .then(
        (answer) => {
          let reply;
          try {
            reply = answer === undefined ? '' : stringify(answer);
          } catch (error) {
            host.elicitDone(token, 0, 'returned a value that is not plain data (' + (error && error.message) + ')');
            return;
          }
          host.elicitDone(token, 1, reply === undefined ? '' : reply);
        },
        (error) => host.elicitDone(token, 0, 'threw ' + describe(error)),
      );
  };

  define('ask', (question, schema) => {
    const request = typeof question === 'string' ? { message: question, requestedSchema: schema } : question;
    if (!request || typeof request !== 'object' || typeof request.message !== 'string') {
      return Promise.reject(new TypeError('ask(q) takes a message, or { message, requestedSchema }'));
    }
    let text;
    try {
      text = plain({ message: request.message, requestedSchema: request.requestedSchema ?? request.schema }, 'ask(q)');
    } catch (error) {
      return Promise.reject(error);
    }
    return wait((token) => host.ask(token, text));
  });

  const show = (value, depth) => {
    if (typeof value === 'string') return depth ? stringify(value) : value;
    if (value instanceof Error) return value.name + ': ' + value.message + (value.stack ? '\n' + value.stack.replace(/\n$/, '') : '');
    if (typeof value === 'function') return '[Function ' + (value.name || 'anonymous') + ']';
    if (typeof value === 'bigint') return String(value) + 'n';
    if (value === undefined || typeof value === 'symbol') return String(value);
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch {
      return String(value);
    }
  };
  const printer = (level) => (...args) => host.console(level, args.map((a) => show(a, 0)).join(' '));
  define('console', freeze({
    log: printer('log'),
    info: printer('info'),
    warn: printer('warn'),
    error: printer('error'),
    debug: printer('debug'),
  }));

  const timers = new Map();
  let nextTimer = 1;
  define('setTimeout', (fn, ms, ...args) => {
    if (typeof fn !== 'function') throw new TypeError('setTimeout(fn, ms): fn must be a function');
    const id = nextTimer++;
    host.setTimer(id, Number(ms) > 0 ? Number(ms) : 0);
    timers.set(id, () => fn(...args));
    return id;
  });
  define('clearTimeout', (id) => {
    if (timers.delete(id)) host.clearTimer(id);
  });
  const fireTimer = (id) => {
    const run = timers.get(id);
    if (!run) return;
    timers.delete(id);
    run();
  };

  // The module's evaluation reports its end once, instead of the host polling it after every slice.
  const watchModule = (evaluation) => {
    Promise.resolve(evaluation).then(
      (namespace) => host.moduleDone(1, namespace.default),
      (error) => host.moduleDone(0, error),
    );
  };

  return { settle, takeCalls, answerQuestion, fireTimer, watchModule };
}`;
