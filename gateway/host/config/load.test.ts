import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, envSetting, loadConfig } from './load';
import { signingPolicyOf } from './schema';

const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('defaults follow the runtime contract (docs/operations.md, "Starting")', () => {
  const c = loadConfig({ env: {} });
  expect(c).toMatchObject({
    port: 4000,
    dnsApiPort: 8081,
    dnsHost: '127.0.0.1',
    dnsPort: 5353,
    dataDir: './data',
    marketProvider: 'simulated',
    liveIntervalMs: 15000,
    responseCache: true,
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
  [
    { LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION: '0' },
    /LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION \(liveMaxSubscriptionsPerConnection\)/,
  ],
  [
    { LIVE_MAX_TICKERS_PER_SUBSCRIPTION: '1001' },
    /LIVE_MAX_TICKERS_PER_SUBSCRIPTION \(liveMaxTickersPerSubscription\)/,
  ],
  [{ LIVE_HEARTBEAT_MS: '5' }, /LIVE_HEARTBEAT_MS \(liveHeartbeatMs\)/],
  [{ REDIS_PREFIX: 'has space' }, /REDIS_PREFIX \(redisPrefix\): must be 1–64 letters, digits or \. _ : -/],
  [{ REDIS_CONNECT_TIMEOUT_MS: '10' }, /REDIS_CONNECT_TIMEOUT_MS \(redisConnectTimeoutMs\).*50/],
  [{ REDIS_CONNECT_TIMEOUT_MS: 'soon' }, /REDIS_CONNECT_TIMEOUT_MS \(redisConnectTimeoutMs\)/],
  [{ REDIS_COMMAND_TIMEOUT_MS: '5' }, /REDIS_COMMAND_TIMEOUT_MS \(redisCommandTimeoutMs\).*10/],
  [{ REDIS_COMMAND_TIMEOUT_MS: '60001' }, /REDIS_COMMAND_TIMEOUT_MS \(redisCommandTimeoutMs\).*60000/],
  [{ DNS_REPLICA_CHECK_MS: '-1' }, /DNS_REPLICA_CHECK_MS \(dnsReplicaCheckMs\)/],
  [{ DNS_REPLICA_CHECK_MS: '3600001' }, /DNS_REPLICA_CHECK_MS \(dnsReplicaCheckMs\).*3600000/],
  [{ DNS_REPLICA_CHECK_MS: 'often' }, /DNS_REPLICA_CHECK_MS \(dnsReplicaCheckMs\)/],
  [{ DNS_CATALOG_ZONE: 'not a name' }, /DNS_CATALOG_ZONE \(dnsCatalogZone\): must be a domain name/],
  [{ DNS_CATALOG_ZONE: '-bad.example' }, /DNS_CATALOG_ZONE \(dnsCatalogZone\): must be a domain name/],
  [{ PERSISTED_QUERIES: 'sometimes' }, /PERSISTED_QUERIES \(persistedQueries\)/],
  [{ PERSISTED_QUERIES_ENTRIES: '0' }, /PERSISTED_QUERIES_ENTRIES \(persistedQueriesEntries\).*>=1/],
  [{ PERSISTED_QUERIES_ENTRIES: 'lots' }, /PERSISTED_QUERIES_ENTRIES \(persistedQueriesEntries\)/],
  [{ PERSISTED_QUERIES_BYTES: '1023' }, /PERSISTED_QUERIES_BYTES \(persistedQueriesBytes\).*>=1024/],
  [{ PERSISTED_DOCUMENTS_ONLY: 'strict' }, /PERSISTED_DOCUMENTS_ONLY \(persistedDocumentsOnly\)/],
  [
    { PERSISTED_DOCUMENTS_ONLY: 'true' },
    /PERSISTED_DOCUMENTS_ONLY \(persistedDocumentsOnly\): needs PERSISTED_DOCUMENTS/,
  ],
])('bad environment value %j stops start-up naming the key', (env, message) => {
  expect(() => loadConfig({ env })).toThrow(ConfigError);
  expect(() => loadConfig({ env })).toThrow(message);
});

test('unknown keys and bad nested values in a file are named', () => {
  expect(() => loadConfig({ file: file('u.yaml', 'prot: 1\n'), env: {} })).toThrow(/unknown key\(s\) prot/);
  expect(() => loadConfig({ file: file('t.yaml', 'marketCacheTtl:\n  quote: 0\n'), env: {} })).toThrow(
    /marketCacheTtl\.quote/,
  );
});

test('an unreadable or malformed file is a ConfigError naming CONFIG', () => {
  expect(() => loadConfig({ file: join(dir, 'missing.yaml'), env: {} })).toThrow(/CONFIG: cannot read config file/);
  expect(() => loadConfig({ file: file('bad.json', '{ nope'), env: {} })).toThrow(
    /CONFIG: .*bad.json is not valid JSON/,
  );
  expect(() => loadConfig({ file: file('list.yaml', '- 1\n- 2\n'), env: {} })).toThrow(/must hold an object/);
});

test('Redis timeouts: bounded defaults, and the environment sets them', () => {
  expect(loadConfig({ env: {} })).toMatchObject({ redisConnectTimeoutMs: 1000, redisCommandTimeoutMs: 500 });
  expect(loadConfig({ env: { REDIS_CONNECT_TIMEOUT_MS: '250', REDIS_COMMAND_TIMEOUT_MS: '100' } })).toMatchObject({
    redisConnectTimeoutMs: 250,
    redisCommandTimeoutMs: 100,
  });
});

test('boolean settings accept true/false/1/0/yes/no/on/off', () => {
  expect(loadConfig({ env: { RESPONSE_CACHE: 'no' } }).responseCache).toBe(false);
  expect(loadConfig({ env: { RESPONSE_CACHE: '1' } }).responseCache).toBe(true);
  expect(loadConfig({ env: { PERSISTED_QUERIES: 'off' } }).persistedQueries).toBe(false);
  expect(loadConfig({ env: { PERSISTED_QUERIES: 'ON' } }).persistedQueries).toBe(true);
});

test('persisted queries: on, bounded to 10 000 documents and 32 MiB, no manifest, nothing enforced by default', () => {
  expect(loadConfig({ env: {} })).toMatchObject({
    persistedQueries: true,
    persistedQueriesEntries: 10_000,
    persistedQueriesBytes: 32 * 1024 ** 2,
    persistedDocumentsOnly: false,
  });
  expect(loadConfig({ env: {} }).persistedDocuments).toBeUndefined();
  expect(
    loadConfig({ env: { PERSISTED_DOCUMENTS: '/etc/onegraph/pq.json', PERSISTED_DOCUMENTS_ONLY: 'yes' } }),
  ).toMatchObject({ persistedDocuments: '/etc/onegraph/pq.json', persistedDocumentsOnly: true });
});

describe('DNS limits: records per RRset, DNS over TCP', () => {
  test('defaults: 100 records per RRset (BIND 9), 150 TCP connections (BIND), 10 s idle and message deadlines, 256 KiB buffered', () => {
    expect(loadConfig({ env: {} })).toMatchObject({
      dnsMaxRecordsPerRrset: 100,
      dnsTcpMaxConnections: 150,
      dnsTcpIdleMs: 10_000,
      dnsTcpMessageMs: 10_000,
      dnsTcpMaxBufferedBytes: 262_144,
      dnsWorkers: 'auto',
    });
  });

  test('set from the environment (0 records per RRset = no limit)', () => {
    expect(
      loadConfig({
        env: {
          DNS_MAX_RECORDS_PER_RRSET: '0',
          DNS_TCP_MAX_CONNECTIONS: '1',
          DNS_TCP_IDLE_MS: '100',
          DNS_TCP_MESSAGE_MS: '600000',
          DNS_TCP_MAX_BUFFERED_BYTES: '1024',
          DNS_WORKERS: '0',
        },
      }),
    ).toMatchObject({
      dnsMaxRecordsPerRrset: 0,
      dnsTcpMaxConnections: 1,
      dnsTcpIdleMs: 100,
      dnsTcpMessageMs: 600_000,
      dnsTcpMaxBufferedBytes: 1024,
      dnsWorkers: 0,
    });
  });

  test.each([
    [{ DNS_MAX_RECORDS_PER_RRSET: '-1' }, /DNS_MAX_RECORDS_PER_RRSET \(dnsMaxRecordsPerRrset\).*>=0/],
    [{ DNS_MAX_RECORDS_PER_RRSET: '1.5' }, /DNS_MAX_RECORDS_PER_RRSET \(dnsMaxRecordsPerRrset\)/],
    [{ DNS_MAX_RECORDS_PER_RRSET: '1000001' }, /DNS_MAX_RECORDS_PER_RRSET \(dnsMaxRecordsPerRrset\).*1000000/],
    [{ DNS_TCP_MAX_CONNECTIONS: '0' }, /DNS_TCP_MAX_CONNECTIONS \(dnsTcpMaxConnections\).*>=1/],
    [{ DNS_TCP_MAX_CONNECTIONS: 'lots' }, /DNS_TCP_MAX_CONNECTIONS \(dnsTcpMaxConnections\)/],
    [{ DNS_TCP_IDLE_MS: '99' }, /DNS_TCP_IDLE_MS \(dnsTcpIdleMs\).*>=100/],
    [{ DNS_TCP_IDLE_MS: '3600001' }, /DNS_TCP_IDLE_MS \(dnsTcpIdleMs\).*3600000/],
    [{ DNS_TCP_MESSAGE_MS: '50' }, /DNS_TCP_MESSAGE_MS \(dnsTcpMessageMs\).*>=100/],
    [{ DNS_TCP_MESSAGE_MS: '600001' }, /DNS_TCP_MESSAGE_MS \(dnsTcpMessageMs\).*600000/],
    [{ DNS_TCP_MAX_BUFFERED_BYTES: '1023' }, /DNS_TCP_MAX_BUFFERED_BYTES \(dnsTcpMaxBufferedBytes\).*>=1024/],
    [{ DNS_TCP_MAX_BUFFERED_BYTES: '67108865' }, /DNS_TCP_MAX_BUFFERED_BYTES \(dnsTcpMaxBufferedBytes\).*67108864/],
    [{ DNS_WORKERS: 'many' }, /DNS_WORKERS \(dnsWorkers\).*'auto' or a whole number from 0 to 64/],
    [{ DNS_WORKERS: '65' }, /DNS_WORKERS \(dnsWorkers\).*<=64/],
    [{ DNS_WORKERS: '-1' }, /DNS_WORKERS \(dnsWorkers\).*>=0/],
  ])('bad value %j stops start-up naming the key and the bound', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(ConfigError);
    expect(() => loadConfig({ env })).toThrow(message);
  });
});

describe('live stream buffers and reservations', () => {
  test('defaults: 1 MiB per stream, 256 MiB per process, 60 s for a stuck client, 10 s for a reservation', () => {
    expect(loadConfig({ env: {} })).toMatchObject({
      liveMaxStreamBufferBytes: 1024 * 1024,
      liveMaxBufferedBytes: 256 * 1024 * 1024,
      liveSlowClientTimeoutMs: 60_000,
      liveReservationTimeoutMs: 10_000,
      liveWsInitTimeoutMs: 10_000,
      liveWsKeepAliveMs: 12_000,
    });
  });

  test.each([
    [{ LIVE_MAX_STREAM_BUFFER_BYTES: '100' }, /LIVE_MAX_STREAM_BUFFER_BYTES \(liveMaxStreamBufferBytes\): .*1024/],
    [{ LIVE_MAX_STREAM_BUFFER_BYTES: 'big' }, /LIVE_MAX_STREAM_BUFFER_BYTES \(liveMaxStreamBufferBytes\)/],
    [{ LIVE_MAX_BUFFERED_BYTES: '-1' }, /LIVE_MAX_BUFFERED_BYTES \(liveMaxBufferedBytes\)/],
    [
      { LIVE_MAX_STREAM_BUFFER_BYTES: '2097152', LIVE_MAX_BUFFERED_BYTES: '1048576' },
      /LIVE_MAX_BUFFERED_BYTES \(liveMaxBufferedBytes\): must be at least liveMaxStreamBufferBytes/,
    ],
    [{ LIVE_SLOW_CLIENT_TIMEOUT_MS: '10' }, /LIVE_SLOW_CLIENT_TIMEOUT_MS \(liveSlowClientTimeoutMs\): .*100/],
    [{ LIVE_RESERVATION_TIMEOUT_MS: '0' }, /LIVE_RESERVATION_TIMEOUT_MS \(liveReservationTimeoutMs\): .*100/],
    [{ LIVE_RESERVATION_TIMEOUT_MS: '600001' }, /LIVE_RESERVATION_TIMEOUT_MS \(liveReservationTimeoutMs\): .*600000/],
    [{ LIVE_WS_INIT_TIMEOUT_MS: '99' }, /LIVE_WS_INIT_TIMEOUT_MS \(liveWsInitTimeoutMs\): .*100/],
    [{ LIVE_WS_INIT_TIMEOUT_MS: '600001' }, /LIVE_WS_INIT_TIMEOUT_MS \(liveWsInitTimeoutMs\): .*600000/],
    [{ LIVE_WS_INIT_TIMEOUT_MS: 'soon' }, /LIVE_WS_INIT_TIMEOUT_MS \(liveWsInitTimeoutMs\)/],
    [{ LIVE_WS_KEEPALIVE_MS: '0' }, /LIVE_WS_KEEPALIVE_MS \(liveWsKeepAliveMs\): .*100/],
    [{ LIVE_WS_KEEPALIVE_MS: '600001' }, /LIVE_WS_KEEPALIVE_MS \(liveWsKeepAliveMs\): .*600000/],
  ])('bad value %j is refused naming the key and the bound', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(message);
  });

  test('values in range are taken', () => {
    expect(
      loadConfig({
        env: {
          LIVE_MAX_STREAM_BUFFER_BYTES: '65536',
          LIVE_MAX_BUFFERED_BYTES: '65536',
          LIVE_SLOW_CLIENT_TIMEOUT_MS: '500',
          LIVE_RESERVATION_TIMEOUT_MS: '250',
          LIVE_WS_INIT_TIMEOUT_MS: '100',
          LIVE_WS_KEEPALIVE_MS: '600000',
        },
      }),
    ).toMatchObject({
      liveWsInitTimeoutMs: 100,
      liveWsKeepAliveMs: 600_000,
      liveMaxStreamBufferBytes: 65536,
      liveMaxBufferedBytes: 65536,
      liveSlowClientTimeoutMs: 500,
      liveReservationTimeoutMs: 250,
    });
  });
});

