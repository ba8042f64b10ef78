import { parseKeyFile } from '../../dns/tsig/keyfile';
import { DnsToolSchema } from './config';
import { toolZones, ToolZonesError } from './zones';

const KEYS = parseKeyFile(
  'key "tool" { algorithm hmac-sha256; secret "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"; };\nkey "other" { algorithm hmac-sha512; secret "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"; };',
);
const [TOOL, OTHER] = KEYS;
const EMBEDDED = { address: { host: '127.0.0.1', port: 5353 }, key: OTHER, zones: ['example.test', 'lan'] };
const settings = (zones: unknown) => DnsToolSchema.parse({ zones });

test('no zones configured: every zone of the embedded server, through its address and key', () => {
  expect(toolZones(DnsToolSchema.parse({}), KEYS, EMBEDDED)).toEqual([
    expect.objectContaining({ name: 'example.test', updateServerText: '127.0.0.1 5353', key: OTHER, readOnly: false }),
    expect.objectContaining({ name: 'lan', transferServer: { host: '127.0.0.1', port: 5353 } }),
  ]);
});

test('configured zones: servers as written, transfer defaults to update, keys by name, notes and flags kept', () => {
  const zones = toolZones(
    settings({
      'Example.Test.': {
        updateServer: '192.0.2.53 5300',
        tsigKey: 'TOOL',
        note: 'n',
        readOnly: true,
        inTransfer: false,
      },
      lan: {},
    }),
    KEYS,
    EMBEDDED,
  );
  expect(zones[0]).toEqual({
    name: 'example.test',
    updateServer: { host: '192.0.2.53', port: 5300 },
    updateServerText: '192.0.2.53 5300',
    transferServer: { host: '192.0.2.53', port: 5300 },
    transferServerText: '192.0.2.53 5300',
    key: TOOL,
    readOnly: true,
    note: 'n',
    inTransfer: false,
  });
  // a zone with no servers goes to the embedded server, with its key
  expect(zones[1]).toMatchObject({ name: 'lan', updateServerText: '127.0.0.1 5353', key: OTHER });
});

test.each([
  [
    'an unknown key name',
    { 'x.test': { tsigKey: 'missing' } },
    EMBEDDED,
    /dnsTool\.zones\.x\.test\.tsigKey: no key "missing" in TSIG_KEYFILE \(keys: tool, other\)/,
  ],
  [
    'no server and no embedded one',
    { 'x.test': {} },
    undefined,
    /dnsTool\.zones\.x\.test\.updateServer: required \(no embedded DNS server\)/,
  ],
])('%s is refused naming the key', (_what, zones, embedded, message) => {
  expect(() => toolZones(settings(zones), KEYS, embedded)).toThrow(ToolZonesError);
  expect(() => toolZones(settings(zones), KEYS, embedded)).toThrow(message);
});

test('no zones configured and no embedded server: no zones to manage (not an error: the tool still starts)', () => {
  expect(toolZones(DnsToolSchema.parse({}), KEYS)).toEqual([]);
  // with the embedded server, its zones
  expect(toolZones(DnsToolSchema.parse({}), KEYS, EMBEDDED).length).toBeGreaterThan(0);
});
