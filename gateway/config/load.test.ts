import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './load';

const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('defaults follow the runtime contract of DESIGN.md', () => {
  const c = loadConfig({ env: {} });
  expect(c).toMatchObject({
    port: 4000, dnsApiPort: 8081, dnsHost: '127.0.0.1', dnsPort: 5353, dataDir: './data', marketProvider: 'simulated',
    liveIntervalMs: 15000, responseCache: true,
  });
  expect(c.redisUrl).toBeUndefined();
  expect(c.databaseUrl).toBeUndefined();
});

test('file < environment < flags', () => {
  const yaml = file('c.yaml', 'port: 5000\nmarketProvider: google\nlogLevel: debug\n');
  const c = loadConfig({ file: yaml, env: { PORT: '6000' }, flags: { logLevel: 'warn' } });
  expect(c.port).toBe(6000);
  expect(c.marketProvider).toBe('google');
  expect(c.logLevel).toBe('warn');
  const json = file('c.json', JSON.stringify({ marketCacheTtl: { quote: 3 } }));
  expect(loadConfig({ file: json, env: {} }).marketCacheTtl).toMatchObject({ quote: 3, company: 3600 });
});

test('CONFIG in the environment names the file', () => {
  const yaml = file('env.yaml', 'port: 7001\n');
  expect(loadConfig({ env: { CONFIG: yaml } }).port).toBe(7001);
});

test.each([
  [{ MARKET_PROVIDER: 'yahoo' }, /MARKET_PROVIDER \(marketProvider\) must be one of: simulated, google/],
  [{ PORT: 'eighty' }, /PORT \(port\)/],
  [{ PORT: '70000' }, /PORT \(port\).*65535/],
  [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL \(redisUrl\): must be a redis:\/\/ or rediss:\/\/ URL/],
  [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL \(databaseUrl\): must be a postgres/],
  [{ LIVE_INTERVAL_MS: '10' }, /LIVE_INTERVAL_MS \(liveIntervalMs\)/],
  [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL \(logLevel\) must be one of: fatal, error, warn, info, debug, trace, silent/],
  [{ MARKET_CLOCK: 'yesterday' }, /MARKET_CLOCK \(marketClock\)/],
  [{ RESPONSE_CACHE: 'maybe' }, /RESPONSE_CACHE \(responseCache\)/],
  [{ GOOGLE_FINANCE_URL: 'ftp://x' }, /GOOGLE_FINANCE_URL \(googleFinanceUrl\)/],
  [{ UPSTREAM_RETRIES: '9' }, /UPSTREAM_RETRIES \(upstreamRetries\)/],
  [{ LIVE_MAX_CONNECTIONS: '0' }, /LIVE_MAX_CONNECTIONS \(liveMaxConnections\)/],
  [{ LIVE_MAX_CONNECTIONS_PER_CLIENT: 'many' }, /LIVE_MAX_CONNECTIONS_PER_CLIENT \(liveMaxConnectionsPerClient\)/],
  [{ LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '0' }, /LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION \(liveMaxSubscriptionsPerConnection\)/],
  [{ LIVE_MAX_TICKERS_PER_SUBSCRIPTION: '1001' }, /LIVE_MAX_TICKERS_PER_SUBSCRIPTION \(liveMaxTickersPerSubscription\)/],
  [{ LIVE_HEARTBEAT_MS: '5' }, /LIVE_HEARTBEAT_MS \(liveHeartbeatMs\)/],
  [{ REDIS_PREFIX: 'has space' }, /REDIS_PREFIX \(redisPrefix\): must be 1–64 letters, digits or \. _ : -/],
])('bad environment value %j stops start-up naming the key', (env, message) => {
  expect(() => loadConfig({ env })).toThrow(ConfigError);
  expect(() => loadConfig({ env })).toThrow(message);
});

test('unknown keys and bad nested values in a file are named', () => {
  expect(() => loadConfig({ file: file('u.yaml', 'prot: 1\n'), env: {} })).toThrow(/unknown key\(s\) prot/);
  expect(() => loadConfig({ file: file('t.yaml', 'marketCacheTtl:\n  quote: 0\n'), env: {} })).toThrow(/marketCacheTtl\.quote/);
});

test('an unreadable or malformed file is a ConfigError naming CONFIG', () => {
  expect(() => loadConfig({ file: join(dir, 'missing.yaml'), env: {} })).toThrow(/CONFIG: cannot read config file/);
  expect(() => loadConfig({ file: file('bad.json', '{ nope'), env: {} })).toThrow(/CONFIG: .*bad.json is not valid JSON/);
  expect(() => loadConfig({ file: file('list.yaml', '- 1\n- 2\n'), env: {} })).toThrow(/must hold an object/);
});

test('boolean settings accept true/false/1/0/yes/no', () => {
  expect(loadConfig({ env: { RESPONSE_CACHE: 'no' } }).responseCache).toBe(false);
  expect(loadConfig({ env: { RESPONSE_CACHE: '1' } }).responseCache).toBe(true);
});

describe('live stream buffers and reservations', () => {
  test('defaults: 1 MiB per stream, 256 MiB per process, 60 s for a stuck client, 10 s for a reservation', () => {
    expect(loadConfig({ env: {} })).toMatchObject({
      liveMaxStreamBufferBytes: 1024 * 1024, liveMaxBufferedBytes: 256 * 1024 * 1024, liveSlowClientTimeoutMs: 60_000, liveReservationTimeoutMs: 10_000,
    });
  });

  test.each([
    [{ LIVE_MAX_STREAM_BUFFER_BYTES: '100' }, /LIVE_MAX_STREAM_BUFFER_BYTES \(liveMaxStreamBufferBytes\): .*1024/],
    [{ LIVE_MAX_STREAM_BUFFER_BYTES: 'big' }, /LIVE_MAX_STREAM_BUFFER_BYTES \(liveMaxStreamBufferBytes\)/],
    [{ LIVE_MAX_BUFFERED_BYTES: '-1' }, /LIVE_MAX_BUFFERED_BYTES \(liveMaxBufferedBytes\)/],
    [{ LIVE_MAX_STREAM_BUFFER_BYTES: '2097152', LIVE_MAX_BUFFERED_BYTES: '1048576' },
      /LIVE_MAX_BUFFERED_BYTES \(liveMaxBufferedBytes\): must be at least liveMaxStreamBufferBytes/],
    [{ LIVE_SLOW_CLIENT_TIMEOUT_MS: '10' }, /LIVE_SLOW_CLIENT_TIMEOUT_MS \(liveSlowClientTimeoutMs\): .*100/],
    [{ LIVE_RESERVATION_TIMEOUT_MS: '0' }, /LIVE_RESERVATION_TIMEOUT_MS \(liveReservationTimeoutMs\): .*100/],
    [{ LIVE_RESERVATION_TIMEOUT_MS: '600001' }, /LIVE_RESERVATION_TIMEOUT_MS \(liveReservationTimeoutMs\): .*600000/],
  ])('bad value %j is refused naming the key and the bound', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  test('values in range are taken', () => {
    expect(loadConfig({ env: { LIVE_MAX_STREAM_BUFFER_BYTES: '65536', LIVE_MAX_BUFFERED_BYTES: '65536', LIVE_SLOW_CLIENT_TIMEOUT_MS: '500', LIVE_RESERVATION_TIMEOUT_MS: '250' } }))
      .toMatchObject({ liveMaxStreamBufferBytes: 65536, liveMaxBufferedBytes: 65536, liveSlowClientTimeoutMs: 500, liveReservationTimeoutMs: 250 });
  });
});
