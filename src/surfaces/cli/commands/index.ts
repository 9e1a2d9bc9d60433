/** The command table: one line per command, each loaded only when used (keeps a warm `mcpx call` fast). */
import type { Command } from '../io.js';

export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

export const commands: Record<string, CommandEntry> = {
  // call: { summary: 'call a tool: mcpx call server.tool \'{json}\'', load: async () => (await import('./call.js')).command },
};
