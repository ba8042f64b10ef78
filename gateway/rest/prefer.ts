/**
 * The `Prefer` request header (RFC 7240): the client's preferences, which a server honours or ignores — never an
 * error. What does not parse, what is unknown and a preference given twice after its first time are ignored (§2).
 */

/** One preference: its value (null when none or empty) and its parameters (lower-case names). */
export interface Preference {
  value: string | null;
  params: ReadonlyMap<string, string | null>;
}

// RFC 7230 §3.2.6: a token, and a quoted-string with its quoted pairs.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const WORD = new RegExp(`^(?:${TOKEN}|${QUOTED})$`);
const TOKEN_ONLY = new RegExp(`^${TOKEN}$`);

/** Splits `text` at `separator` outside quoted strings. */
function split(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted && c === '\\') {
      current += c + text.charAt(i + 1);
      i++;
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/** `name [= word]` with white space around `=` (BWS); undefined when it is not that. */
function pair(text: string): [string, string | null] | undefined {
  const at = text.indexOf('=');
  const name = (at < 0 ? text : text.slice(0, at)).trim();
  if (!TOKEN_ONLY.test(name)) return undefined;
  if (at < 0) return [name.toLowerCase(), null];
  const raw = text.slice(at + 1).trim();
  if (raw === '') return [name.toLowerCase(), null]; // an empty value is no value (§2)
  if (!WORD.test(raw)) return undefined;
  const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  return [name.toLowerCase(), value === '' ? null : value];
}

/** The preferences of every `Prefer` header of a request, by lower-case name, each as its first occurrence has it. */
export function preferences(header: string | readonly string[] | undefined): Map<string, Preference> {
  const found = new Map<string, Preference>();
  const headers = header === undefined ? [] : typeof header === 'string' ? [header] : header;
  for (const element of headers.flatMap((h) => split(h, ','))) {
    const [head = '', ...rest] = split(element, ';');
    if (head.trim() === '') continue; // an empty list element (RFC 7230 §7)
    const preference = pair(head);
    if (!preference || found.has(preference[0])) continue;
    const params = new Map<string, string | null>();
    for (const text of rest) {
      const param = text.trim() === '' ? undefined : pair(text);
      if (param && !params.has(param[0])) params.set(param[0], param[1]);
    }
    found.set(preference[0], { value: preference[1], params });
  }
  return found;
}

/**
 * Whether the client prefers an asynchronous answer (RFC 7240 §4.1): `respond-async`, any case, its parameters
 * ignored. It takes no value: one with a value is not that preference, so it is ignored like any other unknown one.
 */
export function prefersAsync(header: string | readonly string[] | undefined): boolean {
  const preference = preferences(header).get('respond-async');
  return preference !== undefined && preference.value === null;
}
