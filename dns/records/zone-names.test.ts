import { checkZoneName, soaNames, ZoneNameError } from './zone-names';

function zoneNameError(f: () => unknown): ZoneNameError {
  try {
    f();
  } catch (e) {
    if (e instanceof ZoneNameError) return e;
    throw new Error(`expected a ZoneNameError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a ZoneNameError, nothing was thrown');
}

/** A zone name of `length` characters (198 to 258): three 63-octet labels, one of the rest, `test`. */
const zoneOf = (length: number): string => `${`${'z'.repeat(63)}.`.repeat(3)}${'z'.repeat(length - 197)}.test`;

describe('checkZoneName', () => {
  test.each(['*.test', '*', 'a.*.test'])('%s has a "*" label: refused', (zone) => {
    expect(zoneNameError(() => checkZoneName(zone)).part).toBe('zone');
  });
  test.each(['example.test', '', 'x-y.test'])('%s: accepted', (zone) => {
    expect(() => checkZoneName(zone)).not.toThrow();
  });
});

describe('soaNames', () => {
  const defaults = (zone: string) => ({ primaryNs: `ns1.${zone}`, adminEmail: `hostmaster@${zone}` });

  test('the SOA names of a zone in model form', () => {
    expect(soaNames('example.test', { primaryNs: 'NS1.example.test', adminEmail: 'john.doe@example.test' })).toEqual({
      mname: 'ns1.example.test',
      rname: 'john\\.doe.example.test',
    });
  });

  test('242 characters leave room for hostmaster.<zone>; 243 do not, and the error says how many fit', () => {
    expect(zoneOf(242)).toHaveLength(242);
    expect(() => soaNames(zoneOf(242), defaults(zoneOf(242)))).not.toThrow();
    const err = zoneNameError(() => soaNames(zoneOf(243), defaults(zoneOf(243))));
    expect({ part: err.part, room: err.room }).toEqual({ part: 'rname', room: 242 });
    expect(err.reason).toContain("the SOA's mailbox hostmaster.<zone> would be 254 octets long");
  });

  test('when both are too long, the tighter one is named (one correction is enough)', () => {
    const err = zoneNameError(() => soaNames(zoneOf(253), defaults(zoneOf(253))));
    expect({ part: err.part, room: err.room }).toEqual({ part: 'rname', room: 242 });
  });

  test('with a name server and a mailbox outside the zone, a 253-character zone fits', () => {
    expect(() => soaNames(zoneOf(253), { primaryNs: 'ns.example.net', adminEmail: 'dns@example.net' })).not.toThrow();
    const err = zoneNameError(() => soaNames(zoneOf(253), { primaryNs: `ns1.${zoneOf(253)}`, adminEmail: 'a@b.c' }));
    expect({ part: err.part, room: err.room }).toEqual({ part: 'mname', room: 249 });
  });

  test('a mailbox that is no e-mail address (a root mailbox, imported as "hostmaster.") is refused', () => {
    const err = zoneNameError(() =>
      soaNames('example.test', { primaryNs: 'ns1.example.test', adminEmail: 'hostmaster' }),
    );
    expect(err.part).toBe('rname');
    expect(err.reason).toContain("the SOA's mailbox is not valid");
  });

  test('a wildcard zone is refused before its SOA names are looked at', () => {
    expect(zoneNameError(() => soaNames('*.test', defaults('*.test'))).part).toBe('zone');
  });
});
