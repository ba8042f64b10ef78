/** CAA (RFC 8659), SSHFP (RFC 4255), TLSA (RFC 6698), DS (RFC 4034). Hex data is written in upper case. */
import type { Answer, CaaData } from 'dns-packet';
import {
  bufferFromWire,
  dataObject,
  expectAtLeast,
  expectTokens,
  stringFromWire,
  uintField,
  uintFromWire,
  usageError,
  type ParseContext,
  type TypeCodec,
} from './codec';
import { RecordValueError } from './errors';
import { formatCharString, hexField, isPrintableAscii, tokens } from './presentation';

// ---------------------------------------------------------------------------------------------------------------
// CAA

export interface CaaFields {
  flags: number;
  /** Lower case letters and digits: issue, issuewild, iodef, … */
  tag: string;
  /** Printable ASCII. */
  value: string;
}

const CAA_USAGE = '<flags 0-255> <tag> "<value>"';
const CAA_TAG = /^[a-z0-9]{1,15}$/;

function caaTag(tag: string): string {
  const t = tag.toLowerCase();
  if (!CAA_TAG.test(t)) {
    throw new RecordValueError(
      `CAA tag must be 1-15 letters and digits, like issue, issuewild or iodef (got ${JSON.stringify(tag)})`,
    );
  }
  return t;
}

function caaValue(bytes: Uint8Array): string {
  if (!isPrintableAscii(bytes))
    throw new RecordValueError(`CAA value must be printable ASCII (got ${formatCharString(bytes)})`);
  return Buffer.from(bytes).toString('latin1');
}

export const CAA: TypeCodec<CaaFields> = {
  usage: CAA_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    if (t.length > 3 && t[2]?.quoted === false) usageError(ctx, CAA_USAGE, 'put a value with spaces in double quotes');
    expectTokens(t, 3, ctx, CAA_USAGE);
    if (t[1].quoted) caaTag(`"${t[1].raw}"`);
    return { flags: uintField(t[0], ctx, 'flags', 255), tag: caaTag(t[1].raw), value: caaValue(t[2].bytes) };
  },
  format: (f) => `${f.flags} ${f.tag} ${formatCharString(Buffer.from(f.value, 'latin1'))}`,
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'CAA',
    // Any tag is encoded as given; the typings list only the three common ones.
    data: { flags: f.flags, tag: f.tag as CaaData['tag'], value: f.value },
  }),
  fromData(data) {
    const d = dataObject(data, 'CAA');
    return {
      flags: uintFromWire(d.flags, 'CAA', 'flags', 255),
      tag: caaTag(stringFromWire(d.tag, 'CAA', 'tag')),
      value: caaValue(Buffer.from(stringFromWire(d.value, 'CAA', 'value'), 'utf8')),
    };
  },
};

// ---------------------------------------------------------------------------------------------------------------
// SSHFP

export interface SshfpFields {
  algorithm: number;
  fpType: number;
  fingerprint: Buffer;
}

/** RSA, DSA, ECDSA, Ed25519, Ed448. */
export const SSHFP_ALGORITHMS = [1, 2, 3, 4, 6] as const;
/** Fingerprint type → octets: 1 SHA-1, 2 SHA-256. */
export const SSHFP_FP_LENGTHS: Readonly<Record<number, number>> = { 1: 20, 2: 32 };

const SSHFP_USAGE = '<algorithm 1|2|3|4|6> <fingerprint type 1|2> <hex fingerprint>';

