import { MAX_TTL, RECORD_TYPES } from '../model/model';
import {
  RecordValueError,
  emailToRname,
  formatSoa,
  formatValueRelative,
  normalizeMailbox,
  parseSoa,
  parseTtl,
  parseValue,
  rnameToEmail,
  validateRecord,
  validateTtl,
  valueUsage,
} from './index';

const ZONE = 'example.com';

function valueError(f: () => unknown): RecordValueError {
  try {
    f();
  } catch (e) {
    if (e instanceof RecordValueError) return e;
    throw new Error(`expected a RecordValueError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a RecordValueError, nothing was thrown');
}

const bad = (type: string, text: string): string => valueError(() => parseValue(type, text, ZONE)).message;

describe('good values normalise', () => {
  test.each([
    ['A', '192.0.2.1', '192.0.2.1'],
    ['A', ' 10.0.0.255 ', '10.0.0.255'],
    ['AAAA', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['AAAA', '2001:0db8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['AAAA', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['AAAA', '0:0:0:0:0:0:0:0', '::'],
    ['AAAA', '::1', '::1'],
    ['AAAA', '1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['AAAA', '::ffff:192.0.2.1', '::ffff:c000:201'],
    ['AAAA', 'FE80::', 'fe80::'],
    ['CNAME', 'www', 'www.example.com.'],
    ['CNAME', '@', 'example.com.'],
    ['CNAME', 'Target.Example.NET.', 'target.example.net.'],
    ['CNAME', 'www.example.com', 'www.example.com.'],
    ['DNAME', 'example.net.', 'example.net.'],
    ['NS', 'ns1', 'ns1.example.com.'],
    ['PTR', 'host.example.com.', 'host.example.com.'],
    ['MX', '10 mail', '10 mail.example.com.'],
    ['MX', '0 .', '0 .'],
    ['MX', '  20   MX.Example.Net.  ', '20 mx.example.net.'],
    ['SRV', '0 5 5060 sip', '0 5 5060 sip.example.com.'],
    ['SRV', '0 0 0 .', '0 0 0 .'],
    ['TXT', 'hello world', '"hello world"'],
    ['TXT', '"hello world"', '"hello world"'],
    ['TXT', '"a" "b"', '"a" "b"'],
    ['TXT', '"quote \\" backslash \\\\ byte \\065"', '"quote \\" backslash \\\\ byte A"'],
    ['TXT', 'say "hi" C:\\path', '"say \\"hi\\" C:\\\\path"'],
    ['TXT', '""', '""'],
    ['TXT', '"caf\\195\\169"', '"café"'],
    ['TXT', '"\\000\\255"', '"\\000\\255"'],
    // A UTF-8 sequence cut short (here by the end of the string) is not a character: its octets stay \DDD.
    ['TXT', '"a\\226\\152"', '"a\\226\\152"'],
    ['TXT', '"\\226\\152 x"', '"\\226\\152 x"'],
    ['TXT', 'v=DMARC1; p=reject', '"v=DMARC1; p=reject"'],
    ['SPF', 'v=spf1 -all', '"v=spf1 -all"'],
    ['CAA', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
    ['CAA', '128 ISSUEWILD ";"', '128 issuewild ";"'],
    ['CAA', '0 iodef mailto:security@example.com', '0 iodef "mailto:security@example.com"'],
    ['SSHFP', '1 1 dd465c09cfa51fb45020cc83316fff21b9ec74ac', '1 1 DD465C09CFA51FB45020CC83316FFF21B9EC74AC'],
    ['SSHFP', `4 2 ${'ab'.repeat(16)} ${'CD'.repeat(16)}`, `4 2 ${'AB'.repeat(16)}${'CD'.repeat(16)}`],
    ['TLSA', `3 1 1 ${'0c'.repeat(32)}`, `3 1 1 ${'0C'.repeat(32)}`],
    ['TLSA', '3 0 0 30820122', '3 0 0 30820122'],
    ['DS', '60485 5 1 2bb183af5f22588179a53b0a 98631fad1a292118', '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118'],
    ['DS', `55648 ECDSAP256SHA256 2 ${'b4'.repeat(32)}`, `55648 13 2 ${'B4'.repeat(32)}`],
    ['DS', `10771 14 4 ${'72'.repeat(48)}`, `10771 14 4 ${'72'.repeat(48)}`],
    [
      'NAPTR',
      '100 10 u "E2U+sip" "!^.*$!sip:info@example.com!" .',
      '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
    ],
    ['NAPTR', '102 10 "S" "SIP+D2U" "" _sip._udp', '102 10 "S" "SIP+D2U" "" _sip._udp.example.com.'],
    ['NAPTR', '1 1 "" "" "!a\\\\.b!x!i" .', '1 1 "" "" "!a\\\\.b!x!i" .'],
    ['NAPTR', '1 1 "" "" "/^([0-9]+)[[:digit:]]$/sip:\\\\1@x/" .', '1 1 "" "" "/^([0-9]+)[[:digit:]]$/sip:\\\\1@x/" .'],
    [
      'SOA',
      'ns1 hostmaster 2024010101 10800 3600 604800 3600',
      'ns1.example.com. hostmaster.example.com. 2024010101 10800 3600 604800 3600',
    ],
    [
      'SOA',
      'ns1.example.net. hostmaster@example.com 1 3h 1h 1w 1h30m',
      'ns1.example.net. hostmaster.example.com. 1 10800 3600 604800 5400',
    ],
    ['SOA', 'ns1 john\\.doe 4294967295 0 0 0 0', 'ns1.example.com. john\\.doe.example.com. 4294967295 0 0 0 0'],
    ['soa', 'NS1 JOHN.DOE@EXAMPLE.COM 1 2 3 4 5', 'ns1.example.com. john\\.doe.example.com. 1 2 3 4 5'],
  ])('%s %j → %j', (type, input, expected) => {
    const out = parseValue(type, input, ZONE);
    expect(out).toBe(expected);
    expect(parseValue(type, out, ZONE)).toBe(out); // normalised values are fixed points
  });

  test('TXT plain text of 300 characters becomes two strings (255 + 45)', () => {
    const out = parseValue('TXT', 'x'.repeat(300), ZONE);
    expect(out).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(45)}"`);
  });

  test('TXT plain text is split at character boundaries, never inside a UTF-8 character', () => {
    const text = `${'a'.repeat(254)}é${'b'.repeat(10)}`; // é is 2 octets: it would straddle octet 255
    expect(parseValue('TXT', text, ZONE)).toBe(`"${'a'.repeat(254)}" "é${'b'.repeat(10)}"`);
  });

  test('master syntax: unquoted TXT words are separate strings and names are always relative', () => {
    expect(parseValue('TXT', 'plain words', ZONE, { syntax: 'master' })).toBe('"plain" "words"');
    expect(parseValue('CNAME', 'www.example.com', ZONE, { syntax: 'master' })).toBe('www.example.com.example.com.');
  });

  test('names in values: IDN and underscores', () => {
    expect(parseValue('CNAME', 'bücher.example.', ZONE)).toBe('xn--bcher-kva.example.');
    expect(parseValue('CNAME', '_acme-challenge.other.net.', ZONE)).toBe('_acme-challenge.other.net.');
  });

  test('every type has a usage text', () => {
    for (const t of RECORD_TYPES) expect(valueUsage(t).length).toBeGreaterThan(5);
  });
});

