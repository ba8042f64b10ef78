/**
 * Types whose values are or contain names: CNAME, DNAME, NS, PTR, MX, SRV, NAPTR, SOA — and SOA's RNAME mailbox.
 * Names inside values are read relative to the origin (see `NameSyntax`) and written FQDN with a trailing dot.
 */
import type { Answer } from 'dns-packet';
import { NameError, type NameOptions, normalizeName, type RecordType } from '../model';
import {
  dataObject,
  expectTokens,
  nameField,
  nameFromWire,
  stringFromWire,
  uintField,
  uintFromWire,
  wireName,
  type NameFormat,
  type ParseContext,
  type Token,
  type TypeCodec,
} from './codec';
import { RecordValueError } from './errors';
import { checkNaptrRegexp } from './naptr-regexp';
import { formatCharString, isPrintableAscii, tokens } from './presentation';
import { MAX_UINT32, parseDuration } from './ttl';

// ---------------------------------------------------------------------------------------------------------------
// Single-name types

function singleName(type: 'CNAME' | 'DNAME' | 'NS' | 'PTR', what: string): TypeCodec<string> {
  const usage = `<${what} name>`;
  return {
    usage,
    parse(ctx) {
      const t = tokens(ctx);
      expectTokens(t, 1, ctx, usage);
      return nameField(t[0], ctx, what);
    },
    format: (name, fmt) => fmt(name),
    toAnswer: (name, base): Answer => ({
      name: base.name,
      ttl: base.ttl,
      class: base.class,
      type,
      data: wireName(name),
    }),
    fromData: (data) => nameFromWire(data, type, what),
  };
}

export const CNAME = singleName('CNAME', 'target');
export const DNAME = singleName('DNAME', 'target');
export const NS = singleName('NS', 'name server');
export const PTR = singleName('PTR', 'target');

// ---------------------------------------------------------------------------------------------------------------
// MX, SRV

export interface MxFields {
  preference: number;
  exchange: string;
}

const MX_USAGE = '<preference 0-65535> <exchange name>';

export const MX: TypeCodec<MxFields> = {
  usage: MX_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectTokens(t, 2, ctx, MX_USAGE);
    return { preference: uintField(t[0], ctx, 'preference', 65535), exchange: nameField(t[1], ctx, 'exchange') };
  },
  format: (f, fmt) => `${f.preference} ${fmt(f.exchange)}`,
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'MX',
    data: { preference: f.preference, exchange: wireName(f.exchange) },
  }),
  fromData(data) {
    const d = dataObject(data, 'MX');
    return {
      preference: uintFromWire(d.preference, 'MX', 'preference', 65535),
      exchange: nameFromWire(d.exchange, 'MX', 'exchange'),
    };
  },
};

export interface SrvFields {
  priority: number;
  weight: number;
  port: number;
  target: string;
}

const SRV_USAGE = '<priority 0-65535> <weight 0-65535> <port 0-65535> <target name>';

