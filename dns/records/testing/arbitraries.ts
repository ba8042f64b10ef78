/**
 * fast-check generators of record values (presentation text, not necessarily normalised) and of normalised
 * records, for the property tests of records and zone files. Test-only.
 */
import fc from 'fast-check';
import { MAX_TTL, RECORD_TYPES, type RecordData, type RecordType } from '../../model/model';
import { formatCharString, validateRecord } from '../index';

export const labelArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^_[a-z0-9]{1,8}$/) },
);

const hostLabelArb = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);

export const zoneArb: fc.Arbitrary<string> = fc
  .array(hostLabelArb, { minLength: 1, maxLength: 3 })
  .map((l) => l.join('.'));

/** A model-form name inside `zone` (maybe the apex, maybe a wildcard). */
export function ownerArb(zone: string, wildcard = true): fc.Arbitrary<string> {
  return fc
    .tuple(wildcard ? fc.boolean() : fc.constant(false), fc.array(labelArb, { maxLength: 3 }))
    .map(([star, labels]) => [...(star ? ['*'] : []), ...labels, zone].join('.'));
}

/** A model-form name: inside `zone`, or anywhere. */
export function targetArb(zone: string): fc.Arbitrary<string> {
  return fc.oneof(
    ownerArb(zone, false),
    fc.array(labelArb, { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
  );
}

const fqdn = (n: string): string => `${n}.`;
// Built once: fc.stringMatching is costly to construct.
const caaTagArb = fc.stringMatching(/^[a-z0-9]{1,15}$/);
const naptrFlagsArb = fc.stringMatching(/^[A-Za-z0-9]{0,2}$/);
const u16 = fc.integer({ min: 0, max: 65535 });
const u32 = fc.integer({ min: 0, max: 4_294_967_295 });
const printable = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });
const hex = (len: number): fc.Arbitrary<string> =>
  fc.tuple(fc.uint8Array({ minLength: len, maxLength: len }), fc.boolean()).map(([b, up]) => {
    const h = Buffer.from(b).toString('hex');
    return up ? h.toUpperCase() : h;
  });
const quoted = (s: string): string => formatCharString(Buffer.from(s, 'latin1'));

/** Presentation text of a valid value of `type` for a record in `zone`. */
export function valueArb(type: RecordType, zone: string): fc.Arbitrary<string> {
  const target = targetArb(zone).map(fqdn);
  const targetOrRoot = fc.oneof({ weight: 5, arbitrary: target }, { weight: 1, arbitrary: fc.constant('.') });
  switch (type) {
    case 'A':
      return fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
    case 'AAAA':
      return fc
        .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
        .map((g) => g.map((x) => x.toString(16).toUpperCase()).join(':'));
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return target;
    case 'MX':
      return fc.tuple(u16, targetOrRoot).map(([p, t]) => `${p} ${t}`);
    case 'SRV':
      return fc.tuple(u16, u16, u16, targetOrRoot).map((f) => f.join(' '));
    case 'TXT':
    case 'SPF':
      return fc
        .array(fc.uint8Array({ maxLength: 255 }), { minLength: 1, maxLength: 3 })
        .map((s) => s.map((b) => formatCharString(b)).join(' '));
    case 'CAA':
      return fc.tuple(fc.nat(255), caaTagArb, printable(40)).map(([f, tag, v]) => `${f} ${tag} ${quoted(v)}`);
    case 'SSHFP':
      return fc
        .tuple(fc.constantFrom(1, 2, 3, 4, 6), fc.constantFrom(1, 2))
        .chain(([alg, fp]) => hex(fp === 1 ? 20 : 32).map((h) => `${alg} ${fp} ${h}`));
    case 'TLSA':
      return fc
        .tuple(fc.nat(3), fc.nat(1), fc.nat(2), fc.integer({ min: 1, max: 80 }))
        .chain(([u, s, m, n]) => hex(m === 1 ? 32 : m === 2 ? 64 : n).map((h) => `${u} ${s} ${m} ${h}`));
    case 'DS':
      return fc
        .tuple(u16, fc.integer({ min: 1, max: 255 }), fc.constantFrom(1, 2, 4))
        .chain(([tag, alg, dt]) => hex(dt === 1 ? 20 : dt === 2 ? 32 : 48).map((h) => `${tag} ${alg} ${dt} ${h}`));
    case 'NAPTR':
      return fc
        .tuple(u16, u16, naptrFlagsArb, printable(20), naptrRegexpArb, targetOrRoot)
        .map(([o, p, flags, services, regexp, repl]) =>
          [o, p, quoted(flags), quoted(services), quoted(regexp), regexp === '' ? repl : '.'].join(' '),
        );
    case 'SOA':
      return fc
        .tuple(
          target,
          fc.oneof(
            target,
            fc.tuple(hostLabelArb, hostLabelArb, targetArb(zone)).map(([a, b, rest]) => `${a}\\.${b}.${rest}.`),
          ),
          u32,
          u32,
          u32,
          u32,
          u32,
        )
        .map((f) => f.join(' '));
  }
}

/** Empty, or `<delim><regex><delim><replacement><delim>[i]` with a group and back-reference now and then. */
const naptrRegexpArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc
    .tuple(
      fc.constantFrom('!', '/', '#', '|'),
      fc.stringMatching(/^\^?[a-z0-9.:@-]{1,8}[+*?]?\$?$/),
      fc.boolean(),
      fc.stringMatching(/^[a-z0-9.+:@-]{0,12}$/),
      fc.constantFrom('', 'i'),
    )
    .map(([d, ere, group, repl, flags]) =>
      group ? `${d}(${ere})${d}${repl}\\1${d}${flags}` : `${d}${ere}${d}${repl}${d}${flags}`,
    ),
);

export const ttlArb = fc.oneof(fc.constantFrom(0, 60, 300, 3600, 86400, MAX_TTL), fc.integer({ min: 0, max: MAX_TTL }));

/** A normalised record of `type` in `zone` (SOA at the apex, DS below it, NS not at a wildcard). */
export function recordOfTypeArb(type: RecordType, zone: string): fc.Arbitrary<RecordData> {
  const below = fc.tuple(labelArb, ownerArb(zone, false)).map(([l, o]) => `${l}.${o}`);
  const owner = type === 'SOA' ? fc.constant(zone) : type === 'DS' ? below : ownerArb(zone, type !== 'NS');
  return fc
    .tuple(owner, ttlArb, valueArb(type, zone))
    .map(([name, ttl, value]) => validateRecord({ name: `${name}.`, type, ttl, value }, zone));
}

/** A normalised record of any supported type except SOA. */
export function recordArb(zone: string): fc.Arbitrary<RecordData> {
  return fc.constantFrom(...RECORD_TYPES.filter((t) => t !== 'SOA')).chain((t) => recordOfTypeArb(t, zone));
}
