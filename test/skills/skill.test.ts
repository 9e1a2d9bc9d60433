/**
 * The mcpx-elicitation skill in the format opencode and Claude Code load: frontmatter `name` equal to its
 * directory and matching ^[a-z0-9]+(-[a-z0-9]+)*$, a `description` of 1-1,024 characters, only known keys;
 * shipped in the package, and installed by `mcpx skill install` where those agents look.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/helpers/run-cli.js';

const root = resolve(import.meta.dirname, '..', '..');
const skillsRoot = join(root, 'skills');
const KNOWN_KEYS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];

/** The frontmatter's top-level keys and their scalar values (nested maps, like metadata, as ''). */
function frontmatter(text: string): Record<string, string> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match) throw new Error('SKILL.md does not start with a --- frontmatter block');
  const fields: Record<string, string> = {};
  for (const line of (match[1] as string).split('\n')) {
    const top = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (top) fields[top[1] as string] = (top[2] as string).replace(/^(['"])(.*)\1$/, '$2');
  }
  return fields;
}

const skills = readdirSync(skillsRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

describe('skills/', () => {
  it('holds the mcpx-elicitation skill', () => {
    expect(skills).toContain('mcpx-elicitation');
  });

  for (const dir of skills) {
    it(`${dir}: frontmatter follows the opencode / Claude Code rules`, () => {
      const text = readFileSync(join(skillsRoot, dir, 'SKILL.md'), 'utf8');
      const fields = frontmatter(text);
      expect(fields.name).toBe(dir);
      expect(fields.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(fields.description?.length).toBeGreaterThan(0);
      expect(fields.description!.length).toBeLessThan(1024);
      expect(Object.keys(fields).filter((k) => !KNOWN_KEYS.includes(k))).toEqual([]);
      expect(text.slice(text.indexOf('\n---\n') + 5).trim().length).toBeGreaterThan(0);
    });
  }

  it('teaches exit 75, the --json document, decline vs cancel, answering, and never inventing a value', () => {
    const text = readFileSync(join(skillsRoot, 'mcpx-elicitation', 'SKILL.md'), 'utf8');
    for (const needle of [
      '75',
      '"inputRequired"',
      'decline',
      'cancel',
      'mcpx elicit answer',
      'mcpx_elicit_answer',
      'Never invent a value',
      'go to the person',
    ]) {
      expect(text).toContain(needle);
    }
  });

  it('ships in the package', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('skills');
  });
});

describe('mcpx skill install', () => {
  it('copies the skill into ./.claude/skills by default, and for opencode globally under XDG_CONFIG_HOME', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-skill-'));
    const original = readFileSync(join(skillsRoot, 'mcpx-elicitation', 'SKILL.md'), 'utf8');
    const project = await runCli(['skill', 'install'], { cwd: dir, env: { HOME: dir } });
    expect(project.code).toBe(0);
    expect(readFileSync(join(dir, '.claude', 'skills', 'mcpx-elicitation', 'SKILL.md'), 'utf8')).toBe(original);
    const global = await runCli(['skill', 'install', '--global', '--for', 'opencode', '--json'], {
      cwd: dir,
      env: { HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg') },
    });
    expect(global.code).toBe(0);
    const installed = join(dir, 'xdg', 'opencode', 'skills', 'mcpx-elicitation', 'SKILL.md');
    expect(JSON.parse(global.stdout)).toEqual({ installed });
    expect(readFileSync(installed, 'utf8')).toBe(original);
  });

  it('refuses an unknown target with a usage error', async () => {
    const run = await runCli(['skill', 'install', '--for', 'vscode'], { cwd: tmpdir(), env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--for takes claude, opencode or agents');
  });
});
