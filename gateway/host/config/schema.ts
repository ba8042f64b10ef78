import { z } from 'zod';
import { DnsToolSchema } from './dns-tool';
import { parseKeySpec } from '../../../dns/tsig';

/** TTL in seconds per kind of market data in the shared cache (upstream data changes at different paces). */
const CacheTtls = z
  .object({
    quote: z.number().int().min(1).max(86_400).default(10),
    company: z.number().int().min(1).max(86_400).default(3_600),
    chartIntraday: z.number().int().min(1).max(86_400).default(60),
    chartDaily: z.number().int().min(1).max(86_400).default(900),
    news: z.number().int().min(1).max(86_400).default(300),
    financials: z.number().int().min(1).max(86_400).default(21_600),
    related: z.number().int().min(1).max(86_400).default(900),
    indices: z.number().int().min(1).max(86_400).default(15),
    movers: z.number().int().min(1).max(86_400).default(30),
    trending: z.number().int().min(1).max(86_400).default(60),
    earnings: z.number().int().min(1).max(86_400).default(3_600),
    headline: z.number().int().min(1).max(86_400).default(300),
    notFound: z.number().int().min(1).max(86_400).default(60),
  })
  .strict();

const port = z.coerce.number().int().min(0).max(65_535);
const bool = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? (({ true: true, '1': true, yes: true, false: false, '0': false, no: false } as Record<string, boolean>)[
          v.toLowerCase()
        ] ?? v)
      : v,
  z.boolean(),
);