test('NOTIFY_KEY: a key name, or algorithm:name:secret; anything else is a ConfigError naming NOTIFY_KEY', () => {
  expect(loadConfig({ env: {} }).notifyKey).toBeUndefined();
  expect(loadConfig({ env: { NOTIFY_KEY: 'notify-key' } }).notifyKey).toBe('notify-key');
  const spec = 'hmac-sha256:notify-key:c2VjcmV0c2VjcmV0';
  expect(loadConfig({ env: { NOTIFY_KEY: spec } }).notifyKey).toBe(spec);
  for (const [bad, why] of [
    ['hmac-sha999:k:c2VjcmV0', /NOTIFY_KEY \(notifyKey\): .*unsupported TSIG algorithm "hmac-sha999"/],
    ['hmac-sha256:k', /NOTIFY_KEY \(notifyKey\): .*algorithm:name:secret/],
    ['hmac-sha256:k:not base64!', /NOTIFY_KEY \(notifyKey\): .*the secret is not base64/],
    ['hmac-sha256::c2VjcmV0', /NOTIFY_KEY \(notifyKey\): .*the key name is empty/],
  ] as const) {
    expect(() => loadConfig({ env: { NOTIFY_KEY: bad } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { NOTIFY_KEY: bad } })).toThrow(why);
  }
});

