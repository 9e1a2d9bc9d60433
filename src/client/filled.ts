/** Apart from credentials.ts so a server can be started early without loading the config schemas (zod). */

/** The plain entries of an env or headers map, with the asked ones filled in (an asked entry without a value is left out). */
export function filled(
  values: Record<string, string | object> | undefined,
  asked: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    const given = typeof value === 'string' ? value : asked?.[key];
    if (given !== undefined) out[key] = given;
  }
  return out;
}