/** The gateway on the same machine: the peers a subgraph served alone trusts by default. */
export const LOOPBACK_PROXIES: readonly string[] = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/** The one validated configuration. Keys are camelCase in files; each has an environment variable (ENV_NAMES). */
export const ConfigSchema = z
  .object({
    port: port.default(4000),
    host: z.string().min(1).default('127.0.0.1'),
    dnsApiPort: port.default(8081),
    dnsHost: z.string().min(1).default('127.0.0.1'),
    dnsPort: port.default(5353),
    dataDir: z.string().min(1).default('./data'),
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    redisUrl: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
    /** The DNS tool (`/api.php`, the dns-tool subgraph): the `dnsTool` section of the configuration file. */
    dnsTool: DnsToolSchema.default(DnsToolSchema.parse({})),
    /** A subgraph served alone believes X-Forwarded-For only from these peers (the gateway's addresses). */
    subgraphTrustedProxies: z
      .preprocess(
        (v) =>
          typeof v === 'string'
            ? v
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean)
            : v,
        z.array(z.union([z.ipv4(), z.ipv6()])).max(100),
      )
      .default([...LOOPBACK_PROXIES]),
    marketProvider: z.enum(['simulated', 'google']).default('simulated'),
    marketSeed: z.string().min(1).max(200).default('onegraph'),
    /** Freezes the simulated market's clock at this instant (ISO 8601); unset = real time. */
    marketClock: z.iso.datetime({ offset: true }).optional(),
    googleFinanceUrl: z.url({ protocol: /^https?$/ }).default('https://www.google.com'),
    upstreamTimeoutMs: z.coerce.number().int().min(100).max(60_000).default(5_000),
    upstreamRetries: z.coerce.number().int().min(0).max(5).default(2),
    marketCacheTtl: CacheTtls.default(CacheTtls.parse({})),
    responseCache: bool.default(true),
    responseCacheEntries: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    /** Bytes the whole-response cache may hold (results and their renderings); the least recently used go first. */
    responseCacheBytes: z.coerce
      .number()
      .int()
      .min(0)
      .max(64 * 1024 ** 3)
      .default(64 * 1024 ** 2),
    /** A response bigger than this is not cached at all. */
    responseCacheMaxEntryBytes: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(1024 ** 3)
      .default(2 * 1024 ** 2),
    liveIntervalMs: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
    /** Open live streams (GraphQL subscriptions over SSE and /v1/live) in this process. */
    liveMaxConnections: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    liveMaxConnectionsPerClient: z.coerce.number().int().min(1).max(1_000_000).default(100),
    /** Heartbeat comment lines on /v1/live streams (graphql-sse pings its own streams every 12 s). */
    liveHeartbeatMs: z.coerce.number().int().min(100).max(600_000).default(15_000),
    /** Operations one single-connection-mode graphql-sse stream may carry at once. */
    liveMaxSubscriptionsPerConnection: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Tickers one live subscription (or /v1/live stream, or snapshot) may name. */
    liveMaxTickersPerSubscription: z.coerce.number().int().min(1).max(1_000).default(50),
    /** Outgoing live streams: unsent bytes one stream may hold (a client that falls behind loses its oldest events). */
    liveMaxStreamBufferBytes: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(1024 * 1024 * 1024)
      .default(1024 * 1024),
    /** Unsent bytes of all live streams of the process; over it the streams holding the most are disconnected. */
    liveMaxBufferedBytes: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024 * 1024)
      .default(256 * 1024 * 1024),
    /** A live stream that stays over liveMaxStreamBufferBytes this long is disconnected. */
    liveSlowClientTimeoutMs: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    /** How long a graphql-sse single-connection reservation (PUT) waits for its stream to open. */
    liveReservationTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(10_000),
    /** Prefix of the Redis keys and channel the replicas' shared live poller uses. */
    redisPrefix: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1–64 letters, digits or . _ : -')
      .default('onegraph'),
    /** Bound of one Redis connection attempt; while Redis is away the cache and the live poller do without it. */
    redisConnectTimeoutMs: z.coerce.number().int().min(50).max(60_000).default(1_000),
    /** Bound of one Redis command (a stalled server counts as away after it). */
    redisCommandTimeoutMs: z.coerce.number().int().min(10).max(60_000).default(500),
    corsOrigins: z.string().min(1).default('*'),
    maxQuotesPerRequest: z.coerce.number().int().min(1).max(1_000).default(50),
    maxQueryDepth: z.coerce.number().int().min(1).max(1_000).default(15),
    maxAliases: z.coerce.number().int().min(0).max(10_000).default(50),
    maxFields: z.coerce.number().int().min(1).max(100_000).default(500),
    /**
     * Largest estimated cost of one operation: each field 1, a list its page size (or assumed size) times its items,
     * a field's own weight from the schema's @cost. 100 000: two full pages of records (10 000 × 5 fields) or one
     * zone transfer with every column, not fifty of them.
     */
    maxQueryCost: z.coerce.number().int().min(1).max(1_000_000_000).default(100_000),
    /** Open HTTP connections at once (every stream is one); beyond it new connections are closed at once. */
    httpMaxConnections: z.coerce.number().int().min(1).max(1_000_000).default(15_000),
    /** Longest an HTTP request may take to arrive in full (headers and body); then 408 and the connection closes. */
    httpRequestTimeoutMs: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** On shutdown, how long requests in flight may take to finish before their connections are cut. */
    shutdownGraceMs: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /** Deepest nesting of arrays and objects in a request's GraphQL variables. */
    maxVariablesDepth: z.coerce.number().int().min(1).max(1_000).default(32),
    maxBodyBytes: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(100 * 1024 * 1024)
      .default(1024 * 1024),
    subgraphTimeoutMs: z.coerce.number().int().min(10).max(600_000).default(10_000),
    /** Largest answer taken from a remote subgraph; a larger one fails that fetch (the subgraph named). */
    subgraphMaxResponseBytes: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
    introspection: bool.default(true),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `auto`: readable lines on a terminal, JSON lines otherwise. */
    logFormat: z.enum(['auto', 'json', 'pretty']).default('auto'),
    /** TSIG keys in BIND's key-file format; every key may update and transfer every zone unless dnsAccess narrows it. */
    tsigKeyFile: z.string().min(1).optional(),
    /** `name=file` pairs: master files loaded at start into zones the store does not hold yet. */
    zoneFiles: z.record(z.string(), z.string().min(1)).default({}),
    /** Secondaries told by NOTIFY after every change, as host:port. */
    notifyTargets: z
      .preprocess(
        (v) =>
          typeof v === 'string'
            ? v
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean)
            : v,
        z.array(
          z.string().regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'must be host:port (comma-separated)'),
        ),
      )
      .default([]),
    /**
     * Key NOTIFY is signed with: the name of a key in tsigKeyFile, or a key of its own as `algorithm:name:secret`
     * (nsupdate's -y form). Unset: NOTIFY goes out unsigned.
     */
    notifyKey: z
      .string()
      .min(1)
      .superRefine((v, ctx) => {
        if (!v.includes(':')) return;
        try {
          parseKeySpec(v);
        } catch (err) {
          ctx.addIssue({
            code: 'custom',
            message: `must be a key name from the TSIG key file, or algorithm:name:secret (${(err as Error).message})`,
          });
        }
      })
      .optional(),
    dnsAccess: z
      .object({
        updateKeys: z.record(z.string(), z.array(z.string())).optional(),
        transferKeys: z.record(z.string(), z.array(z.string())).optional(),
        transferFromLoopback: z.boolean().optional(),
      })
      .strict()
      .default({}),
    /** DNS API: the `admin` user's password on first start (unset: a random one, printed once). */
    adminPassword: z.string().min(8).max(256).optional(),
    /** DNS API tokens: lifetime, issuer (`iss`) and audience (`aud`). */
    dnsApiTokenTtl: z.coerce.number().int().min(60).max(31_536_000).default(3_600),
    /** Seconds a token signing key signs before a new one takes over (the old one verifies until its tokens expire); 0: only on request. */
    dnsApiSigningKeyLifetime: z.coerce
      .number()
      .int()
      .refine((v) => v === 0 || (v >= 3_600 && v <= 315_360_000), 'must be 0 or 3600 to 315360000 seconds')
      .default(7_776_000),
    dnsApiIssuer: z.string().min(1).max(200).default('onegraph-dns-api'),
    dnsApiAudience: z.string().min(1).max(200).default('onegraph'),
    /** DNS API: most operations in one batch (413 beyond). */
    dnsApiMaxBatch: z.coerce.number().int().min(1).max(100_000).default(1_000),
    /** DNS API: NS records of a new zone (absolute names, comma-separated); empty: ns1.<zone>. */
    dnsApiNameservers: z
      .preprocess(
        (v) =>
          typeof v === 'string'
            ? v
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean)
            : v,
        z.array(
          z
            .string()
            .regex(
              /^(?=.{1,253}\.?$)([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.)*[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.?$/,
              'must be domain names, comma-separated',
            ),
        ),
      )
      .default([]),
    /** DNS API login throttling: failures per user name and per client address within the window (seconds). */
    dnsApiLoginFailuresPerUser: z.coerce.number().int().min(1).max(1_000).default(5),
    dnsApiLoginFailuresPerAddress: z.coerce.number().int().min(1).max(100_000).default(20),
    dnsApiLoginWindowS: z.coerce.number().int().min(1).max(86_400).default(900),
    /** Seed a demo zone when the store holds no zone at all (first start). */
    seedDemo: bool.default(true),
    // -- DNS limits: records per RRset, DNS over TCP (docs/dns-server.md) ------------------------------------
    /** Most records per name and type a write may leave (BIND 9's max-records-per-type default, 100); 0 = no limit. */
    dnsMaxRecordsPerRrset: z.coerce.number().int().min(0).max(1_000_000).default(100),
    /** Most DNS TCP connections open at once (BIND's tcp-clients default, 150); more are closed at once. */
    dnsTcpMaxConnections: z.coerce.number().int().min(1).max(100_000).default(150),
    /**
     * Processes that answer DNS queries over UDP besides the gateway's own (they share its socket and read the
     * same store): `auto` is one per core but one from 4 cores up, none below (see autoWorkerCount); 0 answers
     * from the gateway alone.
     */
    dnsWorkers: z
      .union([z.literal('auto'), z.coerce.number().int().min(0).max(64)], {
        error: "must be 'auto' or a whole number from 0 to 64",
      })
      .default('auto'),
    /**
     * The master key (base64, 32 bytes) that seals private DNSSEC keys in the store; unset: one is made into
     * DATA_DIR/dnssec-master.key. Every process serving the same store needs the same one.
     */
    dnssecMasterKey: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, {
        error: 'must be 32 bytes in base64 (openssl rand -base64 32)',
      })
      .optional(),
    // DNSSEC timings (seconds), one set for the signer and the rollovers the API starts (RFC 7583 names in brackets)
    /** TTL of the DNSKEY RRset (TTLkey). */
    dnssecDnskeyTtl: z.coerce.number().int().min(1).max(604_800).default(3600),
    /** How long signatures are valid; zones are signed afresh at half of it. */
    dnssecSignatureValidityS: z.coerce
      .number()
      .int()
      .min(3600)
      .max(366 * 86_400)
      .default(14 * 86_400),
    /** How long a change takes to reach every secondary (Dprp). */
    dnssecPropagationDelayS: z.coerce.number().int().min(0).max(86_400).default(300),
    /** Margins added to the publication and the retire interval of a rollover. */
    dnssecPublishSafetyS: z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(3600),
    dnssecRetireSafetyS: z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(3600),
    /** Lifetimes that `expires_at` of a ZSK and of a KSK show. */
    dnssecZskLifetimeS: z.coerce
      .number()
      .int()
      .min(86_400)
      .max(10 * 366 * 86_400)
      .default(90 * 86_400),
    dnssecKskLifetimeS: z.coerce
      .number()
      .int()
      .min(86_400)
      .max(10 * 366 * 86_400)
      .default(365 * 86_400),
    /** A DNS TCP connection with nothing in progress is closed after this long. */
    dnsTcpIdleMs: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
    /** A DNS message over TCP must arrive whole within this long of its first byte. */
    dnsTcpMessageMs: z.coerce.number().int().min(100).max(600_000).default(10_000),
    /** A DNS TCP connection is not read from while more than this many bytes of its answers wait to be sent. */
    dnsTcpMaxBufferedBytes: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024)
      .default(256 * 1024),
    /** `name=url` pairs: serve that subgraph from a remote URL instead of in-process. */
    subgraphUrls: z.record(z.string(), z.url({ protocol: /^https?$/ })).default({}),
    supergraphFile: z.string().min(1).optional(),
    /**
     * Gateway processes sharing the HTTP port (node:cluster): `auto` is one per core. More than one only for a
     * general gateway (SUPERGRAPH_FILE): the all-in-one process holds the DNS server, the zone store's change feed
     * and the live hub, which exist once.
     */
    workers: z
      .union([z.literal('auto'), z.coerce.number().int().min(1).max(64)], {
        error: "must be 'auto' or a whole number from 1 to 64",
      })
      .default(1),
  })
  .strict()
  .refine((c) => c.workers === 1 || c.supergraphFile !== undefined, {
    path: ['workers'],
    message:
      'more than one worker needs SUPERGRAPH_FILE (a general gateway over remote subgraphs): the all-in-one process runs the DNS server, the zone store and the live hub, which exist once',
  })
  .refine((c) => c.liveMaxBufferedBytes >= c.liveMaxStreamBufferBytes, {
    path: ['liveMaxBufferedBytes'],
    message: "must be at least liveMaxStreamBufferBytes (one stream's bound)",
  });

