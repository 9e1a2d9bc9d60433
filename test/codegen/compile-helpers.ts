/** In-memory compilation of generated files against the real client runtime source. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkTypeScript, type CheckOptions, type GeneratedFile, type TypeDiagnostic } from '../../src/codegen/index.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** The runtime a generated client imports as `mcpx`, from the real sources, plus the one DOM/Node global it names. */
export function runtimeFiles(): Record<string, string> {
  return {
    '/mcpx/index.ts': "export * from './codegen/client-runtime.js';\nexport { McpxError, isMcpxError } from './errors.js';\n",
    '/mcpx/codegen/client-runtime.ts': readFileSync(join(src, 'codegen', 'client-runtime.ts'), 'utf8'),
    '/mcpx/errors.ts': readFileSync(join(src, 'errors.ts'), 'utf8'),
    '/mcpx/secrets/redact.ts': readFileSync(join(src, 'secrets', 'redact.ts'), 'utf8'),
    '/globals.d.ts': 'interface AbortSignal { readonly aborted: boolean }\n',
  };
}

/** Compiles generated files (under /gen/) with extra files, the runtime mapped as `mcpx`. */
export async function compileGenerated(
  files: GeneratedFile[],
  extra: Record<string, string> = {},
  options: CheckOptions = {},
): Promise<TypeDiagnostic[]> {
  const all: Record<string, string> = { ...runtimeFiles(), ...extra };
  for (const f of files) all[`/gen/${f.path}`] = f.text;
  return checkTypeScript(all, { paths: { mcpx: '/mcpx/index.ts' }, ...options });
}
