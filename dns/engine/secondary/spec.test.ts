import { parseSecondaryZone, parseSecondaryZones } from './spec';

test('an entry: zone, IPv4 or bracketed IPv6 primary, port, optional key (names in model form)', () => {
  expect(parseSecondaryZone('Example.COM.@192.0.2.1:53')).toEqual({
    zone: 'example.com',
    primary: { host: '192.0.2.1', port: 53 },
  });
  expect(parseSecondaryZone('example.com@[2001:db8::1]:5353/XFR-Key.')).toEqual({
    zone: 'example.com',
    primary: { host: '2001:db8::1', port: 5353 },
    key: 'xfr-key',
  });
});

test.each([
  ['example.com', /is not zone@address:port\[\/key\]/],
  ['example.com@192.0.2.1', /is not zone@address:port\[\/key\]/],
  ['@192.0.2.1:53', /is not zone@address:port/],
  ['example.com@192.0.2.1:53/', /is not zone@address:port/],
  ['exa mple.com@192.0.2.1:53', /is not zone@address:port/],
  ['bad..name@192.0.2.1:53', /the zone is no domain name/],
  [`${'a'.repeat(64)}.com@192.0.2.1:53`, /the zone is no domain name/],
  ['example.com@ns1.example.net:53', /the primary must be an IP address \(ns1\.example\.net is not one\)/],
  ['example.com@192.0.2.300:53', /the primary must be an IP address/],
  ['example.com@[192.0.2.1]:53', /an IPv6 primary is written in brackets/],
  ['example.com@192.0.2.1:0', /the port must be from 1 to 65535/],
  ['example.com@192.0.2.1:70000', /the port must be from 1 to 65535/],
])('%s is refused: %s', (entry, message) => {
  expect(() => parseSecondaryZone(entry)).toThrow(message);
});

test('a zone listed twice is refused', () => {
  expect(() => parseSecondaryZones(['a.test@192.0.2.1:53', 'A.test.@192.0.2.2:53'])).toThrow(
    'zone a.test is listed twice',
  );
});