describe('bad values are refused with a message naming the type and what is allowed', () => {
  test.each([
    [
      'A',
      '256.1.1.1',
      /^A value must be an IPv4 address in dotted-quad form like 192\.0\.2\.1.*\(got "256\.1\.1\.1"\)/,
    ],
    ['A', '1.2.3', /A value must be an IPv4 address/],
    ['A', '1.2.3.4.5', /A value must be an IPv4 address/],
    ['A', '1..3.4', /A value must be an IPv4 address/],
    ['AAAA', '::1.2.3', /AAAA value must be an IPv6 address/],
    ['A', '01.2.3.4', /without leading zeros/],
    ['A', '1.2.3.4 5.6.7.8', /A value must be an IPv4 address/],
    ['A', '', /A value must be an IPv4 address.*\(got ""\)/],
    ['A', '2001:db8::1', /an IPv6 address belongs in an AAAA record/],
    ['AAAA', '2001:db8::g', /^AAAA value must be an IPv6 address like 2001:db8::1 \(got "2001:db8::g"\)/],
    ['AAAA', '1::2::3', /AAAA value must be an IPv6 address/],
    ['AAAA', '1:2:3:4:5:6:7:8:9', /AAAA value must be an IPv6 address/],
    ['AAAA', '1:2:3:4:5:6:7:8::', /AAAA value must be an IPv6 address/],
    ['AAAA', '12345::1', /AAAA value must be an IPv6 address/],
    ['AAAA', 'fe80::1%eth0', /zone indexes/],
    ['AAAA', '192.0.2.1', /an IPv4 address belongs in an A record/],
    ['AAAA', '::ffff:256.0.0.1', /AAAA value must be an IPv6 address/],
    ['CNAME', 'a b', /CNAME value must be "<target name>" \(got "a b"\): unexpected "b" after the last field/],
    ['CNAME', '', /CNAME value must be "<target name>" \(got ""\): 1 field\(s\) missing/],
    ['CNAME', 'bad$name', /CNAME target "bad\$name" is not a valid name: label "bad\$name" contains "\$"/],
    ['CNAME', '"www"', /must be a domain name, not a quoted string/],
    ['CNAME', 'a.*.example.com.', /leftmost/],
    ['CNAME', 'we\\.ird.example.com.', /escaped characters/],
    ['NS', `${'a'.repeat(64)}.example.`, /at most 63/],
    ['MX', 'mail', /^MX value must be "<preference 0-65535> <exchange name>" \(got "mail"\)/],
    ['MX', '10', /MX value must be "<preference 0-65535> <exchange name>" \(got "10"\): 1 field\(s\) missing/],
    ['MX', '70000 mail', /MX preference must be an integer from 0 to 65535 \(got "70000"\)/],
    ['MX', '-1 mail', /MX preference must be an integer/],
    ['MX', 'ten mail', /MX preference must be an integer/],
    ['SRV', '0 5 70000 sip', /SRV port must be an integer from 0 to 65535 \(got "70000"\)/],
    ['SRV', '0 5 5060', /SRV value must be "<priority 0-65535> <weight 0-65535> <port 0-65535> <target name>"/],
    ['SRV', '0 65536 1 sip', /SRV weight must be an integer/],
    ['TXT', '"unterminated', /TXT value has an unterminated quoted string/],
    ['TXT', '"a" "b', /unterminated quoted string/],
    ['TXT', '', /TXT value must be "<text>"/],
    ['TXT', '   ', /TXT value must be "<text>"/],
    ['TXT', `"${'x'.repeat(256)}"`, /TXT string 1 is 256 octets long; at most 255/],
    ['TXT', 'line one\nline two', /control character U\+000A/],
    ['TXT', '"line\none"', /control character U\+000A/],
    ['TXT', '"bad \\256"', /bad escape "\\256"/],
    ['TXT', '"bad \\12"', /bad escape/],
    ['TXT', '"ends with \\', /lone backslash|unterminated/],
    ['SPF', '"v=spf1', /SPF value has an unterminated quoted string/],
    [
      'CAA',
      '0 is-sue "ca.example"',
      /CAA tag must be 1-15 letters and digits, like issue, issuewild or iodef \(got "is-sue"\)/,
    ],
    ['CAA', '0 "issue" "ca.example"', /CAA tag must be/],
    ['CAA', `0 ${'a'.repeat(16)} "x"`, /CAA tag must be 1-15/],
    ['CAA', '256 issue "ca.example"', /CAA flags must be an integer from 0 to 255/],
    [
      'CAA',
      '0 issue',
      /CAA value must be "<flags 0-255> <tag> \\"<value>\\""|CAA value must be "<flags 0-255> <tag> "<value>""/,
    ],
    ['CAA', '0 issue ca.example; policy=ev', /put a value with spaces in double quotes/],
    ['CAA', '0 issue "caf\\195\\169"', /CAA value must be printable ASCII/],
    ['SSHFP', '1 1 zz', /SSHFP fingerprint must be hexadecimal digits 0-9 A-F \(got "zz"\)/],
    ['SSHFP', '1 1 abc', /SSHFP fingerprint has an odd number of hex digits \(3\)/],
    ['SSHFP', '1 1 abcd', /SSHFP fingerprint of type 1 \(SHA-1\) must be 40 hex digits \(got 4\)/],
    ['SSHFP', `1 2 ${'ab'.repeat(20)}`, /SSHFP fingerprint of type 2 \(SHA-256\) must be 64 hex digits \(got 40\)/],
    ['SSHFP', `5 1 ${'ab'.repeat(20)}`, /SSHFP algorithm must be one of 1 \(RSA\)/],
    ['SSHFP', `1 3 ${'ab'.repeat(20)}`, /SSHFP fingerprint type must be 1 \(SHA-1\) or 2 \(SHA-256\)/],
    [
      'SSHFP',
      '1 1',
      /SSHFP value must be "<algorithm 1\|2\|3\|4\|6> <fingerprint type 1\|2> <hex fingerprint>".*missing/,
    ],
    ['TLSA', `4 1 1 ${'ab'.repeat(32)}`, /TLSA usage must be an integer from 0 to 3 \(got "4"\)/],
    ['TLSA', `3 2 1 ${'ab'.repeat(32)}`, /TLSA selector must be an integer from 0 to 1/],
    ['TLSA', `3 1 3 ${'ab'.repeat(32)}`, /TLSA matching type must be an integer from 0 to 2/],
    ['TLSA', `3 1 1 ${'ab'.repeat(20)}`, /TLSA data for matching type 1 \(SHA-256\) must be 64 hex digits \(got 40\)/],
    ['TLSA', `3 1 2 ${'ab'.repeat(32)}`, /TLSA data for matching type 2 \(SHA-512\) must be 128 hex digits/],
    ['TLSA', '3 1 1 xyz', /TLSA certificate data must be hexadecimal/],
    ['TLSA', '3 1 1', /TLSA value must be "<usage 0-3> .*\(got "3 1 1"\): 1 field\(s\) missing/],
    ['DS', '60485 5', /DS value must be "<key tag 0-65535> .*\(got "60485 5"\): 2 field\(s\) missing/],
    ['CAA', '0 issue "ca.example" extra', /CAA value must be .*: unexpected "extra" after the last field/],
    ['SOA', 'ns1 hostmaster 1 2 3 4 5 6', /SOA value must be .*: unexpected "6" after the last field/],
    [
      'DS',
      '60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A2921',
      /DS digest of type 1 \(SHA-1\) must be 40 hex digits \(got 38\)/,
    ],
    ['DS', `60485 8 2 ${'ab'.repeat(20)}`, /DS digest of type 2 \(SHA-256\) must be 64 hex digits \(got 40\)/],
    ['DS', `60485 8 4 ${'ab'.repeat(32)}`, /DS digest of type 4 \(SHA-384\) must be 96 hex digits \(got 64\)/],
    [
      'DS',
      `60485 8 3 ${'ab'.repeat(32)}`,
      /DS digest type must be 1 \(SHA-1\), 2 \(SHA-256\) or 4 \(SHA-384\) \(got 3\)/,
    ],
    ['DS', `70000 8 2 ${'ab'.repeat(32)}`, /DS key tag must be an integer from 0 to 65535/],
    ['DS', `1 0 2 ${'ab'.repeat(32)}`, /DS algorithm must be an integer from 1 to 255 \(got "0"\)/],
    ['DS', `1 NOPE 2 ${'ab'.repeat(32)}`, /DS algorithm must be an integer from 1 to 255 \(got "NOPE"\)/],
    ['DS', '1 8 2', /DS value must be .*missing/],
    [
      'NAPTR',
      '100 10 "U" "E2U+sip"',
      /^NAPTR value must be "<order 0-65535> <preference 0-65535> \\?"<flags>\\?".*2 field\(s\) missing/,
    ],
    ['NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:x@example.com!"', /NAPTR value must be .*1 field\(s\) missing/],
    ['NAPTR', '100 10 "U!" "E2U+sip" "" host', /NAPTR flags must be letters and digits only/],
    [
      'NAPTR',
      '100 10 "U" "E2U+sip" "!^.*$!sip:x@example.com!" host',
      /NAPTR regexp and replacement exclude each other/,
    ],
    ['NAPTR', '100 10 "U" "caf\\195\\169" "" host', /NAPTR services must be printable ASCII/],
    [
      'NAPTR',
      '1 1 "U" "E2U" "1a1b1" .',
      /NAPTR regexp must be empty or "<delim><regex><delim><replacement><delim>\[i\]" .*: the delimiter \(first character\) must not be a digit/,
    ],
    ['NAPTR', '1 1 "U" "E2U" " " .', /it needs three " " delimiters/],
    ['NAPTR', '1 1 "U" "E2U" "!a!b" .', /it needs three "!" delimiters/],
    ['NAPTR', '1 1 "U" "E2U" "!a!b!i!" .', /more than three "!" delimiters/],
    ['NAPTR', '1 1 "U" "E2U" "!a!b!x" .', /the only flag is "i"/],
    ['NAPTR', '1 1 "U" "E2U" "!(a!x!" .', /the regex is not valid: a "\(" is not closed/],
    ['NAPTR', '1 1 "U" "E2U" "!!x!" .', /the regex is not valid: the regex is empty/],
    ['NAPTR', '1 1 "U" "E2U" "!+a!x!" .', /the regex is not valid: "\+" repeats nothing/],
    ['NAPTR', '1 1 "U" "E2U" "!a**!x!" .', /a repetition follows a repetition/],
    ['NAPTR', '1 1 "U" "E2U" "![z-a]!x!" .', /a range out of order/],
    ['NAPTR', '1 1 "U" "E2U" "![[:nope:]]!x!" .', /an unknown character class \[:nope:\]/],
    ['NAPTR', '1 1 "U" "E2U" "!a{3,2}!x!" .', /\{m,n\} with m > n/],
    ['NAPTR', '1 1 "U" "E2U" "!a|!x!" .', /the regex is not valid/],
    ['NAPTR', '1 1 "U" "E2U" "!(a)!\\\\2!" .', /refers to \\2 but the regex has 1 group/],
    ['NAPTR', '1 1 "U" "E2U" "!a!\\\\0!" .', /"\\0" is not a valid back-reference/],
    ['NAPTR', '70000 10 "U" "E2U" "" host', /NAPTR order must be an integer from 0 to 65535/],
    [
      'SOA',
      'ns1 hostmaster 1 2 3 4',
      /^SOA value must be "<primary name server> <responsible mailbox> <serial> <refresh> <retry> <expire> <minimum>" .*1 field\(s\) missing/,
    ],
    ['SOA', 'ns1', /SOA value must be .*6 field\(s\) missing/],
    ['SOA', 'ns1 hostmaster 4294967296 2 3 4 5', /SOA serial must be an integer from 0 to 4294967295/],
    [
      'SOA',
      'ns1 hostmaster 1 2x 3 4 5',
      /SOA refresh must be a number of seconds from 0 to 4294967295 or a duration like 1h \(got "2x"\)/,
    ],
    [
      'SOA',
      'ns1 host\\master 1 2 3 4 5',
      /SOA responsible mailbox "host\\\\master" is not valid: escaped characters are not supported in a mailbox name, except "\\\." in its first label/,
    ],
    ['SOA', 'ns1 a.b\\.c 1 2 3 4 5', /only supported in the first label/],
    ['SOA', 'n$1 hostmaster 1 2 3 4 5', /SOA primary name server "n\$1" is not a valid name/],
    [
      'SOA',
      'ns1 jo+hn@example.com 1 2 3 4 5',
      /SOA responsible mailbox "jo\+hn@example.com" is not valid: label "jo\+hn" contains "\+"/,
    ],
    [
      'SOA',
      'ns1 jo+hn.doe@example.com 1 2 3 4 5',
      /SOA responsible mailbox .* is not valid: in the local part: .*contains "\+"/,
    ],
  ])('%s %j', (type, text, message) => {
    expect(bad(type, text)).toMatch(message);
  });

  test('unknown type', () => {
    const e = valueError(() => parseValue('HINFO', '"cpu" "os"', ZONE));
    expect(e.message).toBe(`Unsupported record type "HINFO"; supported types are ${RECORD_TYPES.join(', ')}`);
    expect(e.field).toBe('type');
  });

  test('TXT of more than 65535 octets in total', () => {
    expect(bad('TXT', 'x'.repeat(70000))).toMatch(/at most 65535 fit in a record/);
  });

  test('errors from values have field "value"', () => {
    expect(valueError(() => parseValue('A', 'x', ZONE)).field).toBe('value');
  });
});

describe('TTL', () => {
  test('valid TTLs', () => {
    expect(validateTtl(0)).toBe(0);
    expect(validateTtl(300)).toBe(300);
    expect(validateTtl('300')).toBe(300);
    expect(validateTtl(MAX_TTL)).toBe(MAX_TTL);
    expect(parseTtl('1h30m')).toBe(5400);
    expect(parseTtl('1w')).toBe(604800);
    expect(parseTtl('2D')).toBe(172800);
    expect(parseTtl('10s')).toBe(10);
    expect(parseTtl('30m')).toBe(1800);
  });

  test.each([
    [-1, /TTL must be an integer number of seconds from 0 to 2147483647; it must not be negative \(got -1\)/],
    [MAX_TTL + 1, /it is too big \(got 2147483648\)/],
    [1.5, /it is not an integer \(got 1.5\)/],
    [NaN, /not an integer/],
    ['abc', /TTL must be an integer number of seconds from 0 to 2147483647 \(got "abc"\)/],
    ['-5', /\(got "-5"\)/],
    ['1h', /\(got "1h"\)/],
    [null, /\(got null\)/],
    [undefined, /\(got undefined\)/],
  ])('validateTtl(%p)', (ttl, message) => {
    const e = valueError(() => validateTtl(ttl));
    expect(e.message).toMatch(message);
    expect(e.field).toBe('ttl');
  });

  test.each([
    ['1x', /duration like 1h30m/],
    ['h', /duration like 1h30m/],
    ['', /duration like 1h30m/],
    ['10000w', /too big/],
  ])('parseTtl(%p)', (text, message) => {
    expect(valueError(() => parseTtl(text)).message).toMatch(message);
  });
});

describe('validateRecord', () => {
  test('normalises name, type, TTL and value', () => {
    expect(validateRecord({ name: 'WWW', type: 'cname', ttl: '300', value: '@' }, ZONE)).toEqual({
      name: 'www.example.com',
      type: 'CNAME',
      ttl: 300,
      value: 'example.com.',
    });
    expect(validateRecord({ name: '@', type: 'MX', ttl: 3600, value: '10 mail' }, 'Example.COM.')).toEqual({
      name: 'example.com',
      type: 'MX',
      ttl: 3600,
      value: '10 mail.example.com.',
    });
    expect(validateRecord({ name: 'bücher', type: 'A', ttl: 1, value: '192.0.2.1' }, ZONE).name).toBe(
      'xn--bcher-kva.example.com',
    );
  });

  test('api syntax: a name without trailing dot that does not end with the zone is relative to it', () => {
    expect(validateRecord({ name: 'www.other.org', type: 'A', ttl: 1, value: '192.0.2.1' }, ZONE).name).toBe(
      'www.other.org.example.com',
    );
    expect(validateRecord({ name: 'www.example.com', type: 'A', ttl: 1, value: '192.0.2.1' }, ZONE).name).toBe(
      'www.example.com',
    );
  });

  test('a name outside the zone', () => {
    const e = valueError(() =>
      validateRecord({ name: 'www.example.org.', type: 'A', ttl: 300, value: '192.0.2.1' }, ZONE),
    );
    expect(e.message).toBe('Name "www.example.org." is not inside zone "example.com."');
    expect(e.field).toBe('name');
  });

  test('a bad name is reported with field "name"', () => {
    const e = valueError(() => validateRecord({ name: 'a b', type: 'A', ttl: 300, value: '192.0.2.1' }, ZONE));
    expect(e.field).toBe('name');
    expect(e.message).toMatch(/Invalid name "a b": label "a b" contains " "/);
  });

  test('an unsupported type is reported with field "type"', () => {
    const e = valueError(() => validateRecord({ name: 'www', type: 'LOC', ttl: 300, value: 'x' }, ZONE));
    expect(e.field).toBe('type');
    expect(e.message).toMatch(/Unsupported record type "LOC"; supported types are A, AAAA,/);
  });

  test('a bad TTL is reported with field "ttl"', () => {
    expect(valueError(() => validateRecord({ name: 'www', type: 'A', ttl: -1, value: '192.0.2.1' }, ZONE)).field).toBe(
      'ttl',
    );
  });

  test('no NS records at a wildcard name', () => {
    const e = valueError(() => validateRecord({ name: '*.sub', type: 'NS', ttl: 300, value: 'ns1' }, ZONE));
    expect(e.message).toBe('NS records are not allowed at a wildcard name like "*.sub.example.com." (RFC 4592 §4.2)');
    expect(e.field).toBe('name');
    expect(validateRecord({ name: '*.sub', type: 'MX', ttl: 300, value: '1 mx' }, ZONE).name).toBe('*.sub.example.com');
  });

  test('no DS record at the apex', () => {
    const e = valueError(() =>
      validateRecord({ name: '@', type: 'DS', ttl: 300, value: `1 13 2 ${'ab'.repeat(32)}` }, ZONE),
    );
    expect(e.message).toBe(
      'A DS record cannot be at the apex of zone "example.com.": it belongs in the parent zone, at the delegation point',
    );
    expect(e.field).toBe('name');
    expect(validateRecord({ name: 'child', type: 'DS', ttl: 300, value: `1 13 2 ${'ab'.repeat(32)}` }, ZONE).name).toBe(
      'child.example.com',
    );
  });

  test('SOA only at the apex', () => {
    const e = valueError(() => validateRecord({ name: 'sub', type: 'SOA', ttl: 300, value: 'ns1 hm 1 2 3 4 5' }, ZONE));
    expect(e.message).toMatch(/An SOA record belongs at the zone apex "example.com.", not at "sub.example.com."/);
  });
});

describe('SOA and mailbox helpers', () => {
  test('emailToRname / rnameToEmail', () => {
    expect(emailToRname('hostmaster@example.com')).toBe('hostmaster.example.com');
    expect(emailToRname('John.Doe@Example.com')).toBe('john\\.doe.example.com');
    expect(rnameToEmail('john\\.doe.example.com')).toBe('john.doe@example.com');
    expect(rnameToEmail('hostmaster.example.com')).toBe('hostmaster@example.com');
    expect(() => emailToRname('no-at-sign')).toThrow(/must look like user@example.com/);
    expect(() => emailToRname('a..b@example.com')).toThrow(/empty part/);
  });

  test('normalizeMailbox keeps the escaped dot in the first label only', () => {
    expect(normalizeMailbox('john\\.doe', 'example.com', { syntax: 'master' })).toBe('john\\.doe.example.com');
    expect(normalizeMailbox('john\\.doe.example.com.', undefined)).toBe('john\\.doe.example.com');
  });

  test('parseSoa / formatSoa', () => {
    const soa = parseSoa('ns1 john\\.doe 7 1h 2h 3h 4h', ZONE);
    expect(soa).toEqual({
      mname: 'ns1.example.com',
      rname: 'john\\.doe.example.com',
      serial: 7,
      refresh: 3600,
      retry: 7200,
      expire: 10800,
      minimum: 14400,
    });
    expect(formatSoa(soa)).toBe('ns1.example.com. john\\.doe.example.com. 7 3600 7200 10800 14400');
  });

  test('formatValueRelative writes names inside the zone relative to it', () => {
    expect(formatValueRelative('MX', '10 mail.example.com.', ZONE)).toBe('10 mail');
    expect(formatValueRelative('MX', '10 mail.example.net.', ZONE)).toBe('10 mail.example.net.');
    expect(formatValueRelative('CNAME', 'example.com.', ZONE)).toBe('@');
    expect(formatValueRelative('SOA', 'ns1.example.com. john\\.doe.example.com. 1 2 3 4 5', ZONE)).toBe(
      'ns1 john\\.doe 1 2 3 4 5',
    );
    expect(formatValueRelative('SOA', 'ns1.example.com. a\\.example.com. 1 2 3 4 5', ZONE)).toBe(
      'ns1 a\\.example.com. 1 2 3 4 5',
    );
    expect(formatValueRelative('NAPTR', '1 1 "S" "SIP+D2U" "" _sip._udp.example.com.', ZONE)).toBe(
      '1 1 "S" "SIP+D2U" "" _sip._udp',
    );
    expect(formatValueRelative('TXT', '"a" "b"', ZONE)).toBe('"a" "b"');
  });
});
