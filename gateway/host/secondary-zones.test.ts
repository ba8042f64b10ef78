import { ConfigError, loadConfig } from './config/load';
import { secondaryZonesFor } from './secondary-zones';

const context = { keys: ['xfr'], storeZones: new Set(['primary.test']), workers: 'auto' as const };

test('DNS_SECONDARY_ZONES is read as a comma-separated list and checked at load', () => {
  const env = { DNS_SECONDARY_ZONES: 'a.test@192.0.2.1:53, b.test@[2001:db8::1]:5353/xfr' };
  expect(loadConfig({ env }).dnsSecondaryZones).toEqual(['a.test@192.0.2.1:53', 'b.test@[2001:db8::1]:5353/xfr']);
  expect(loadConfig({ env: {} }).dnsSecondaryZones).toEqual([]);
});

test.each([
  ['a.test@192.0.2.1', /is not zone@address:port\[\/key\]/],
  ['a.test@host.example:53', /the primary must be an IP address/],
  ['a.test@192.0.2.1:99999', /the port must be from 1 to 65535/],
  ['a..test@192.0.2.1:53', /the zone is no domain name/],
  ['a.test@192.0.2.1:53,a.test@192.0.2.2:53', /zone a\.test is listed twice/],
])('DNS_SECONDARY_ZONES=%s stops the start naming the setting: %s', (value, message) => {
  const load = () => loadConfig({ env: { DNS_SECONDARY_ZONES: value } });
  expect(load).toThrow(ConfigError);
  expect(load).toThrow(/DNS_SECONDARY_ZONES \(dnsSecondaryZones\)/);
  expect(load).toThrow(message);
  expect(load).toThrow(/each entry: zone@address:port\[\/key\]/);
});

test('zones and workers to start: auto answer workers become none (they read the store only)', () => {
  expect(secondaryZonesFor(['a.test@192.0.2.1:53/xfr'], context)).toEqual({
    zones: [{ zone: 'a.test', primary: { host: '192.0.2.1', port: 53 }, key: 'xfr' }],
    workers: 0,
  });
  expect(secondaryZonesFor(['a.test@192.0.2.1:53'], { ...context, workers: 0 }).workers).toBe(0);
  // none configured: workers as configured
  expect(secondaryZonesFor([], { ...context, workers: 3 })).toEqual({ zones: [], workers: 3 });
});

test('a key that is not configured is refused, naming the setting and the keys there are', () => {
  expect(() => secondaryZonesFor(['a.test@192.0.2.1:53/other'], context)).toThrow(
    /DNS_SECONDARY_ZONES \(dnsSecondaryZones\): zone a\.test names TSIG key "other", which is not configured \(TSIG_KEYFILE holds xfr\)/,
  );
  expect(() => secondaryZonesFor(['a.test@192.0.2.1:53/other'], { ...context, keys: [] })).toThrow(/holds no key/);
});

test('a zone that is also in the store is refused at start with what to do', () => {
  const start = () => secondaryZonesFor(['primary.test@192.0.2.1:53'], context);
  expect(start).toThrow(ConfigError);
  expect(start).toThrow(
    /DNS_SECONDARY_ZONES \(dnsSecondaryZones\): zone primary\.test is in the zone store, served as its primary; .*DELETE \/api\/v1\/zones\/primary\.test.*remove it from the setting/,
  );
});

test('answer workers asked for explicitly are refused with secondary zones', () => {
  expect(() => secondaryZonesFor(['a.test@192.0.2.1:53'], { ...context, workers: 2 })).toThrow(
    /DNS_SECONDARY_ZONES \(dnsSecondaryZones\): .*DNS_WORKERS must be 0 or auto \(it is 2\)/,
  );
});
