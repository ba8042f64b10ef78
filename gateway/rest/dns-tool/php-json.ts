/**
 * PHP's `json_encode($value, JSON_PRETTY_PRINT)`, byte for byte, as the original tool wrote every answer: 4-space
 * indentation, `"key": value`, `/` escaped as `\/`, every non-ASCII character as `\uXXXX` (lower-case hex, UTF-16
 * surrogate pairs beyond the BMP), control characters as `\u00XX` except the short escapes, `[]` for an empty
 * list and `{}` for an empty object. Values here are what the tool answers with: strings, integers, booleans,
 * null, lists and objects (a PHP array with string keys).
 */
export type PhpJson = string | number | boolean | null | readonly PhpJson[] | { readonly [key: string]: PhpJson };

const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** What json_encode escapes: `"`, `\\`, `/`, control characters and everything outside ASCII (each UTF-16 unit). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
const ESCAPED = /["\\/\u0000-\u001f\u0080-\uffff]/g;

function escapeChar(ch: string): string {
  return SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function phpString(text: string): string {
  // Most values (names, addresses, TTLs) need no escape: one regex test instead of a walk over every character.
  ESCAPED.lastIndex = 0;
  return ESCAPED.test(text) ? `"${text.replace(ESCAPED, escapeChar)}"` : `"${text}"`;
}

function encode(value: PhpJson, indent: string): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return phpString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('PHP cannot encode a non-finite number');
    return String(value);
  }
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    const items = value as readonly PhpJson[];
    if (items.length === 0) return '[]';
    return `[\n${items.map((v) => inner + encode(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as { readonly [key: string]: PhpJson });
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${phpString(k)}: ${encode(v, inner)}`).join(',\n')}\n${indent}}`;
}

/** `json_encode($value, JSON_PRETTY_PRINT)`. */
export function phpPrettyJson(value: PhpJson): string {
  return encode(value, '');
}
