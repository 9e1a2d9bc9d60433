/** Bindings that record what a script did, for runtime tests. */
import type { Answer } from '../../src/types.js';
import type { AskRequest, ConsoleLevel, HostBindings, ToolCallReply } from '../../src/runtime/index.js';

export interface RecordingBindings extends HostBindings {
  calls: Array<{ server: string; tool: string; args: Record<string, unknown> }>;
  lines: Array<{ level: ConsoleLevel; text: string }>;
  logs: string[];
  asked: AskRequest[];
}

export function recordingBindings(
  reply: (server: string, tool: string, args: Record<string, unknown>) => ToolCallReply | Promise<ToolCallReply> = (
    server,
    tool,
    args,
  ) => ({
    status: 'ok',
    value: { server, tool, args },
  }),
  answer?: (request: AskRequest) => Promise<Answer | undefined>,
): RecordingBindings {
  const bindings: RecordingBindings = {
    calls: [],
    lines: [],
    logs: [],
    asked: [],
    async callTool(server, tool, args) {
      bindings.calls.push({ server, tool, args });
      return reply(server, tool, args);
    },
    console(level, text) {
      bindings.lines.push({ level, text });
    },
    log(message) {
      bindings.logs.push(message);
    },
  };
  if (answer) {
    bindings.ask = async (request) => {
      bindings.asked.push(request);
      return answer(request);
    };
  }
  return bindings;
}

export const js = (code: string, filename = 'script.js') => ({ code, filename });