describe('DNSSEC settings', () => {
  test('defaults: DNSKEY TTL 1 h, signatures valid 14 days, RFC 7583 margins of 5 min and 1 h, no master key set', () => {
    expect(loadConfig({ env: {} })).toMatchObject({
      dnssecDnskeyTtl: 3600,
      dnssecSignatureValidityS: 1_209_600,
      dnssecPropagationDelayS: 300,
      dnssecPublishSafetyS: 3600,
      dnssecRetireSafetyS: 3600,
      dnssecZskLifetimeS: 7_776_000,
      dnssecKskLifetimeS: 31_536_000,
    });
    expect(loadConfig({ env: {} }).dnssecMasterKey).toBeUndefined();
    // the refresh times follow the validity unless set
    expect(signingPolicyOf(loadConfig({ env: {} }))).toEqual({ dnskeyTtl: 3600, signatureValidity: 1_209_600 });
    const set = {
      DNSSEC_SIGNATURE_JITTER_S: '3600',
      DNSSEC_SIGNATURE_REFRESH_S: '86400',
      DNSSEC_SIGNATURE_PRE_REFRESH_S: '0',
    };
    expect(signingPolicyOf(loadConfig({ env: set }))).toMatchObject({
      signatureJitter: 3600,
      signatureRefresh: 86_400,
      signaturePreRefresh: 0,
    });
  });

  test('set from the environment', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(
      loadConfig({ env: { DNSSEC_MASTER_KEY: key, DNSSEC_DNSKEY_TTL: '60', DNSSEC_PROPAGATION_DELAY_S: '0' } }),
    ).toMatchObject({
      dnssecMasterKey: key,
      dnssecDnskeyTtl: 60,
      dnssecPropagationDelayS: 0,
    });
  });

  test.each([
    [
      { DNSSEC_MASTER_KEY: Buffer.alloc(16).toString('base64') },
      /DNSSEC_MASTER_KEY \(dnssecMasterKey\): is 16 bytes of base64, not 32/,
    ],
    [{ DNSSEC_DNSKEY_TTL: '0' }, /DNSSEC_DNSKEY_TTL \(dnssecDnskeyTtl\).*>=1/],
    [{ DNSSEC_SIGNATURE_VALIDITY_S: '60' }, /DNSSEC_SIGNATURE_VALIDITY_S \(dnssecSignatureValidityS\).*>=3600/],
    [{ DNSSEC_RETIRE_SAFETY_S: '-1' }, /DNSSEC_RETIRE_SAFETY_S \(dnssecRetireSafetyS\).*>=0/],
    [{ DNSSEC_SIGNATURE_REFRESH_S: '-1' }, /DNSSEC_SIGNATURE_REFRESH_S \(dnssecSignatureRefreshS\).*>=0/],
    [{ DNSSEC_SIGNATURE_JITTER_S: 'soon' }, /DNSSEC_SIGNATURE_JITTER_S \(dnssecSignatureJitterS\)/],
    [{ DNSSEC_SIGNATURE_PRE_REFRESH_S: '-5' }, /DNSSEC_SIGNATURE_PRE_REFRESH_S \(dnssecSignaturePreRefreshS\).*>=0/],
    // a fresh signature would be due at once: every refresh would sign it again
    [
      { DNSSEC_SIGNATURE_VALIDITY_S: '86400', DNSSEC_SIGNATURE_REFRESH_S: '43200', DNSSEC_SIGNATURE_JITTER_S: '43200' },
      /DNSSEC_SIGNATURE_REFRESH_S \(dnssecSignatureRefreshS\).*must be less than the validity/,
    ],
  ])('bad value %j stops start-up naming the key and the bound', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(ConfigError);
    expect(() => loadConfig({ env })).toThrow(message);
  });
});

