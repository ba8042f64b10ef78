/** RFC 1035 master files → SOA + validated records. */
import { runAtOnce, runInSteps } from '../../platform/async';
import { NameError, normalizeName, RECORD_TYPES, type RecordData, toFqdn } from '../model';
import {
  RecordValueError,
  parseSoa,
  parseTtl,
  parseType,
  parseValue,
  validateRecord,
  validateTtl,
  type SoaFields,
} from '../records';
import { lexZoneFile, ZoneFileError, type Entry } from './lexer';

export { ZoneFileError } from './lexer';

export interface ZoneSoa extends SoaFields {
  ttl: number;
}

export interface ParsedZone {
  soa: ZoneSoa | null;
  records: RecordData[];
}

export interface ParseZoneOptions {
  /** The zone (model form or with trailing dot); also the initial `$ORIGIN`. */
  origin: string;
  /** TTL for records without one, as if the file started with `$TTL defaultTtl`. */
  defaultTtl?: number;
}

const CLASSES = new Set(['IN', 'CH', 'CS', 'HS', 'ANY', 'NONE']);

/** Types whose value holds domain names and numbers only: values differing in letter case are the same record. */
const NAME_VALUED = new Set(['NS', 'CNAME', 'DNAME', 'PTR', 'MX', 'SRV']);

/**
 * What makes two records the same one (RFC 2181 §5, BIND's comparison): owner name, type and value, names compared
 * without regard to case; the TTL does not count (the first record's stays).
 */
function identity(r: RecordData): string {
  return `${r.name.toLowerCase()}\u0000${r.type}\u0000${NAME_VALUED.has(r.type) ? r.value.toLowerCase() : r.value}`;
}

/** Characters that mean the same escaped or not, wherever they stand in a master file (no '*', '@', '.', '\\'). */
const PLAIN = /^[A-Za-z0-9_-]$/;

/**
 * `text` (an unquoted token) with the escapes of plain characters (`\065` or `\A` for `A`) written as those
 * characters, as BIND reads them; other escapes (`\.`, `\032`, `\\`) stay for the field's parser.
 */
function plainEscapes(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const digits = /^[0-9]{3}/.exec(text.slice(i + 1))?.[0];
    const decoded = digits !== undefined ? String.fromCharCode(Number(digits)) : text.charAt(i + 1);
    const length = digits !== undefined ? 4 : 2;
    out += PLAIN.test(decoded) ? decoded : text.slice(i, i + length);
    i += length - 1;
  }
  return out;
}

function wrap<T>(line: number, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ZoneFileError) throw e;
    if (e instanceof RecordValueError || e instanceof NameError) throw new ZoneFileError(line, e.message);
    throw e;
  }
}

/**
 * Parses a master file. Supports `$ORIGIN`, `$TTL`, `@`, relative names, a blank owner (= the previous one), TTL
 * and class in either order, parentheses, comments, quoted strings, TTL units. Refuses `$INCLUDE`, `$GENERATE`,
 * classes other than IN and unsupported types. TTL of a record without one: `$TTL` (or `defaultTtl`), else the
 * last TTL given (RFC 1035), else an error. Every record is validated; errors are {@link ZoneFileError}s naming
 * the line.
 */
export function parseZoneFile(text: string, options: ParseZoneOptions): ParsedZone {
  return runAtOnce(parsing(text, options));
}

/** Entries of a master file read between two turns of the event loop's check (see parseZoneFileInSteps). */
const ENTRIES_PER_CHECK = 256;
/** A step of parsing runs at most this long before it lets the loop run (ms). */
const STEP_MS = 5;

/**
 * `parseZoneFile` in steps of at most STEP_MS, letting the event loop run between them: a master file of 100 000
 * records takes seconds to read and check, and the API that imports it keeps answering meanwhile.
 */
export async function parseZoneFileInSteps(text: string, options: ParseZoneOptions): Promise<ParsedZone> {
  return runInSteps(parsing(text, options), { stepMs: STEP_MS });
}

