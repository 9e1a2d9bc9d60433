/**
 * `mcpx skill install|path`: copies the `mcpx-elicitation` skill (skills/ in the package) where agents load
 * skills. `.claude/skills/` is read by both Claude Code and opencode, so it is the default.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { McpxError } from '../../../errors.js';
import { parseArgs, UsageError } from '../args.js';
import { EXIT, type Command } from '../io.js';
import { packageFile } from '../package-file.js';

export const SKILL_NAME = 'mcpx-elicitation';

const USAGE = `usage: mcpx skill <verb> [options]

  install [--global] [--for claude|opencode|agents] [--dir <skills dir>] [--json]
          copy the ${SKILL_NAME} skill where agents load it:
            project (default)  ./.claude/skills/   (Claude Code and opencode both read it)
            --global           ~/.claude/skills/
            --for opencode     ./.opencode/skills/ or ~/.config/opencode/skills/
            --for agents       ./.agents/skills/   or ~/.agents/skills/
  path    print where the packaged SKILL.md is (to copy or link by hand)

exit: 0 done, 1 failed, 2 usage
`;

type Target = 'claude' | 'opencode' | 'agents';

/** The skills directory an agent reads: per project (under cwd) or per user. */
export function skillsDir(target: Target, global: boolean, cwd: string, env: Record<string, string | undefined>): string {
  const home = env.HOME || homedir();
  if (!global) return join(cwd, `.${target}`, 'skills');
  if (target === 'opencode') return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode', 'skills');
  return join(home, `.${target}`, 'skills');
}

export const command: Command = async (argv, io) => {
  const { flags, positional } = parseArgs(argv, { booleans: ['global', 'json'], strings: ['for', 'dir'] });
  const [verb] = positional;
  if (flags.help || !verb) {
    (flags.help ? io.stdout : io.stderr).write(USAGE);
    return flags.help ? EXIT.OK : EXIT.USAGE;
  }
  const source = packageFile(join('skills', SKILL_NAME, 'SKILL.md'));
  if (!source)
    throw new McpxError('CONFIG_NOT_FOUND', `this mcpx package does not ship skills/${SKILL_NAME}/SKILL.md; reinstall mcpx`);
  if (verb === 'path') {
    io.stdout.write(`${source}\n`);
    return EXIT.OK;
  }
  if (verb !== 'install') throw new UsageError(`unknown verb "${verb}": use install or path`);
  const target = (flags.for ?? 'claude') as Target;
  if (!['claude', 'opencode', 'agents'].includes(target))
    throw new UsageError(`--for takes claude, opencode or agents, got ${JSON.stringify(flags.for)}`);
  const dir =
    typeof flags.dir === 'string' ? resolve(io.cwd, flags.dir) : skillsDir(target, flags.global === true, io.cwd, io.env);
  const destination = join(dir, SKILL_NAME, 'SKILL.md');
  mkdirSync(join(dir, SKILL_NAME), { recursive: true });
  copyFileSync(source, destination);
  if (flags.json) io.stdout.write(`${JSON.stringify({ installed: destination })}\n`);
  else io.stdout.write(`installed ${SKILL_NAME} at ${destination}\n`);
  return EXIT.OK;
};
