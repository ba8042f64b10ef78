import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { RECORD_TYPES, type RecordData } from '../model/model';
import { parseSoa } from '../records';
import { recordArb, recordOfTypeArb, ttlArb, zoneArb } from '../records/testing/arbitraries';
import { ZoneFileError, compareNames, compareRecords, formatZoneFile, parseZoneFile, type ZoneSoa } from './index';

const FIXTURE = readFileSync(join(__dirname, 'fixtures', 'example.zone'), 'utf8');
const ORIGIN = 'example.com';
const HEAD = '$TTL 1h\n@ IN SOA ns1 hostmaster 1 2 3 4 5\n';

function zoneError(f: () => unknown): ZoneFileError {
  try {
    f();
  } catch (e) {
    if (e instanceof ZoneFileError) return e;
    throw new Error(`expected a ZoneFileError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a ZoneFileError, nothing was thrown');
}

const records = (text: string, defaultTtl?: number): RecordData[] =>
  parseZoneFile(text, { origin: ORIGIN, defaultTtl }).records;
const find = (rs: RecordData[], name: string, type: string): RecordData[] =>
  rs.filter((r) => r.name === name && r.type === type);

describe('the fixture zone', () => {
  const zone = parseZoneFile(FIXTURE, { origin: ORIGIN });

  test('SOA from a record spanning lines in parentheses, with comments and TTL units', () => {
    expect(zone.soa).toEqual({
      mname: 'ns1.example.com',
      rname: 'hostmaster.example.com',
      serial: 2024052101,
      refresh: 10800,
      retry: 3600,
      expire: 604800,
      minimum: 300,
      ttl: 3600,
    });
  });

  test('every supported type except SOA is among the records', () => {
    const types = new Set(zone.records.map((r) => r.type));
    expect([...types].sort()).toEqual(RECORD_TYPES.filter((t) => t !== 'SOA').sort());
    expect(zone.records).toHaveLength(38);
  });

  test('blank owners continue the previous owner; relative and absolute names; @', () => {
    expect(find(zone.records, 'example.com', 'NS').map((r) => r.value)).toEqual([
      'ns1.example.com.',
      'ns2.example.net.',
    ]);
    expect(find(zone.records, 'example.com', 'MX').map((r) => r.value)).toEqual([
      '10 mail.example.com.',
      '20 mail.example.net.',
    ]);
    expect(find(zone.records, 'www.example.com', 'CNAME')[0]?.value).toBe('example.com.');
    expect(find(zone.records, 'ftp.example.com', 'CNAME')[0]?.value).toBe('www.example.com.');
    expect(find(zone.records, 'host.example.com', 'SSHFP')).toHaveLength(2);
  });

  test('TTLs: $TTL with units, explicit TTLs, TTL and class in either order, no class', () => {
    expect(find(zone.records, 'example.com', 'A')[0]?.ttl).toBe(3600);
    expect(find(zone.records, 'ns1.example.com', 'A')[0]?.ttl).toBe(300);
    expect(find(zone.records, 'ns1.example.com', 'AAAA')[0]?.ttl).toBe(300);
    expect(find(zone.records, 'mail.example.com', 'A')[0]?.ttl).toBe(5400);
    expect(find(zone.records, 'www.example.com', 'CNAME')[0]?.ttl).toBe(1800);
  });

  test('values are normalised', () => {
    expect(find(zone.records, 'example.com', 'AAAA')[0]?.value).toBe('2001:db8::1');
    expect(find(zone.records, '_443._tcp.www.example.com', 'TLSA')[0]?.value).toBe(
      '3 1 1 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B56664C5D3D6',
    );
    expect(find(zone.records, 'secure.example.com', 'DS').map((r) => r.value)).toEqual([
      '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118',
      '60485 5 2 D4B7D520E7BB5F0F67674A0CCEB1E3E0614B93C4F9E99B8383F6A1E4469DA50A',
    ]);
    expect(find(zone.records, 'sip-uri.example.com', 'NAPTR')[1]?.value).toBe(
      '102 10 "S" "SIP+D2U" "" _sip._udp.example.com.',
    );
  });

  test('quoted strings keep spaces and ";", escapes are read, unquoted words are separate strings', () => {
    expect(find(zone.records, 'long.example.com', 'TXT').map((r) => r.value)).toEqual([
      '"quote \\" backslash \\\\ byte A and ; semicolon"',
      '"plain" "words"',
    ]);
    expect(find(zone.records, 'mail._domainkey.example.com', 'TXT')[0]?.value).toMatch(/^"v=DKIM1; k=rsa; " "p=MIGf/);
    expect(find(zone.records, 'utf8.example.com', 'TXT')[0]?.value).toBe('"café ☕ é"');
  });

  test('wildcard and punycode owners', () => {
    expect(find(zone.records, '*.wild.example.com', 'A')).toHaveLength(1);
    expect(find(zone.records, 'xn--bcher-kva.example.com', 'A')).toHaveLength(1);
  });
});

describe('parseZoneFile features', () => {
  test('$ORIGIN changes the origin for the following names, relative to the current one', () => {
    const rs = records(`${HEAD}$ORIGIN sub\nwww IN A 192.0.2.1\n$ORIGIN example.com.\nwww IN CNAME sub.example.com.\n`);
    expect(rs).toEqual([
      { name: 'www.sub.example.com', type: 'A', ttl: 3600, value: '192.0.2.1' },
      { name: 'www.example.com', type: 'CNAME', ttl: 3600, value: 'sub.example.com.' },
    ]);
  });

  test('names inside values are relative to $ORIGIN', () => {
    const rs = records(`${HEAD}$ORIGIN sub.example.com.\n@ IN MX 10 mx\n`);
    expect(rs[0]).toEqual({ name: 'sub.example.com', type: 'MX', ttl: 3600, value: '10 mx.sub.example.com.' });
  });

  test('defaultTtl applies when there is no $TTL; $TTL wins over it', () => {
    expect(records('www IN A 192.0.2.1\n', 120)[0]?.ttl).toBe(120);
    expect(records('$TTL 60\nwww IN A 192.0.2.1\n', 120)[0]?.ttl).toBe(60);
  });

  test('without $TTL, a record without TTL takes the last TTL given (RFC 1035)', () => {
    const rs = records('a 300 IN A 192.0.2.1\nb IN A 192.0.2.2\n');
    expect(rs.map((r) => r.ttl)).toEqual([300, 300]);
  });

  test('combined TTL units', () => {
    expect(records('www 1h30m IN A 192.0.2.1\n')[0]?.ttl).toBe(5400);
    expect(records('www 1W2d IN A 192.0.2.1\n')[0]?.ttl).toBe(777600);
  });

  test('CRLF line endings, tabs, comments, blank lines', () => {
    const rs = records('$TTL 60\r\n\r\n; comment\r\nwww\tIN\tA\t192.0.2.1 ; trailing\r\n\t\tIN\tTXT\t"a;b" ; c\r\n');
    expect(rs).toEqual([
      { name: 'www.example.com', type: 'A', ttl: 60, value: '192.0.2.1' },
      { name: 'www.example.com', type: 'TXT', ttl: 60, value: '"a;b"' },
    ]);
  });

  test('parentheses spanning lines inside a record, with "(" and ")" next to values', () => {
    const rs = records(
      '$TTL 60\nt IN TXT (\n "one"\n "two")\nd IN DS 1 8 2 (ABCDEF0123456789ABCDEF0123456789\n ABCDEF0123456789ABCDEF0123456789)\n',
    );
    expect(rs[0]?.value).toBe('"one" "two"');
    expect(rs[1]?.value).toBe(`1 8 2 ${'ABCDEF0123456789'.repeat(4)}`);
  });

  test('a zone without SOA has soa null', () => {
    expect(parseZoneFile('$TTL 60\nwww IN A 192.0.2.1\n', { origin: ORIGIN }).soa).toBeNull();
  });

  test('the SOA mailbox may have an escaped dot', () => {
    const soa = parseZoneFile('$TTL 60\n@ IN SOA ns1 john\\.doe 1 2 3 4 5\n', { origin: ORIGIN }).soa;
    expect(soa?.rname).toBe('john\\.doe.example.com');
  });

  test('the origin option may have a trailing dot and capitals', () => {
    expect(parseZoneFile('$TTL 60\nwww IN A 192.0.2.1\n', { origin: 'Example.COM.' }).records[0]?.name).toBe(
      'www.example.com',
    );
  });
});

describe('parseZoneFile errors name the line and what is wrong', () => {
  test.each([
    [`${HEAD}$INCLUDE other.zone\n`, 3, /\$INCLUDE is not supported/],
    [
      `${HEAD}$GENERATE 1-10 host$ A 192.0.2.$\n`,
      3,
      /directive \$GENERATE is not supported \(supported: \$ORIGIN, \$TTL\)/,
    ],
    [`${HEAD}$TTL\n`, 3, /\$TTL takes exactly one argument/],
    [`${HEAD}$ORIGIN a. b.\n`, 3, /\$ORIGIN takes exactly one argument \(got 2\)/],
    [`${HEAD}$TTL 1x\n`, 3, /TTL must be a number of seconds or a duration like 1h30m/],
    [
      `${HEAD}www IN HINFO "cpu" "os"\n`,
      3,
      new RegExp(`record type HINFO is not supported; supported types are ${RECORD_TYPES.join(', ')}`),
    ],
    [`${HEAD}www CH A 192.0.2.1\n`, 3, /class CH is not supported; only IN is/],
    [`${HEAD}\n\nwww IN A 300.1.1.1\n`, 5, /A value must be an IPv4 address/],
    [`${HEAD}www IN A\n`, 3, /the A record has no value/],
    [`${HEAD}www IN\n`, 3, /the record type is missing/],
    [`${HEAD}www.example.org. IN A 192.0.2.1\n`, 3, /Name "www.example.org." is not inside zone "example.com."/],
    [`${HEAD}a..b IN A 192.0.2.1\n`, 3, /Invalid name "a..b": empty label/],
    [`${HEAD}www IN TXT "open\n`, 3, /unterminated quoted string/],
    [`${HEAD}www IN TXT ( "a"\n "b"\n`, 3, /"\(" opened here is never closed/],
    [`${HEAD}www IN TXT ( ( "a" ) )\n`, 3, /nested "\("/],
    [`${HEAD}www IN TXT "a" )\n`, 3, /"\)" without an opening "\("/],
    [`${HEAD}@ IN SOA ns1 hostmaster 1 2 3 4 5\n`, 3, /a second SOA record/],
    [`${HEAD}sub IN SOA ns1 hostmaster 1 2 3 4 5\n`, 3, /An SOA record belongs at the zone apex/],
    [`${HEAD}www IN MX mail\n`, 3, /MX value must be "<preference 0-65535> <exchange name>" \(got "mail"\)/],
    [`${HEAD}www IN SRV 0 0 70000 sip\n`, 3, /SRV port must be an integer from 0 to 65535/],
    [`${HEAD}www 99999999999 IN A 192.0.2.1\n`, 3, /TTL must be .* too big/],
    [`${HEAD}www IN A 192.0.2.1 \\\n`, 3, /backslash at the end of a line/],
    ['www IN A 192.0.2.1\n', 1, /no TTL: give one on the record, or a \$TTL directive before it/],
    ['  IN A 192.0.2.1\n', 1, /no owner name/],
    [`${HEAD}www IN SOA ns1\n`, 3, /SOA value must be/],
  ])('%j', (text, line, message) => {
    const e = zoneError(() => parseZoneFile(text, { origin: ORIGIN }));
    expect(e.line).toBe(line);
    expect(e.message).toMatch(new RegExp(`^line ${line}: `));
    expect(e.message).toMatch(message);
  });

  test('the line of a multi-line record is where it starts', () => {
    const e = zoneError(() => parseZoneFile(`${HEAD}www IN SSHFP (\n 1 1\n zz )\n`, { origin: ORIGIN }));
    expect(e.message).toMatch(/^line 3: SSHFP fingerprint must be hexadecimal/);
  });

  test('a bad origin option', () => {
    expect(zoneError(() => parseZoneFile('', { origin: 'a b' })).message).toMatch(/^Invalid name/);
  });

  test('arbitrary text throws nothing but ZoneFileError', () => {
    const zoneish = fc.string({
      unit: fc.constantFrom(
        ...[
          'a',
          'www',
          ' ',
          '\t',
          '\n',
          ';',
          '(',
          ')',
          '"',
          '\\',
          '$TTL',
          '$ORIGIN',
          '@',
          '.',
          '1',
          '3600',
          'IN',
          'A',
          'TXT',
          'MX',
          'SOA',
          'NAPTR',
          '*',
          '1.2.3.4',
          'é',
        ],
      ),
      maxLength: 40,
    });
    fc.assert(
      fc.property(fc.oneof(zoneish, fc.string({ maxLength: 200 })), (text) => {
        try {
          parseZoneFile(text, { origin: ORIGIN, defaultTtl: 60 });
        } catch (e) {
          expect(e).toBeInstanceOf(ZoneFileError);
        }
      }),
      { numRuns: 800 },
    );
  });

  test('the fixture with random lines removed parses or fails with ZoneFileError only', () => {
    const lines = FIXTURE.split('\n');
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(lines.length - 1), { maxLength: 6 }), (drop) => {
        try {
          parseZoneFile(lines.filter((_, i) => !drop.includes(i)).join('\n'), { origin: ORIGIN });
        } catch (e) {
          expect(e).toBeInstanceOf(ZoneFileError);
        }
      }),
      { numRuns: 60 },
    );
  });
});

