/**
 * Domain names in the model form: absolute, lower case, ASCII (internationalised labels as punycode), without the
 * trailing dot; the root is "". `normalizeName` turns user and zone-file input into that form.
 */
import { domainToASCII } from 'node:url';

/** Longest name in presentation form without the trailing dot (255 octets on the wire). */
export const MAX_NAME_LENGTH = 253;
/** Longest label in octets. */
export const MAX_LABEL_LENGTH = 63;

/** A name that cannot be used. `reason` is the message without the leading `Invalid name "…":`. */
export class NameError extends Error {
  override readonly name = 'NameError';
  readonly field = 'name';
  constructor(
    readonly input: string,
    readonly reason: string,
  ) {
    super(`Invalid name ${JSON.stringify(input)}: ${reason}`);
  }
}

/**
 * How names without a trailing dot are read.
 * - `api` (default): `@` is the origin; a name that already ends with the origin (or equals it) is taken as
 *   absolute; any other name without a trailing dot is relative to the origin.
 * - `master`: RFC 1035 master-file rules: every name without a trailing dot is relative to the origin.
 * Without an origin, every name is absolute.
 */
export type NameSyntax = 'api' | 'master';

export interface NameOptions {
  syntax?: NameSyntax;
  /**
   * Keep the letter case of the input (and of the origin) instead of lowering it: the name as its master file or
   * UPDATE gave it, which BIND answers with. Checks are the same; only the model form is used for lookups.
   */
  keepCase?: boolean;
}

const LABEL_RE = /^[a-z0-9_-]+$/;
const ALLOWED = 'allowed are letters, digits, hyphen, underscore, and "*" alone as the leftmost label (wildcard)';

function convertLabel(input: string, label: string, keepCase: boolean): string {
  if (label === '') throw new NameError(input, 'empty label (two dots in a row, or a leading dot)');
  let ascii: string;
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(label)) {
    ascii = domainToASCII(label);
    if (ascii === '')
      throw new NameError(input, `label ${JSON.stringify(label)} is not a valid internationalised label`);
  } else {
    ascii = label.toLowerCase();
  }
  if (ascii === '*') return ascii;
  if (ascii.includes('*')) {
    throw new NameError(
      input,
      `"*" is only allowed as a whole label, the leftmost one (wildcard), not in ${JSON.stringify(label)}`,
    );
  }
  if (keepCase && ascii === label.toLowerCase()) ascii = label;
  if (!LABEL_RE.test(ascii.toLowerCase())) {
    const bad = [...ascii].find((c) => !/[a-zA-Z0-9_-]/.test(c)) ?? '?';
    throw new NameError(
      input,
      `label ${JSON.stringify(label)} contains ${JSON.stringify(bad)}, which is not allowed; ${ALLOWED}`,
    );
  }
  if (ascii.length > MAX_LABEL_LENGTH) {
    throw new NameError(
      input,
      `label ${JSON.stringify(label)} is ${ascii.length} octets long; at most ${MAX_LABEL_LENGTH} are allowed`,
    );
  }
  if (ascii.startsWith('-') || ascii.endsWith('-')) {
    throw new NameError(input, `label ${JSON.stringify(label)} must not start or end with a hyphen`);
  }
  return ascii;
}

/** The labels of `text` (no trailing dot), converted to ASCII (lower case unless `keepCase`) and checked one by one. */
function convertLabels(input: string, text: string, keepCase: boolean): string[] {
  return text.split('.').map((label) => convertLabel(input, label, keepCase));
}

function normalizeOrigin(origin: string | undefined, keepCase: boolean): string | undefined {
  if (origin === undefined) return undefined;
  if (origin === '' || origin === '.') return '';
  return normalizeName(origin, undefined, { keepCase });
}

/**
 * Normalises a name: `@` (the origin), a name relative to `origin`, or an absolute name with or without the
 * trailing dot (see {@link NameSyntax}). Returns the model form (no trailing dot, root = ""). Throws
 * {@link NameError} naming what is wrong.
 */