describe('workers (WORKERS)', () => {
  test('default 1; auto or a number, with a supergraph', () => {
    expect(loadConfig({ env: {} }).workers).toBe(1);
    expect(loadConfig({ env: { WORKERS: 'auto', SUPERGRAPH_FILE: 'sg.graphql' } }).workers).toBe('auto');
    expect(loadConfig({ env: { WORKERS: '4', SUPERGRAPH_FILE: 'sg.graphql' } }).workers).toBe(4);
  });

  test('more than one worker without SUPERGRAPH_FILE is refused, saying why', () => {
    expect(() => loadConfig({ env: { WORKERS: '2' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { WORKERS: 'auto' } })).toThrow(/WORKERS.*needs SUPERGRAPH_FILE.*DNS server/s);
  });

  test.each([
    ['0', />=1/],
    ['65', /<=64/],
    ['1.5', /'auto' or a whole number from 1 to 64/],
    ['many', /'auto' or a whole number from 1 to 64/],
  ])('WORKERS=%s is refused naming the key and what is allowed', (value, allowed) => {
    const load = () => loadConfig({ env: { WORKERS: value, SUPERGRAPH_FILE: 'sg.graphql' } });
    expect(load).toThrow(/WORKERS \(workers\)/);
    expect(load).toThrow(allowed);
  });
});

describe('SUBGRAPH_MAX_RESPONSE_BYTES', () => {
  test('64 MiB by default; the environment sets it', () => {
    expect(loadConfig({ env: {} }).subgraphMaxResponseBytes).toBe(64 * 1024 * 1024);
    expect(loadConfig({ env: { SUBGRAPH_MAX_RESPONSE_BYTES: '2048' } }).subgraphMaxResponseBytes).toBe(2048);
  });

  test.each([
    ['1000', />=1024/],
    ['2000000000', /<=1073741824/],
    ['big', /number/],
  ])('SUBGRAPH_MAX_RESPONSE_BYTES=%s is refused naming the key and the bound', (value, allowed) => {
    const load = () => loadConfig({ env: { SUBGRAPH_MAX_RESPONSE_BYTES: value } });
    expect(load).toThrow(/SUBGRAPH_MAX_RESPONSE_BYTES \(subgraphMaxResponseBytes\)/);
    expect(load).toThrow(allowed);
  });
});

describe('environment variables are found through the keys metadata, one of each kind of value', () => {
  test.each([
    ['integer', { RESPONSE_CACHE_ENTRIES: '42' }, { responseCacheEntries: 42 }],
    ['boolean', { SEED_DEMO: 'no' }, { seedDemo: false }],
    ['one of a set', { LOG_FORMAT: 'json' }, { logFormat: 'json' }],
    ['text', { REDIS_PREFIX: 'blue:' }, { redisPrefix: 'blue:' }],
    ['URL', { GOOGLE_FINANCE_URL: 'http://127.0.0.1:9' }, { googleFinanceUrl: 'http://127.0.0.1:9' }],
    ['date-time', { MARKET_CLOCK: '2026-11-20T18:00:00Z' }, { marketClock: '2026-11-20T18:00:00Z' }],
    [
      'comma-separated list',
      { NOTIFY_TARGETS: '192.0.2.1:53, [2001:db8::1]:5353' },
      { notifyTargets: ['192.0.2.1:53', '[2001:db8::1]:5353'] },
    ],
    [
      'list of addresses',
      { SUBGRAPH_TRUSTED_PROXIES: '10.0.0.1,::1' },
      { subgraphTrustedProxies: ['10.0.0.1', '::1'] },
    ],
    ['auto or a number', { DNS_WORKERS: '3' }, { dnsWorkers: 3 }],
    [
      'domain name (lower case, no final dot)',
      { DNS_CATALOG_ZONE: 'Catalog.Example.' },
      { dnsCatalogZone: 'catalog.example' },
    ],
    ['secret', { ADMIN_PASSWORD: 'correct horse' }, { adminPassword: 'correct horse' }],
    ['subgraph section (dns-api)', { DNS_API_MAX_BATCH: '7' }, { dnsApiMaxBatch: 7 }],
    ['subgraph section (market)', { UPSTREAM_RETRIES: '0' }, { upstreamRetries: 0 }],
    ['the DNS server', { DNS_UDP_BATCH: 'off' }, { dnsUdpBatch: 'off' }],
    [
      'response rate limiting',
      {
        DNS_RRL: 'log-only',
        DNS_RRL_RESPONSES_PER_SECOND: '5',
        DNS_RRL_ERRORS_PER_SECOND: '0',
        DNS_RRL_WINDOW_S: '60',
        DNS_RRL_SLIP: '0',
        DNS_RRL_IPV4_PREFIX: '32',
        DNS_RRL_IPV6_PREFIX: '64',
        DNS_RRL_EXEMPT: '10.0.0.0/8, 2001:db8::/32',
        DNS_RRL_TABLE_SIZE: '1000',
      },
      {
        dnsRrl: 'log-only',
        dnsRrlResponsesPerSecond: 5,
        dnsRrlErrorsPerSecond: 0,
        dnsRrlWindowS: 60,
        dnsRrlSlip: 0,
        dnsRrlIpv4Prefix: 32,
        dnsRrlIpv6Prefix: 64,
        dnsRrlExempt: ['10.0.0.0/8', '2001:db8::/32'],
        dnsRrlTableSize: 1000,
      },
    ],
    [
      'response rate limiting: on by default, as BIND and Knot are commonly run',
      {},
      {
        dnsRrl: 'on',
        dnsRrlResponsesPerSecond: 20,
        dnsRrlWindowS: 15,
        dnsRrlSlip: 2,
        dnsRrlIpv4Prefix: 24,
        dnsRrlIpv6Prefix: 56,
        dnsRrlExempt: [],
        dnsRrlTableSize: 20000,
      },
    ],
  ])('%s', (_kind, env, expected) => {
    expect(loadConfig({ env })).toMatchObject(expected);
  });

  test('an empty variable counts as unset; PORT is read through the metadata like every key', () => {
    expect(loadConfig({ env: { RESPONSE_CACHE_ENTRIES: '' } }).responseCacheEntries).toBe(10_000);
    expect(envSetting('port', { PORT: '4101' })).toBe('4101');
    expect(envSetting('port', { PORT: '' })).toBeUndefined();
    expect(envSetting('dnsTool', {})).toBeUndefined();
  });

  test.each([
    [{ RESPONSE_CACHE_ENTRIES: '-1' }, /RESPONSE_CACHE_ENTRIES \(responseCacheEntries\).*>=0/],
    [{ RESPONSE_CACHE_ENTRIES: '1000001' }, /RESPONSE_CACHE_ENTRIES \(responseCacheEntries\).*1000000/],
    [{ DNS_UDP_BATCH: 'maybe' }, /DNS_UDP_BATCH \(dnsUdpBatch\) must be one of: on, off/],
    [{ DNS_RRL: 'yes' }, /DNS_RRL \(dnsRrl\) must be one of: on, off, log-only/],
    [{ DNS_RRL_RESPONSES_PER_SECOND: '-1' }, /DNS_RRL_RESPONSES_PER_SECOND \(dnsRrlResponsesPerSecond\).*>=0/],
    [{ DNS_RRL_RESPONSES_PER_SECOND: '2.5' }, /DNS_RRL_RESPONSES_PER_SECOND \(dnsRrlResponsesPerSecond\)/],
    [{ DNS_RRL_RESPONSES_PER_SECOND: '1000001' }, /DNS_RRL_RESPONSES_PER_SECOND \(dnsRrlResponsesPerSecond\).*1000000/],
    [{ DNS_RRL_NXDOMAINS_PER_SECOND: 'many' }, /DNS_RRL_NXDOMAINS_PER_SECOND \(dnsRrlNxdomainsPerSecond\)/],
    [{ DNS_RRL_NODATA_PER_SECOND: '-5' }, /DNS_RRL_NODATA_PER_SECOND \(dnsRrlNodataPerSecond\).*>=0/],
    [{ DNS_RRL_REFERRALS_PER_SECOND: '-1' }, /DNS_RRL_REFERRALS_PER_SECOND \(dnsRrlReferralsPerSecond\).*>=0/],
    [{ DNS_RRL_ERRORS_PER_SECOND: '0.5' }, /DNS_RRL_ERRORS_PER_SECOND \(dnsRrlErrorsPerSecond\)/],
    [{ DNS_RRL_WINDOW_S: '0' }, /DNS_RRL_WINDOW_S \(dnsRrlWindowS\).*>=1/],
    [{ DNS_RRL_WINDOW_S: '3601' }, /DNS_RRL_WINDOW_S \(dnsRrlWindowS\).*3600/],
    [{ DNS_RRL_SLIP: '11' }, /DNS_RRL_SLIP \(dnsRrlSlip\).*<=10/],
    [{ DNS_RRL_SLIP: '-1' }, /DNS_RRL_SLIP \(dnsRrlSlip\).*>=0/],
    [{ DNS_RRL_IPV4_PREFIX: '33' }, /DNS_RRL_IPV4_PREFIX \(dnsRrlIpv4Prefix\).*<=32/],
    [{ DNS_RRL_IPV6_PREFIX: '129' }, /DNS_RRL_IPV6_PREFIX \(dnsRrlIpv6Prefix\).*<=128/],
    [{ DNS_RRL_IPV6_PREFIX: '-1' }, /DNS_RRL_IPV6_PREFIX \(dnsRrlIpv6Prefix\).*>=0/],
    [
      { DNS_RRL_EXEMPT: '10.0.0.0/8,10.1.0.0/40' },
      /DNS_RRL_EXEMPT \(dnsRrlExempt\).*"10.1.0.0\/40": the prefix length must be 0 to 32/,
    ],
    [{ DNS_RRL_EXEMPT: 'localhost' }, /DNS_RRL_EXEMPT \(dnsRrlExempt\).*is not an IPv4 or IPv6 network/],
    [{ DNS_RRL_TABLE_SIZE: '0' }, /DNS_RRL_TABLE_SIZE \(dnsRrlTableSize\).*>=1/],
    [{ DNS_RRL_TABLE_SIZE: '10000001' }, /DNS_RRL_TABLE_SIZE \(dnsRrlTableSize\).*10000000/],
  ])('bad value %j is refused naming the key', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(ConfigError);
    expect(() => loadConfig({ env })).toThrow(message);
  });
});