export const SRV: TypeCodec<SrvFields> = {
  usage: SRV_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectTokens(t, 4, ctx, SRV_USAGE);
    return {
      priority: uintField(t[0], ctx, 'priority', 65535),
      weight: uintField(t[1], ctx, 'weight', 65535),
      port: uintField(t[2], ctx, 'port', 65535),
      target: nameField(t[3], ctx, 'target'),
    };
  },
  format: (f, fmt) => `${f.priority} ${f.weight} ${f.port} ${fmt(f.target)}`,
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'SRV',
    data: { priority: f.priority, weight: f.weight, port: f.port, target: wireName(f.target) },
  }),
  fromData(data) {
    const d = dataObject(data, 'SRV');
    return {
      priority: uintFromWire(d.priority, 'SRV', 'priority', 65535),
      weight: uintFromWire(d.weight, 'SRV', 'weight', 65535),
      port: uintFromWire(d.port, 'SRV', 'port', 65535),
      target: nameFromWire(d.target, 'SRV', 'target'),
    };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// NAPTR (RFC 3403)

export interface NaptrFields {
  order: number;
  preference: number;
  /** Upper case, letters and digits only. */
  flags: string;
  services: string;
  regexp: string;
  replacement: string;
}

const NAPTR_USAGE = '<order 0-65535> <preference 0-65535> "<flags>" "<services>" "<regexp>" <replacement name or .>';

function naptrString(value: string, type: RecordType, field: string): string {
  const bytes = Buffer.from(value, 'utf8');
  if (!isPrintableAscii(bytes))
    throw new RecordValueError(`${type} ${field} must be printable ASCII (got ${formatCharString(bytes)})`);
  if (bytes.length > 255)
    throw new RecordValueError(`${type} ${field} is ${bytes.length} octets long; at most 255 are allowed`);
  return value;
}

function naptrFlags(value: string, type: RecordType): string {
  if (!/^[A-Za-z0-9]*$/.test(value))
    throw new RecordValueError(
      `${type} flags must be letters and digits only, like "U", "S", "A" or "P" (got ${JSON.stringify(value)})`,
    );
  return value.toUpperCase();
}

function naptrCheck(f: NaptrFields, type: RecordType): NaptrFields {
  checkNaptrRegexp(f.regexp, type);
  if (f.regexp !== '' && f.replacement !== '') {
    throw new RecordValueError(
      `${type} regexp and replacement exclude each other (RFC 3403): with a regexp, the replacement must be "."`,
    );
  }
  return f;
}

function tokenText(t: Token, ctx: ParseContext, field: string): string {
  const bytes = t.bytes;
  if (!isPrintableAscii(bytes))
    throw new RecordValueError(`${ctx.type} ${field} must be printable ASCII (got ${formatCharString(bytes)})`);
  return naptrString(bytes.toString('latin1'), ctx.type, field);
}

export const NAPTR: TypeCodec<NaptrFields> = {
  usage: NAPTR_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectTokens(t, 6, ctx, NAPTR_USAGE);
    return naptrCheck(
      {
        order: uintField(t[0], ctx, 'order', 65535),
        preference: uintField(t[1], ctx, 'preference', 65535),
        flags: naptrFlags(tokenText(t[2], ctx, 'flags'), ctx.type),
        services: tokenText(t[3], ctx, 'services'),
        regexp: tokenText(t[4], ctx, 'regexp'),
        replacement: nameField(t[5], ctx, 'replacement'),
      },
      ctx.type,
    );
  },
  format: (f, fmt) =>
    [
      f.order,
      f.preference,
      formatCharString(Buffer.from(f.flags, 'latin1')),
      formatCharString(Buffer.from(f.services, 'latin1')),
      formatCharString(Buffer.from(f.regexp, 'latin1')),
      f.replacement === '' ? '.' : fmt(f.replacement),
    ].join(' '),
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'NAPTR',
    data: {
      order: f.order,
      preference: f.preference,
      flags: f.flags,
      services: f.services,
      regexp: f.regexp,
      replacement: wireName(f.replacement),
    },
  }),
  fromData(data) {
    const d = dataObject(data, 'NAPTR');
    return naptrCheck(
      {
        order: uintFromWire(d.order, 'NAPTR', 'order', 65535),
        preference: uintFromWire(d.preference, 'NAPTR', 'preference', 65535),
        flags: naptrFlags(naptrString(stringFromWire(d.flags, 'NAPTR', 'flags'), 'NAPTR', 'flags'), 'NAPTR'),
        services: naptrString(stringFromWire(d.services, 'NAPTR', 'services'), 'NAPTR', 'services'),
        regexp: naptrString(stringFromWire(d.regexp, 'NAPTR', 'regexp'), 'NAPTR', 'regexp'),
        replacement: nameFromWire(d.replacement, 'NAPTR', 'replacement'),
      },
      'NAPTR',
    );
  },
};

// ---------------------------------------------------------------------------------------------------------------
// SOA and its mailbox

/**
 * An SOA RNAME (responsible mailbox) in model form: a name whose first label may contain dots escaped as `\.`
 * (`john\.doe.example.com` is john.doe@example.com). In the `api` syntax an e-mail address is accepted too.
 * Other escapes are not supported. Throws {@link NameError}.
 */
export function normalizeMailbox(input: string, origin?: string, options: NameOptions = {}): string {
  if (typeof input === 'string' && (options.syntax ?? 'api') === 'api' && input !== '@' && input.includes('@')) {
    return emailToRname(input);
  }
  if (typeof input !== 'string' || !input.includes('\\')) return normalizeName(input, origin, options);
  // Split at the first dot that is not escaped.
  let k = -1;
  for (let i = 0; i < input.length; i++) {
    if (input[i] === '\\') {
      if (input[i + 1] !== '.')
        throw new NameError(
          input,
          'escaped characters are not supported in a mailbox name, except "\\." in its first label',
        );
      i++;
    } else if (input[i] === '.') {
      k = i;
      break;
    }
  }
  const local = k === -1 ? input : input.slice(0, k);
  const rest = k === -1 ? undefined : input.slice(k + 1);
  if (rest !== undefined && rest.includes('\\'))
    throw new NameError(input, '"\\." is only supported in the first label of a mailbox name');
  const parts = local.split('\\.');
  const checked = parts.map((p) => {
    if (p === '')
      throw new NameError(
        input,
        'the local part of the mailbox has an empty part (a dot at its start or end, or two in a row)',
      );
    // Each dot-separated part follows the label rules.
    try {
      return normalizeName(`${p}.`);
    } catch (e) {
      if (e instanceof NameError) throw new NameError(input, `in the local part: ${e.reason}`);
      throw e;
    }
  });
  if (checked.some((p) => p.includes('.') || p.includes('*')))
    throw new NameError(input, 'the local part of the mailbox has characters that are not allowed');
  const localLen = checked.join('.').length;
  if (localLen > 63) throw new NameError(input, `the first label is ${localLen} octets long; at most 63 are allowed`);
  let restName: string;
  if (rest === undefined) restName = origin === undefined ? '' : normalizeName('@', origin);
  else if (rest === '') restName = '';
  else restName = normalizeName(rest, origin, options);
  const escaped = checked.join('\\.');
  const name = restName === '' ? escaped : `${escaped}.${restName}`;
  const octets = localLen + (restName === '' ? 0 : restName.length + 1);
  if (octets > 253)
    throw new NameError(
      input,
      `the name is ${octets} characters long; at most 253 are allowed (255 octets on the wire)`,
    );
  return name;
}