function sshfpCheck(f: SshfpFields): SshfpFields {
  if (!(SSHFP_ALGORITHMS as readonly number[]).includes(f.algorithm)) {
    throw new RecordValueError(
      `SSHFP algorithm must be one of 1 (RSA), 2 (DSA), 3 (ECDSA), 4 (Ed25519), 6 (Ed448) (got ${f.algorithm})`,
    );
  }
  const len = SSHFP_FP_LENGTHS[f.fpType];
  if (len === undefined)
    throw new RecordValueError(`SSHFP fingerprint type must be 1 (SHA-1) or 2 (SHA-256) (got ${f.fpType})`);
  if (f.fingerprint.length !== len) {
    throw new RecordValueError(
      `SSHFP fingerprint of type ${f.fpType} (${f.fpType === 1 ? 'SHA-1' : 'SHA-256'}) must be ${len * 2} hex digits (got ${f.fingerprint.length * 2})`,
    );
  }
  return f;
}

export const SSHFP: TypeCodec<SshfpFields> = {
  usage: SSHFP_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectAtLeast(t, 3, ctx, SSHFP_USAGE);
    return sshfpCheck({
      algorithm: uintField(t[0], ctx, 'algorithm', 255),
      fpType: uintField(t[1], ctx, 'fingerprint type', 255),
      fingerprint: hexField(t.slice(2), ctx, 'fingerprint'),
    });
  },
  format: (f) => `${f.algorithm} ${f.fpType} ${f.fingerprint.toString('hex').toUpperCase()}`,
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'SSHFP',
    data: { algorithm: f.algorithm, hash: f.fpType, fingerprint: f.fingerprint.toString('hex').toUpperCase() },
  }),
  fromData(data) {
    const d = dataObject(data, 'SSHFP');
    const hex = stringFromWire(d.fingerprint, 'SSHFP', 'fingerprint');
    if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new RecordValueError('SSHFP fingerprint from the wire is not hex');
    return sshfpCheck({
      algorithm: uintFromWire(d.algorithm, 'SSHFP', 'algorithm', 255),
      fpType: uintFromWire(d.hash, 'SSHFP', 'fingerprint type', 255),
      fingerprint: Buffer.from(hex, 'hex'),
    });
  },
};

// ---------------------------------------------------------------------------------------------------------------
// TLSA

export interface TlsaFields {
  usage: number;
  selector: number;
  matchingType: number;
  data: Buffer;
}

const TLSA_USAGE = '<usage 0-3> <selector 0-1> <matching type 0-2> <hex data>';
const TLSA_LENGTHS: Readonly<Record<number, number>> = { 1: 32, 2: 64 };

function tlsaCheck(f: TlsaFields): TlsaFields {
  const len = TLSA_LENGTHS[f.matchingType];
  if (len !== undefined && f.data.length !== len) {
    throw new RecordValueError(
      `TLSA data for matching type ${f.matchingType} (${f.matchingType === 1 ? 'SHA-256' : 'SHA-512'}) must be ${len * 2} hex digits (got ${f.data.length * 2})`,
    );
  }
  if (f.data.length === 0) throw new RecordValueError('TLSA data must not be empty');
  return f;
}

export const TLSA: TypeCodec<TlsaFields> = {
  usage: TLSA_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectAtLeast(t, 4, ctx, TLSA_USAGE);
    return tlsaCheck({
      usage: uintField(t[0], ctx, 'usage', 3),
      selector: uintField(t[1], ctx, 'selector', 1),
      matchingType: uintField(t[2], ctx, 'matching type', 2),
      data: hexField(t.slice(3), ctx, 'certificate data'),
    });
  },
  format: (f) => `${f.usage} ${f.selector} ${f.matchingType} ${f.data.toString('hex').toUpperCase()}`,
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'TLSA',
    data: { usage: f.usage, selector: f.selector, matchingType: f.matchingType, certificate: Buffer.from(f.data) },
  }),
  fromData(data) {
    const d = dataObject(data, 'TLSA');
    return tlsaCheck({
      usage: uintFromWire(d.usage, 'TLSA', 'usage', 3),
      selector: uintFromWire(d.selector, 'TLSA', 'selector', 1),
      matchingType: uintFromWire(d.matchingType, 'TLSA', 'matching type', 2),
      data: Buffer.from(bufferFromWire(d.certificate, 'TLSA', 'certificate data')),
    });
  },
};

