import { ToolError } from '../protocol';
import { isValidHostname, recordFqdn, zoneOfName } from './hostnames';
import { ipv4ReverseName, ipv6ReverseName } from './reverse';

describe('hostnames', () => {
  test.each(['www', 'a.b.example.test', '*.example.test', '_sip._tcp.example.test', 'x-1', 'example.test.'])(
    '%p is a valid hostname',
    (name) => expect(isValidHostname(name)).toBe(true),
  );
  test.each(['', '-lead', '+lead', 'sp ace', 'semi;colon', 'quote"', 'ünï', 'a/b', 'x'.repeat(256)])(
    '%p is not a valid hostname',
    (name) => expect(isValidHostname(name)).toBe(false),
  );

  test('record names: relative to a zone, @ for the apex, absolute with a trailing dot, else the FQDN itself', () => {
    expect(recordFqdn('www', 'Example.Test')).toBe('www.example.test');
    expect(recordFqdn('@', 'example.test.')).toBe('example.test');
    expect(recordFqdn('', 'example.test')).toBe('example.test');
    expect(recordFqdn('host.other.test.', 'example.test')).toBe('host.other.test');
    expect(recordFqdn('WWW.Example.Test.')).toBe('www.example.test');
  });

  test('a record name with invalid characters is the tool\'s "Invalid hostname" error', () => {
    const err = (() => {
      try {
        recordFqdn('bad name', 'example.test');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toMatchObject({
      error: 'Invalid hostname',
      message: 'Hostname is containing invalid characters',
      code: -1,
    });
  });

  test('the zone of a name is the longest configured suffix, case-insensitive, single labels too', () => {
    const zones = ['example.test', 'sub.example.test', 'lan', '2.0.192.in-addr.arpa'];
    expect(zoneOfName('www.example.test', zones)).toBe('example.test');
    expect(zoneOfName('a.SUB.example.test.', zones)).toBe('sub.example.test');
    expect(zoneOfName('sub.example.test', zones)).toBe('sub.example.test');
    expect(zoneOfName('printer.lan', zones)).toBe('lan');
    expect(zoneOfName('1.2.0.192.in-addr.arpa', zones)).toBe('2.0.192.in-addr.arpa');
    expect(zoneOfName('notexample.test', zones)).toBeNull();
    expect(zoneOfName('www.other.test', zones)).toBeNull();
  });
});

describe('reverse names', () => {
  test('IPv4 and IPv6 (nibbles)', () => {
    expect(ipv4ReverseName('192.0.2.10')).toBe('10.2.0.192.in-addr.arpa');
    expect(ipv6ReverseName('2001:db8::1')).toBe(
      '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    );
  });
  test.each(['192.0.2', '192.0.2.256', 'host', '2001:db8::1'])('%p has no IPv4 reverse name', (a) =>
    expect(ipv4ReverseName(a)).toBeNull(),
  );
  test.each(['192.0.2.1', '2001:db8:::1', 'zz::1'])('%p has no IPv6 reverse name', (a) =>
    expect(ipv6ReverseName(a)).toBeNull(),
  );
});
