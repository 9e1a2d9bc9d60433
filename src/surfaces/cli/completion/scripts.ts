/**
 * `mcpx completion bash|zsh|fish`: prints the shell's completion script. Each script asks `mcpx __complete` for
 * the candidates on every Tab, so commands, flags, server names and tool names follow the config as it is now.
 */
import { UsageError } from '../args.js';
import { EXIT, type Command } from '../io.js';
import { SHELLS } from './spec.js';

const USAGE = `usage: mcpx completion bash|zsh|fish

Prints a completion script for the shell: commands, verbs, flags, and the server and tool names of the config.

  bash   echo 'source <(mcpx completion bash)' >> ~/.bashrc
  zsh    echo 'source <(mcpx completion zsh)' >> ~/.zshrc      (after compinit)
  fish   mcpx completion fish > ~/.config/fish/completions/mcpx.fish
`;

// Candidates ending in "." (a server, before its tool) or "=" (a flag before its value) take no space after them.
const BASH = `# mcpx completion for bash: source <(mcpx completion bash)
_mcpx() {
  local IFS=$'\\n'
  local line="\${COMP_LINE:0:COMP_POINT}"
  COMPREPLY=($(command mcpx __complete --line "$line" --word "\${COMP_WORDS[COMP_CWORD]}" 2>/dev/null))
  if [[ \${#COMPREPLY[@]} -eq 1 && \${COMPREPLY[0]} == *[.=] ]]; then
    compopt -o nospace 2>/dev/null
  fi
}
complete -o default -o bashdefault -F _mcpx mcpx
`;

const ZSH = `#compdef mcpx
# mcpx completion for zsh: source <(mcpx completion zsh)  (after compinit)
_mcpx() {
  local -a candidates open
  candidates=(\${(f)"$(command mcpx __complete -- "\${(@)words[1,CURRENT]}" 2>/dev/null)"})
  if (( \${#candidates} == 0 )); then
    _files
    return
  fi
  open=(\${(M)candidates:#*[.=]})
  candidates=(\${candidates:#*[.=]})
  (( \${#open} )) && compadd -Q -S '' -- "\${open[@]}"
  (( \${#candidates} )) && compadd -Q -- "\${candidates[@]}"
  return 0
}
if (( $+functions[compdef] )); then
  compdef _mcpx mcpx
fi
`;

const FISH = `# mcpx completion for fish: mcpx completion fish > ~/.config/fish/completions/mcpx.fish
function __mcpx_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l candidates (command mcpx __complete -- $words 2>/dev/null)
    if test (count $candidates) -eq 0
        __fish_complete_path (commandline -ct)
        return
    end
    printf '%s\\n' $candidates
end
complete -c mcpx -f -a '(__mcpx_complete)'
`;

/** The completion script for a shell. */
export function completionScript(shell: (typeof SHELLS)[number]): string {
  return { bash: BASH, zsh: ZSH, fish: FISH }[shell];
}

export const command: Command = async (argv, io) => {
  const [shell, ...extra] = argv.filter((w) => w !== '--help' && w !== '-h');
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(USAGE);
    return EXIT.OK;
  }
  if (!shell || extra.length || !(SHELLS as readonly string[]).includes(shell))
    throw new UsageError(`expected one of ${SHELLS.join(', ')}${shell ? `, got ${JSON.stringify(argv.join(' '))}` : ''}`);
  io.stdout.write(completionScript(shell as (typeof SHELLS)[number]));
  return EXIT.OK;
};