/** `john.doe@example.com` → `john\.doe.example.com` (model form, no trailing dot). Throws {@link NameError}. */
export function emailToRname(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1)
    throw new NameError(email, 'an e-mail address must look like user@example.com');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.includes('\\') || local.includes('@'))
    throw new NameError(email, 'the local part of the e-mail address has characters that are not allowed');
  return normalizeMailbox(
    `${local.split('.').join('\\.')}.${domain.endsWith('.') ? domain : `${domain}.`}`,
    undefined,
    { syntax: 'master' },
  );
}

/** `john\.doe.example.com` → `john.doe@example.com`. */
export function rnameToEmail(rname: string): string {
  const { local, rest } = splitMailbox(rname);
  return rest === '' ? local.split('\\.').join('.') : `${local.split('\\.').join('.')}@${rest}`;
}

function splitMailbox(rname: string): { local: string; rest: string } {
  const m = /^((?:[^.\\]|\\.)*)(?:\.(.*))?$/.exec(rname);
  return { local: m?.[1] ?? rname, rest: m?.[2] ?? '' };
}

function formatMailbox(rname: string, fmt: NameFormat): string {
  if (!rname.includes('\\')) return fmt(rname);
  const { local, rest } = splitMailbox(rname);
  const r = fmt(rest);
  if (r === '@') return local;
  if (r === '.') return `${local}.`;
  return `${local}.${r}`;
}

export interface SoaFields {
  /** Primary name server, model form. */
  mname: string;
  /** Responsible mailbox, model form (`hostmaster.example.com`; see {@link normalizeMailbox}). */
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

const SOA_USAGE = '<primary name server> <responsible mailbox> <serial> <refresh> <retry> <expire> <minimum>';
const SOA_TIMERS = ['refresh', 'retry', 'expire', 'minimum'] as const;

function soaTimer(t: Token, field: string): number {
  const n = t.quoted ? null : parseDuration(t.raw);
  if (n === null || n > MAX_UINT32) {
    throw new RecordValueError(
      `SOA ${field} must be a number of seconds from 0 to ${MAX_UINT32} or a duration like 1h (got ${JSON.stringify(t.raw)})`,
    );
  }
  return n;
}

export const SOA: TypeCodec<SoaFields> = {
  usage: SOA_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectTokens(t, 7, ctx, SOA_USAGE);
    let rname: string;
    try {
      if (t[1].quoted) throw new NameError(t[1].raw, 'a name must not be quoted');
      rname = normalizeMailbox(t[1].raw, ctx.origin, { syntax: ctx.syntax });
    } catch (e) {
      if (e instanceof NameError)
        throw new RecordValueError(`SOA responsible mailbox ${JSON.stringify(t[1].raw)} is not valid: ${e.reason}`);
      throw e;
    }
    return {
      mname: nameField(t[0], ctx, 'primary name server'),
      rname,
      serial: uintField(t[2], ctx, 'serial', MAX_UINT32),
      refresh: soaTimer(t[3], 'refresh'),
      retry: soaTimer(t[4], 'retry'),
      expire: soaTimer(t[5], 'expire'),
      minimum: soaTimer(t[6], 'minimum'),
    };
  },
  format: (f, fmt) =>
    [fmt(f.mname), formatMailbox(f.rname, fmt), f.serial, f.refresh, f.retry, f.expire, f.minimum].join(' '),
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'SOA',
    data: {
      mname: wireName(f.mname),
      rname: wireName(f.rname),
      serial: f.serial,
      refresh: f.refresh,
      retry: f.retry,
      expire: f.expire,
      minimum: f.minimum,
    },
  }),
  fromData(data) {
    const d = dataObject(data, 'SOA');
    const rnameText = stringFromWire(d.rname, 'SOA', 'rname');
    let rname: string;
    try {
      rname =
        rnameText === '.'
          ? ''
          : normalizeMailbox(rnameText.endsWith('.') ? rnameText : `${rnameText}.`, undefined, { syntax: 'master' });
    } catch (e) {
      if (e instanceof NameError)
        throw new RecordValueError(`SOA rname from the wire is not a valid mailbox name: ${e.reason}`);
      throw e;
    }
    const fields: SoaFields = {
      mname: nameFromWire(d.mname, 'SOA', 'mname'),
      rname,
      serial: uintFromWire(d.serial, 'SOA', 'serial', MAX_UINT32),
      refresh: 0,
      retry: 0,
      expire: 0,
      minimum: 0,
    };
    for (const k of SOA_TIMERS) fields[k] = uintFromWire(d[k], 'SOA', k, MAX_UINT32);
    return fields;
  },
};
