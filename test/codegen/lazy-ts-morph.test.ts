import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Every module the file reaches through static imports (type-only imports erased), with the bare specifiers. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the codegen entry (mcpx/codegen)', () => {
  it('exports codegen without loading ts-morph at import time', () => {
    const { files, packages } = staticGraph(join(src, 'entries', 'codegen.ts'));
    expect(files.has(join(src, 'codegen', 'generate.ts'))).toBe(true);
    expect(packages.has('ts-morph')).toBe(false);
  });

  it('sees the packages a module imports statically (the check can fail)', () => {
    const { packages } = staticGraph(join(src, 'codegen', 'generate.ts'));
    expect(packages.has('code-block-writer')).toBe(true);
    const check = staticGraph(join(src, 'codegen', 'check.ts'));
    expect(check.packages.has('ts-morph')).toBe(false);
    expect(readFileSync(join(src, 'codegen', 'check.ts'), 'utf8')).toContain("await import('ts-morph')");
  });
});
