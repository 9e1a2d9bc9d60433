/**
 * Names for generated code: valid, stable and readable identifiers from tool and server names, which are
 * arbitrary strings on the wire. The original name is kept for the wire; these are only what a developer types.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Words that cannot name a variable, type or namespace (ES and TypeScript reserved or contextual-at-declaration). */
const RESERVED = new Set([
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'as',
  'implements',
  'interface',
  'let',
  'package',
  'private',
  'protected',
  'public',
  'static',
  'yield',
  'await',
  'any',
  'boolean',
  'number',
  'string',
  'symbol',
  'object',
  'never',
  'unknown',
  'undefined',
  'bigint',
  'type',
  'arguments',
  'eval',
]);

/**
 * Member names that misbehave on plain objects: `__proto__` in an object literal sets the prototype, and the others
 * would shadow what every object inherits. They get a trailing underscore.
 */
const UNSAFE_MEMBERS = new Set([
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/** Global type names a generated namespace must not shadow (the generated code and typical schemas use them). */
const GLOBAL_TYPES = new Set([
  'Array',
  'Boolean',
  'Date',
  'Error',
  'Function',
  'Map',
  'Number',
  'Object',
  'Omit',
  'Partial',
  'Pick',
  'Promise',
  'PromiseLike',
  'Readonly',
  'ReadonlyArray',
  'Record',
  'RegExp',
  'Required',
  'Set',
  'String',
  'Symbol',
  'JSON',
  'Math',
  'Exclude',
  'Extract',
  'NonNullable',
  'ReturnType',
  'Parameters',
  'Awaited',
  'Uppercase',
  'Lowercase',
  'Capitalize',
  'Uncapitalize',
  'Input',
  'Output',
  'Tools',
  'ToolCaller',
  'ToolCallOptions',
  'CallToolResult',
  'ContentBlock',
  'Question',
  'Answer',
  'ElicitHandler',
  'ToolError',
  'McpxTools',
  'Console',
  'AskQuestion',
]);

/** Whether `text` can stand bare as a property name (otherwise it is written as a string literal). */
export function isIdentifierName(text: string): boolean {
  return IDENTIFIER.test(text);
}

/** A property name as written in a type: bare when it can be, else a JSON string literal. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) && name !== '__proto__' ? name : JSON.stringify(name);
}

function words(name: string): string[] {
  // Split on anything that is not a letter or digit, and on lower→upper case boundaries kept inside words.
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);
}

/**
 * A member name for a tool or server: kept as is when it already is a plain identifier (`create_issue` stays
 * `create_issue`), else camelCase of its words (`read-file` → `readFile`, `my.server` → `myServer`); a leading
 * digit gets `_`, names objects inherit get a trailing `_`, and a name with no usable characters becomes `_`.
 */
export function memberName(name: string): string {
  let result: string;
  if (IDENTIFIER.test(name)) {
    result = name;
  } else {
    const parts = words(name);
    result = parts.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');
    if (result === '') result = '_';
  }
  if (/^[0-9]/.test(result)) result = `_${result}`;
  if (UNSAFE_MEMBERS.has(result)) result = `${result}_`;
  return result;
}

/** A PascalCase type name (`create_issue` → `CreateIssue`); never a reserved word nor a global type the code uses. */
export function typeName(name: string): string {
  const parts = words(name);
  let result = parts.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  if (result === '') result = 'T';
  if (/^[0-9]/.test(result)) result = `T${result}`;
  if (RESERVED.has(result) || GLOBAL_TYPES.has(result)) result = `${result}_`;
  return result;
}

/** A bare variable name (camelCase, never reserved). */
export function variableName(name: string): string {
  const member = memberName(name);
  return RESERVED.has(member) ? `${member}_` : member;
}

/**
 * Assigns unique names to a set of originals, stably: the result for a name does not depend on the order the
 * server listed them. A name whose conversion is itself keeps the bare name; the rest, in sorted order of their
 * originals, get `_2`, `_3`... on a clash. `taken` holds names already used in the same scope.
 */
export function assignNames(
  originals: readonly string[],
  convert: (name: string) => string,
  taken: Iterable<string> = [],
): Map<string, string> {
  const used = new Set(taken);
  const result = new Map<string, string>();
  const unique = [...new Set(originals)];
  const converted = new Map(unique.map((o) => [o, convert(o)]));
  // Originals that convert to themselves claim their names first, then the rest in code-point order.
  const ordered = unique.sort((a, b) => {
    const aExact = converted.get(a) === a ? 0 : 1;
    const bExact = converted.get(b) === b ? 0 : 1;
    return aExact - bExact || (a < b ? -1 : a > b ? 1 : 0);
  });
  for (const original of ordered) {
    const base = converted.get(original) ?? original;
    let candidate = base;
    for (let n = 2; used.has(candidate); n += 1) candidate = `${base}_${n}`;
    used.add(candidate);
    result.set(original, candidate);
  }
  return result;
}