// ---------------------------------------------------------------------------------------------------------------
// DS

export interface DsFields {
  keyTag: number;
  algorithm: number;
  digestType: number;
  digest: Buffer;
}

/** DNSSEC algorithm mnemonics accepted in place of the number (RFC 8624 table). */
export const DNSSEC_ALGORITHMS: Readonly<Record<string, number>> = {
  RSAMD5: 1,
  DH: 2,
  DSA: 3,
  RSASHA1: 5,
  'DSA-NSEC3-SHA1': 6,
  'RSASHA1-NSEC3-SHA1': 7,
  RSASHA256: 8,
  RSASHA512: 10,
  'ECC-GOST': 12,
  ECDSAP256SHA256: 13,
  ECDSAP384SHA384: 14,
  ED25519: 15,
  ED448: 16,
};

/** Digest type → octets: 1 SHA-1, 2 SHA-256, 4 SHA-384. */
export const DS_DIGEST_LENGTHS: Readonly<Record<number, number>> = { 1: 20, 2: 32, 4: 48 };
const DIGEST_NAMES: Readonly<Record<number, string>> = { 1: 'SHA-1', 2: 'SHA-256', 4: 'SHA-384' };

const DS_USAGE = '<key tag 0-65535> <algorithm 1-255> <digest type 1|2|4> <hex digest>';

function dsCheck(f: DsFields): DsFields {
  if (f.algorithm < 1)
    throw new RecordValueError(`DS algorithm must be a DNSSEC algorithm number from 1 to 255 (got ${f.algorithm})`);
  const len = DS_DIGEST_LENGTHS[f.digestType];
  if (len === undefined)
    throw new RecordValueError(`DS digest type must be 1 (SHA-1), 2 (SHA-256) or 4 (SHA-384) (got ${f.digestType})`);
  if (f.digest.length !== len) {
    throw new RecordValueError(
      `DS digest of type ${f.digestType} (${DIGEST_NAMES[f.digestType]}) must be ${len * 2} hex digits (got ${f.digest.length * 2})`,
    );
  }
  return f;
}

function dsAlgorithm(ctx: ParseContext, raw: string, quoted: boolean): number {
  const byName = DNSSEC_ALGORITHMS[raw.toUpperCase()];
  if (!quoted && byName !== undefined) return byName;
  return uintField({ raw, quoted, bytes: Buffer.from(raw) }, ctx, 'algorithm', 255, 1);
}

export const DS: TypeCodec<DsFields> = {
  usage: DS_USAGE,
  parse(ctx) {
    const t = tokens(ctx);
    expectAtLeast(t, 4, ctx, DS_USAGE);
    return dsCheck({
      keyTag: uintField(t[0], ctx, 'key tag', 65535),
      algorithm: dsAlgorithm(ctx, t[1].raw, t[1].quoted),
      digestType: uintField(t[2], ctx, 'digest type', 255),
      digest: hexField(t.slice(3), ctx, 'digest'),
    });
  },
  format: (f) => `${f.keyTag} ${f.algorithm} ${f.digestType} ${f.digest.toString('hex').toUpperCase()}`,
  toAnswer: (f, base): Answer => ({
    name: base.name,
    ttl: base.ttl,
    class: base.class,
    type: 'DS',
    data: { keyTag: f.keyTag, algorithm: f.algorithm, digestType: f.digestType, digest: Buffer.from(f.digest) },
  }),
  fromData(data) {
    const d = dataObject(data, 'DS');
    return dsCheck({
      keyTag: uintFromWire(d.keyTag, 'DS', 'key tag', 65535),
      algorithm: uintFromWire(d.algorithm, 'DS', 'algorithm', 255),
      digestType: uintFromWire(d.digestType, 'DS', 'digest type', 255),
      digest: Buffer.from(bufferFromWire(d.digest, 'DS', 'digest')),
    });
  },
};
