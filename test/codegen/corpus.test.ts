import { describe, expect, it } from 'vitest';
import { checkTypeScript, schemaToTypeScript } from '../../src/codegen/index.js';
import { corpus } from './corpus.js';

const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim();

describe('schemaToTypeScript corpus', () => {
  it('has at least 40 hard schemas', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
  });

  for (const c of corpus) {
    it(`prints the expected type: ${c.name}`, async () => {
      const { text, warnings } = await schemaToTypeScript(c.schema);
      expect(normalize(text)).toBe(normalize(c.expected));
      const expectedWarnings = c.warnings ?? [];
      expect(warnings.map((w) => `${w.path}: ${w.message}`)).toHaveLength(expectedWarnings.length);
      expectedWarnings.forEach((fragment, i) => expect(`${warnings[i]?.path}: ${warnings[i]?.message}`).toContain(fragment));
    });
  }

  it('compiles every case under strict, accepting and rejecting the sample values', async () => {
    const parts: string[] = [];
    for (const [i, c] of corpus.entries()) {
      const { text } = await schemaToTypeScript(c.schema);
      parts.push(`namespace C${i} {\n${text}\n}`);
      (c.accepts ?? []).forEach((v, j) => parts.push(`const c${i}_accept${j}: C${i}.Input = ${JSON.stringify(v)};`));
      (c.rejects ?? []).forEach((v, j) =>
        parts.push(
          `// @ts-expect-error ${c.name} must reject ${JSON.stringify(v).slice(0, 60)}\nconst c${i}_reject${j}: C${i}.Input = ${JSON.stringify(v)};`,
        ),
      );
    }
    parts.push('export {};');
    const diagnostics = await checkTypeScript({ '/corpus.ts': parts.join('\n') });
    expect(diagnostics).toEqual([]);
    const exact = await checkTypeScript({ '/corpus.ts': parts.join('\n') }, { exactOptionalPropertyTypes: true });
    expect(exact).toEqual([]);
  });
});