/** The parser, yielding every ENTRIES_PER_CHECK entries; returns what it read. */
function* parsing(text: string, options: ParseZoneOptions): Generator<undefined, ParsedZone, undefined> {
  const zone = wrap(0, () =>
    normalizeName(options.origin.endsWith('.') || options.origin === '' ? options.origin || '.' : `${options.origin}.`),
  );
  let origin = zone;
  /** `origin` in the letter case the options or `$ORIGIN` gave it: relative names take that case, as in BIND. */
  let givenOrigin = wrap(0, () =>
    normalizeName(
      options.origin.endsWith('.') || options.origin === '' ? options.origin || '.' : `${options.origin}.`,
      undefined,
      {
        keepCase: true,
      },
    ),
  );
  /** RRset (owner name, type) → its owner name as first given: BIND keeps one case per RRset, the first loaded. */
  const ownerCase = new Map<string, string>();
  let previousGiven = '';
  let defaultTtl: number | undefined =
    options.defaultTtl === undefined ? undefined : wrap(0, () => validateTtl(options.defaultTtl));
  let lastTtl: number | undefined;
  let previousOwner: string | undefined;
  let soa: ZoneSoa | null = null;
  const records: RecordData[] = [];
  /** Records read so far, by `identity`: a record given again is dropped (RFC 2181 §5), as BIND drops it. */
  const seen = new Set<string>();

  const directive = (e: Entry): void => {
    const [head, ...args] = e.tokens;
    const name = head.text.toUpperCase();
    const one = (): string => {
      const [arg, ...more] = args;
      if (arg === undefined || more.length > 0)
        throw new ZoneFileError(e.line, `${name} takes exactly one argument (got ${args.length})`);
      return arg.text;
    };
    if (name === '$ORIGIN') {
      const text = one();
      origin = wrap(e.line, () => normalizeName(text, origin, { syntax: 'master' }));
      givenOrigin = wrap(e.line, () => normalizeName(text, givenOrigin, { syntax: 'master', keepCase: true }));
    } else if (name === '$TTL') defaultTtl = wrap(e.line, () => parseTtl(one()));
    else if (name === '$INCLUDE')
      throw new ZoneFileError(e.line, '$INCLUDE is not supported: put the included records into this file');
    else throw new ZoneFileError(e.line, `directive ${head.text} is not supported (supported: $ORIGIN, $TTL)`);
  };

  let entries = 0;
  for (const e of lexZoneFile(text)) {
    if (++entries % ENTRIES_PER_CHECK === 0) yield;
    if (!e.blankOwner && e.tokens[0].text.startsWith('$') && !e.tokens[0].quoted) {
      directive(e);
      continue;
    }
    const toks = e.tokens.map((t) => (t.quoted ? t : { ...t, text: plainEscapes(t.text) })) as typeof e.tokens;
    let i = 0;
    let owner: string;
    let given: string;
    if (e.blankOwner) {
      if (previousOwner === undefined)
        throw new ZoneFileError(e.line, 'no owner name: the first record must start with a name in the first column');
      owner = previousOwner;
      given = previousGiven;
    } else {
      const ownerText = toks[0];
      if (ownerText.quoted)
        throw new ZoneFileError(e.line, `the owner name must not be quoted (got ${ownerText.text})`);
      owner = wrap(e.line, () => normalizeName(ownerText.text, origin, { syntax: 'master' }));
      given = wrap(e.line, () => normalizeName(ownerText.text, givenOrigin, { syntax: 'master', keepCase: true }));
      i = 1;
    }
    let ttl: number | undefined;
    let klass: string | undefined;
    while (ttl === undefined || klass === undefined) {
      const t = toks[i]?.text;
      if (t === undefined) break;
      if (ttl === undefined && /^[0-9]/.test(t)) ttl = wrap(e.line, () => parseTtl(t));
      else if (klass === undefined && CLASSES.has(t.toUpperCase())) {
        klass = t.toUpperCase();
        if (klass !== 'IN') throw new ZoneFileError(e.line, `class ${t} is not supported; only IN is`);
      } else break;
      i++;
    }
    const typeTok = toks[i];
    if (typeTok === undefined) throw new ZoneFileError(e.line, 'the record type is missing');
    if (typeTok.quoted || !(RECORD_TYPES as readonly string[]).includes(typeTok.text.toUpperCase())) {
      throw new ZoneFileError(
        e.line,
        `record type ${typeTok.text} is not supported; supported types are ${RECORD_TYPES.join(', ')}`,
      );
    }
    const type = parseType(typeTok.text);
    const valueText = toks
      .slice(i + 1)
      .map((t) => t.text)
      .join(' ');
    if (valueText === '') throw new ZoneFileError(e.line, `the ${type} record has no value`);
    if (ttl !== undefined) lastTtl = ttl;
    const effectiveTtl = ttl ?? defaultTtl ?? lastTtl;
    if (effectiveTtl === undefined)
      throw new ZoneFileError(e.line, 'no TTL: give one on the record, or a $TTL directive before it');
    previousOwner = owner;
    previousGiven = given;

    const value = wrap(e.line, () => parseValue(type, valueText, origin, { syntax: 'master' }));
    const record: RecordData = wrap(e.line, () =>
      validateRecord({ name: toFqdn(owner), type, ttl: effectiveTtl, value }, zone, { syntax: 'master' }),
    );
    const rrset = `${owner}\u0000${type}`;
    const givenName = ownerCase.get(rrset) ?? given;
    if (!ownerCase.has(rrset)) ownerCase.set(rrset, given);
    if (givenName !== record.name) record.givenName = givenName;
    const givenValue = wrap(e.line, () =>
      parseValue(type, valueText, givenOrigin, { syntax: 'master', keepCase: true }),
    );
    if (givenValue !== record.value) record.givenValue = givenValue;
    if (type === 'SOA') {
      if (soa !== null) throw new ZoneFileError(e.line, 'a second SOA record; a zone has exactly one');
      const fields = wrap(e.line, () => parseSoa(record.value, '', { syntax: 'master' }));
      soa = { ...fields, ttl: record.ttl };
    } else if (!seen.has(identity(record))) {
      seen.add(identity(record));
      records.push(record);
    }
  }
  return { soa, records };
}
