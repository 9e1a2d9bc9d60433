/**
 * `mcpx run --check`: type-checks a script against declarations generated from the configured servers' tools
 * (the same file `mcpx gen --types-only` writes). ts-morph loads only here.
 */
import type { Mcpx } from '../../mcpx.js';

const SCRIPT_PATH = '/script.ts';
const DECLARATIONS_PATH = '/mcpx-env.d.ts';

/** The script's type errors as `file:line: TS1234 message` lines (none: it checks clean). */
export async function checkScript(mcpx: Mcpx, file: string, source: string): Promise<string[]> {
  const { checkTypeScript, generateScriptDeclarations } = await import('../../codegen/index.js');
  const toolsByServer = Object.fromEntries(
    await Promise.all(mcpx.serverNames().map(async (server) => [server, await mcpx.listTools(server)] as const)),
  );
  const { file: declarations } = await generateScriptDeclarations(toolsByServer);
  const diagnostics = await checkTypeScript({ [DECLARATIONS_PATH]: declarations.text, [SCRIPT_PATH]: source }, { scripts: true });
  return diagnostics.filter((d) => d.file === SCRIPT_PATH).map((d) => `${file}:${d.line}: TS${d.code} ${d.message}`);
}