describe('the cap on whole-zone reads', () => {
  test('defaults: 4 running, 32 waiting; values in range are taken (0 waiting: refused at once)', () => {
    expect(loadConfig({ env: {} })).toMatchObject({ dnsApiWholeZoneReads: 4, dnsApiWholeZoneQueue: 32 });
    expect(loadConfig({ env: { DNS_API_WHOLE_ZONE_READS: '1', DNS_API_WHOLE_ZONE_QUEUE: '0' } })).toMatchObject({
      dnsApiWholeZoneReads: 1,
      dnsApiWholeZoneQueue: 0,
    });
  });

  test.each([
    [{ DNS_API_WHOLE_ZONE_READS: '0' }, /DNS_API_WHOLE_ZONE_READS \(dnsApiWholeZoneReads\).*>=1/],
    [{ DNS_API_WHOLE_ZONE_READS: '1001' }, /DNS_API_WHOLE_ZONE_READS \(dnsApiWholeZoneReads\).*1000/],
    [{ DNS_API_WHOLE_ZONE_READS: 'many' }, /DNS_API_WHOLE_ZONE_READS \(dnsApiWholeZoneReads\)/],
    [{ DNS_API_WHOLE_ZONE_QUEUE: '-1' }, /DNS_API_WHOLE_ZONE_QUEUE \(dnsApiWholeZoneQueue\).*>=0/],
    [{ DNS_API_WHOLE_ZONE_QUEUE: '100001' }, /DNS_API_WHOLE_ZONE_QUEUE \(dnsApiWholeZoneQueue\).*100000/],
  ])('bad value %j stops start-up naming the key and the bound', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(ConfigError);
    expect(() => loadConfig({ env })).toThrow(message);
  });
});