export type Config = z.infer<typeof ConfigSchema>;

/** Environment variable of each key (the runtime contract keeps these names: docs/operations.md, "Starting"). */
export const ENV_NAMES: Partial<Record<keyof Config, string>> = {
  port: 'PORT',
  host: 'HOST',
  dnsApiPort: 'DNS_API_PORT',
  dnsHost: 'DNS_HOST',
  dnsPort: 'DNS_PORT',
  dataDir: 'DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'REDIS_URL',
  marketProvider: 'MARKET_PROVIDER',
  marketSeed: 'MARKET_SEED',
  marketClock: 'MARKET_CLOCK',
  googleFinanceUrl: 'GOOGLE_FINANCE_URL',
  upstreamTimeoutMs: 'UPSTREAM_TIMEOUT_MS',
  upstreamRetries: 'UPSTREAM_RETRIES',
  responseCache: 'RESPONSE_CACHE',
  responseCacheEntries: 'RESPONSE_CACHE_ENTRIES',
  responseCacheBytes: 'RESPONSE_CACHE_BYTES',
  responseCacheMaxEntryBytes: 'RESPONSE_CACHE_MAX_ENTRY_BYTES',
  liveIntervalMs: 'LIVE_INTERVAL_MS',
  liveMaxConnections: 'LIVE_MAX_CONNECTIONS',
  liveHeartbeatMs: 'LIVE_HEARTBEAT_MS',
  liveMaxConnectionsPerClient: 'LIVE_MAX_CONNECTIONS_PER_CLIENT',
  liveMaxSubscriptionsPerConnection: 'LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION',
  liveMaxTickersPerSubscription: 'LIVE_MAX_TICKERS_PER_SUBSCRIPTION',
  liveMaxStreamBufferBytes: 'LIVE_MAX_STREAM_BUFFER_BYTES',
  liveMaxBufferedBytes: 'LIVE_MAX_BUFFERED_BYTES',
  liveSlowClientTimeoutMs: 'LIVE_SLOW_CLIENT_TIMEOUT_MS',
  liveReservationTimeoutMs: 'LIVE_RESERVATION_TIMEOUT_MS',
  redisPrefix: 'REDIS_PREFIX',
  redisConnectTimeoutMs: 'REDIS_CONNECT_TIMEOUT_MS',
  redisCommandTimeoutMs: 'REDIS_COMMAND_TIMEOUT_MS',
  corsOrigins: 'CORS_ORIGINS',
  maxQuotesPerRequest: 'MAX_QUOTES_PER_REQUEST',
  maxQueryDepth: 'MAX_QUERY_DEPTH',
  maxAliases: 'MAX_ALIASES',
  maxFields: 'MAX_FIELDS',
  maxQueryCost: 'MAX_QUERY_COST',
  maxBodyBytes: 'MAX_BODY_BYTES',
  maxVariablesDepth: 'MAX_VARIABLES_DEPTH',
  httpMaxConnections: 'HTTP_MAX_CONNECTIONS',
  httpRequestTimeoutMs: 'HTTP_REQUEST_TIMEOUT_MS',
  shutdownGraceMs: 'SHUTDOWN_GRACE_MS',
  subgraphTimeoutMs: 'SUBGRAPH_TIMEOUT_MS',
  subgraphMaxResponseBytes: 'SUBGRAPH_MAX_RESPONSE_BYTES',
  introspection: 'INTROSPECTION',
  logLevel: 'LOG_LEVEL',
  logFormat: 'LOG_FORMAT',
  tsigKeyFile: 'TSIG_KEYFILE',
  supergraphFile: 'SUPERGRAPH_FILE',
  workers: 'WORKERS',
  notifyTargets: 'NOTIFY_TARGETS',
  notifyKey: 'NOTIFY_KEY',
  subgraphTrustedProxies: 'SUBGRAPH_TRUSTED_PROXIES',
  seedDemo: 'SEED_DEMO',
  adminPassword: 'ADMIN_PASSWORD',
  dnsApiTokenTtl: 'DNS_API_TOKEN_TTL',
  dnsApiSigningKeyLifetime: 'DNS_API_SIGNING_KEY_LIFETIME',
  dnsApiIssuer: 'DNS_API_ISSUER',
  dnsApiAudience: 'DNS_API_AUDIENCE',
  dnsApiMaxBatch: 'DNS_API_MAX_BATCH',
  dnsApiNameservers: 'DNS_API_NAMESERVERS',
  dnsApiLoginFailuresPerUser: 'DNS_API_LOGIN_FAILURES_PER_USER',
  dnsApiLoginFailuresPerAddress: 'DNS_API_LOGIN_FAILURES_PER_ADDRESS',
  dnsApiLoginWindowS: 'DNS_API_LOGIN_WINDOW_S',
  // DNS limits (docs/dns-server.md)
  dnsMaxRecordsPerRrset: 'DNS_MAX_RECORDS_PER_RRSET',
  dnsTcpMaxConnections: 'DNS_TCP_MAX_CONNECTIONS',
  dnsWorkers: 'DNS_WORKERS',
  dnssecMasterKey: 'DNSSEC_MASTER_KEY',
  dnssecDnskeyTtl: 'DNSSEC_DNSKEY_TTL',
  dnssecSignatureValidityS: 'DNSSEC_SIGNATURE_VALIDITY_S',
  dnssecPropagationDelayS: 'DNSSEC_PROPAGATION_DELAY_S',
  dnssecPublishSafetyS: 'DNSSEC_PUBLISH_SAFETY_S',
  dnssecRetireSafetyS: 'DNSSEC_RETIRE_SAFETY_S',
  dnssecZskLifetimeS: 'DNSSEC_ZSK_LIFETIME_S',
  dnssecKskLifetimeS: 'DNSSEC_KSK_LIFETIME_S',
  dnsTcpIdleMs: 'DNS_TCP_IDLE_MS',
  dnsTcpMessageMs: 'DNS_TCP_MESSAGE_MS',
  dnsTcpMaxBufferedBytes: 'DNS_TCP_MAX_BUFFERED_BYTES',
};