test('compareNames: canonical order, label by label from the right, a name before the names below it', () => {
  const names = ['b.example.com', 'example.com', 'a.b.example.com', 'z.example.com', 'a.example.com', 'com', ''];
  expect([...names].sort(compareNames)).toEqual([
    '',
    'com',
    'example.com',
    'a.example.com',
    'b.example.com',
    'a.b.example.com',
    'z.example.com',
  ]);
  expect(compareNames('example.com', 'example.com')).toBe(0);
});

describe('formatZoneFile', () => {
  const soa: ZoneSoa = { ...parseSoa('ns1.example.com. hostmaster.example.com. 5 3600 600 86400 300'), ttl: 3600 };

  test('writes $ORIGIN, $TTL, the SOA first, sorted records with relative names', () => {
    const text = formatZoneFile({
      origin: ORIGIN,
      soa,
      records: [
        { name: 'www.example.com', type: 'CNAME', ttl: 3600, value: 'example.com.' },
        { name: 'b.example.com', type: 'TXT', ttl: 60, value: '"x"' },
        { name: 'example.com', type: 'MX', ttl: 3600, value: '10 mail.example.com.' },
        { name: 'a.b.example.com', type: 'A', ttl: 3600, value: '192.0.2.2' },
        { name: 'example.com', type: 'A', ttl: 3600, value: '192.0.2.1' },
        { name: 'example.com', type: 'NS', ttl: 3600, value: 'ns.example.net.' },
      ],
    });
    expect(text).toBe(
      [
        '$ORIGIN example.com.',
        '$TTL 3600',
        '@\t\tIN\tSOA\tns1 hostmaster 5 3600 600 86400 300',
        '\t\tIN\tNS\tns.example.net.',
        '\t\tIN\tA\t192.0.2.1',
        '\t\tIN\tMX\t10 mail',
        'b\t60\tIN\tTXT\t"x"',
        'a.b\t\tIN\tA\t192.0.2.2',
        'www\t\tIN\tCNAME\t@',
        '',
      ].join('\n'),
    );
  });

  test('the ttl option sets $TTL', () => {
    const text = formatZoneFile({
      origin: ORIGIN,
      soa: null,
      records: [{ name: 'example.com', type: 'A', ttl: 300, value: '192.0.2.1' }],
      ttl: 60,
    });
    expect(text).toBe('$ORIGIN example.com.\n$TTL 60\n@\t300\tIN\tA\t192.0.2.1\n');
  });

  test('refuses a record outside the zone, an SOA among the records, and invalid records', () => {
    expect(() =>
      formatZoneFile({
        origin: ORIGIN,
        soa,
        records: [{ name: 'example.org', type: 'A', ttl: 1, value: '192.0.2.1' }],
      }),
    ).toThrow(/Name "example.org." is not inside zone "example.com."/);
    expect(() =>
      formatZoneFile({
        origin: ORIGIN,
        soa: null,
        records: [{ name: ORIGIN, type: 'SOA', ttl: 1, value: 'a. b. 1 2 3 4 5' }],
      }),
    ).toThrow(/An SOA record goes into `soa`/);
    expect(() =>
      formatZoneFile({ origin: ORIGIN, soa: null, records: [{ name: ORIGIN, type: 'A', ttl: 1, value: 'nope' }] }),
    ).toThrow(/A value must be an IPv4 address/);
  });

  test('the fixture survives format → parse', () => {
    const zone = parseZoneFile(FIXTURE, { origin: ORIGIN });
    const again = parseZoneFile(formatZoneFile({ origin: ORIGIN, ...zone }), { origin: ORIGIN });
    expect(again.soa).toEqual(zone.soa);
    expect(again.records).toEqual([...zone.records].sort(compareRecords));
  });

  test('property: parseZoneFile(formatZoneFile(x)) gives back x', () => {
    const zoneInput = zoneArb.chain((origin) =>
      fc.record({
        origin: fc.constant(origin),
        soa: fc.option(
          fc.tuple(recordOfTypeArb('SOA', origin), ttlArb).map(([r, ttl]) => ({ ...parseSoa(r.value), ttl })),
          { nil: null },
        ),
        records: fc.array(recordArb(origin), { maxLength: 12 }),
        ttl: fc.option(ttlArb, { nil: undefined }),
      }),
    );
    fc.assert(
      fc.property(zoneInput, (x) => {
        const text = formatZoneFile(x);
        const back = parseZoneFile(text, { origin: x.origin });
        expect(back.soa).toEqual(x.soa);
        expect(back.records).toEqual([...x.records].sort(compareRecords));
      }),
      { numRuns: 80 },
    );
  });
});