describe('master key', () => {
  const key = Buffer.alloc(32, 9);

  test('MASTER_KEY as base64 or hex; MASTER_KEY_FILE and its flag; unset by default', () => {
    expect(loadConfig({ env: {} }).masterKey).toBeUndefined();
    expect(loadConfig({ env: { MASTER_KEY_FILE: '' } }).masterKeyFile).toBeUndefined(); // empty: unset
    expect(loadConfig({ env: { MASTER_KEY: key.toString('base64') } }).masterKey).toBe(key.toString('base64'));
    expect(loadConfig({ env: { MASTER_KEY: key.toString('hex') } }).masterKey).toBe(key.toString('hex'));
    expect(loadConfig({ env: { MASTER_KEY_FILE: '/run/secrets/mk' } }).masterKeyFile).toBe('/run/secrets/mk');
    expect(loadConfig({ env: {}, flags: { masterKeyFile: '/k' } }).masterKeyFile).toBe('/k');
  });

  test.each([
    [{ MASTER_KEY: Buffer.alloc(16, 1).toString('base64') }, /MASTER_KEY \(masterKey\): is 16 bytes of base64, not 32/],
    [{ MASTER_KEY: 'ab'.repeat(31) }, /MASTER_KEY \(masterKey\): is 62 hex digits, not 64/],
    [{ MASTER_KEY: 'not a key at all' }, /MASTER_KEY \(masterKey\): is neither base64 nor hex/],
    [
      { MASTER_KEY: key.toString('base64'), MASTER_KEY_FILE: '/k' },
      /MASTER_KEY_FILE \(masterKeyFile\): give the master key once: MASTER_KEY or MASTER_KEY_FILE, not both/,
    ],
    [
      { MASTER_KEY: key.toString('base64'), DNSSEC_MASTER_KEY: key.toString('base64') },
      /DNSSEC_MASTER_KEY \(dnssecMasterKey\): is the older name of MASTER_KEY/,
    ],
  ])('bad %j stops start-up naming the setting, showing none of the key', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(ConfigError);
    expect(() => loadConfig({ env })).toThrow(message);
    const secret = env.MASTER_KEY;
    if (secret) expect(() => loadConfig({ env })).not.toThrow(secret.slice(0, 12));
  });
});