export function normalizeName(input: string, origin?: string, options: NameOptions = {}): string {
  if (typeof input !== 'string')
    throw new NameError(
      typeof input === 'object' || typeof input === 'function' ? `(${typeof input})` : String(input),
      'a name must be a string',
    );
  if (input === '') throw new NameError(input, 'the name is empty');
  const keepCase = options.keepCase ?? false;
  const base = normalizeOrigin(origin, keepCase);
  if (input === '@') {
    if (base === undefined) throw new NameError(input, '"@" stands for the zone origin, and there is none here');
    return base;
  }
  if (input === '.') return '';
  let text = input;
  if (input.includes('\\')) {
    if (options.syntax !== 'master') throw new NameError(input, 'escaped characters (\\) are not supported in names');
    text = unescapeName(input);
  }
  const absolute = text.endsWith('.');
  const labels = convertLabels(input, absolute ? text.slice(0, -1) : text, keepCase);
  let name = labels.join('.');
  if (!absolute && base !== undefined && base !== '') {
    const syntax = options.syntax ?? 'api';
    const alreadyAbsolute = syntax === 'api' && isInZone(name.toLowerCase(), base.toLowerCase());
    if (!alreadyAbsolute) name = `${name}.${base}`;
  }
  const all = splitLabels(name);
  const star = all.indexOf('*', 1);
  if (star > 0) {
    throw new NameError(input, `the wildcard "*" must be the leftmost label (it is label ${star + 1} of "${name}")`);
  }
  if (name.length > MAX_NAME_LENGTH) {
    throw new NameError(
      input,
      `the name is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are allowed (255 octets on the wire)`,
    );
  }
  return name;
}

/** Characters an escape in a master-file name may stand for: those a label here can hold. */
const NAME_CHARACTER = /^[A-Za-z0-9_-]$/;

/**
 * A master-file name with its escapes (RFC 1035 §5.1: `\X` and `\DDD`) replaced by the characters they stand for
 * (`\065bc` is `Abc`). An escape may only stand for a character a label here can hold: a "." inside a label
 * (`a\.b`), a space or a byte outside ASCII is an error naming the escape.
 */
function unescapeName(input: string): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const c = input.charAt(i);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const digits = /^[0-9]{3}/.exec(input.slice(i + 1, i + 4))?.[0];
    const escape = digits === undefined ? input.slice(i, i + 2) : `\\${digits}`;
    if (escape.length < 2) throw new NameError(input, 'the name ends with a lone "\\"');
    const code = digits === undefined ? input.charCodeAt(i + 1) : Number(digits);
    const character = String.fromCharCode(code);
    if (code > 255) throw new NameError(input, `the escape "${escape}" is above 255, the largest octet`);
    if (!NAME_CHARACTER.test(character)) {
      const what =
        character === '.'
          ? 'a "." inside a label'
          : character === '*'
            ? 'a literal "*" (not a wildcard)'
            : `the octet ${code}`;
      throw new NameError(input, `the escape "${escape}" stands for ${what}, which names here cannot hold; ${ALLOWED}`);
    }
    out += character;
    i += escape.length - 1;
  }
  return out;
}

/**
 * `true` when `name` is `zone` or below it (both in model form, or both lower case in the same form). Every name is
 * in the root zone "". No string is built: the DNS server calls it for every step of every answer.
 */
export function isInZone(name: string, zone: string): boolean {
  if (zone === '' || name === zone) return true;
  const dot = name.length - zone.length - 1;
  return dot >= 0 && name.charCodeAt(dot) === 0x2e && name.endsWith(zone);
}

/**
 * A name as a DNS message or a key file writes it, in the form the zone index and key tables use: lower case, no
 * trailing dot, the root "" ('.' in dns-packet's text). No other check: wire names are not model-form input.
 */
export function wireName(name: string): string {
  if (name === '.') return '';
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** `name` relative to `zone`: `@` for the apex, the relative part inside the zone, else the FQDN with its dot. */
export function relativeName(name: string, zone: string): string {
  if (name === zone) return '@';
  if (!isInZone(name, zone)) return toFqdn(name);
  return zone === '' ? name : name.slice(0, -(zone.length + 1));
}

/** The ancestors of `name`, nearest first, without `name` itself and without the root. */
export function parentNames(name: string): string[] {
  const labels = splitLabels(name);
  const out: string[] = [];
  for (let i = 1; i < labels.length; i++) out.push(labels.slice(i).join('.'));
  return out;
}

/** Adds the trailing dot: `example.com` → `example.com.`, root → `.`. */
export function toFqdn(name: string): string {
  return name === '' ? '.' : `${name}.`;
}

/** Labels of a model-form name, leftmost first; the root has none. */
export function splitLabels(name: string): string[] {
  return name === '' ? [] : name.split('.');
}

/** Inverse of {@link splitLabels}. */
export function joinLabels(labels: readonly string[]): string {
  return labels.join('.');
}

/** `true` for `*.something`. */
export function isWildcardName(name: string): boolean {
  return name === '*' || name.startsWith('*.');
}