describe('GRAPHQL_CONCURRENCY', () => {
  test("default auto; 'off' and a number as given", () => {
    expect(loadConfig({ env: {} }).graphqlConcurrency).toBe('auto');
    expect(loadConfig({ env: { GRAPHQL_CONCURRENCY: 'off' } }).graphqlConcurrency).toBe('off');
    expect(loadConfig({ env: { GRAPHQL_CONCURRENCY: '16' } }).graphqlConcurrency).toBe(16);
  });

  test.each([
    [{ GRAPHQL_CONCURRENCY: 'many' }, /GRAPHQL_CONCURRENCY \(graphqlConcurrency\).*'auto', 'off' or a whole number/],
    [{ GRAPHQL_CONCURRENCY: '0' }, /GRAPHQL_CONCURRENCY \(graphqlConcurrency\).*>=1/],
    [{ GRAPHQL_CONCURRENCY: '2.5' }, /GRAPHQL_CONCURRENCY \(graphqlConcurrency\)/],
    [{ GRAPHQL_CONCURRENCY: '100001' }, /GRAPHQL_CONCURRENCY \(graphqlConcurrency\).*<=100000/],
  ])('bad value %j stops start-up naming the key and what is allowed', (env, message) => {
    expect(() => loadConfig({ env })).toThrow(ConfigError);
    expect(() => loadConfig({ env })).toThrow(message);
  });
});
