import { z } from 'zod';
import { commaList, portNumber, setting } from '../../../platform/settings';

/** The gateway on the same machine: the peers a subgraph served alone trusts by default. */
export const LOOPBACK_PROXIES: readonly string[] = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/** The process: listeners, stores shared by every part, Redis, logs, workers and remote subgraphs. */
export const ProcessSettings = z.object({
  port: setting(portNumber.default(4000), {
    env: 'PORT',
    flag: '--port <n>',
    help: 'Gateway HTTP port (GraphQL, playground, all REST interfaces)',
  }),
  host: setting(z.string().min(1).default('127.0.0.1'), {
    env: 'HOST',
    flag: '--host <addr>',
    help: 'Address the HTTP listeners bind to',
  }),
  dnsApiPort: setting(portNumber.default(8081), {
    env: 'DNS_API_PORT',
    flag: '--dns-api-port <n>',
    help: 'Second HTTP listener for /api/v1 only; 0 turns it off',
  }),
  dataDir: setting(z.string().min(1).default('./data'), {
    env: 'DATA_DIR',
    flag: '--data-dir <dir>',
    help: 'Data directory: SQLite files, generated secrets, DNSSEC keys',
  }),
  databaseUrl: setting(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
    {
      env: 'DATABASE_URL',
      flag: '--database-url <url>',
      help: 'postgres:// URL that puts the zone store (and the DNS API users) on PostgreSQL; unset: SQLite in the data directory',
    },
  ),
  redisUrl: setting(
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
    {
      env: 'REDIS_URL',
      flag: '--redis-url <url>',
      help: 'Redis shared by replicas: market cache, live fan-out, persisted queries, DNS tool sessions, login throttles; unset: in memory',
    },
  ),
  redisPrefix: setting(
    z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1–64 letters, digits or . _ : -')
      .default('onegraph'),
    {
      env: 'REDIS_PREFIX',
      help: 'Prefix of every Redis key and channel of this program (`<prefix>:…`): market cache, live poller, persisted queries, DNS tool sessions, login throttles, DNS API operations.',
    },
  ),
  redisConnectTimeoutMs: setting(z.coerce.number().int().min(50).max(60_000).default(1_000), {
    env: 'REDIS_CONNECT_TIMEOUT_MS',
    help: 'Bound of one Redis connection attempt; while Redis is away the cache and the live poller do without it.',
  }),
  redisCommandTimeoutMs: setting(z.coerce.number().int().min(10).max(60_000).default(500), {
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    help: 'Bound of one Redis command (a stalled server counts as away after it).',
  }),
  corsOrigins: setting(z.string().min(1).default('*'), {
    env: 'CORS_ORIGINS',
    flag: '--cors-origins <list>',
    help: 'Allowed CORS origins, comma-separated, or *',
  }),
  httpMaxConnections: setting(z.coerce.number().int().min(1).max(1_000_000).default(15_000), {
    env: 'HTTP_MAX_CONNECTIONS',
    help: 'Open HTTP connections at once (every stream is one); beyond it new connections are closed at once.',
  }),
  httpRequestTimeoutMs: setting(z.coerce.number().int().min(100).max(3_600_000).default(30_000), {
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    help: 'Longest an HTTP request may take to arrive in full (headers and body); then 408 and the connection closes.',
  }),
  shutdownGraceMs: setting(z.coerce.number().int().min(0).max(600_000).default(10_000), {
    env: 'SHUTDOWN_GRACE_MS',
    help: 'On shutdown, how long requests in flight may take to finish before their connections are cut.',
  }),
  workers: setting(
    z
      .union([z.literal('auto'), z.coerce.number().int().min(1).max(64)], {
        error: "must be 'auto' or a whole number from 1 to 64",
      })
      .default(1),
    {
      env: 'WORKERS',
      flag: '--workers <n|auto>',
      help: 'Gateway processes sharing the HTTP port (node:cluster), auto: one per core; more than one needs SUPERGRAPH_FILE (the all-in-one process holds the DNS server, the zone feed and the live hub, which exist once)',
    },
  ),
  logLevel: setting(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), {
    env: 'LOG_LEVEL',
    flag: '--log-level <level>',
    help: 'Least severe log level written',
  }),
  logFormat: setting(z.enum(['auto', 'json', 'pretty']).default('auto'), {
    env: 'LOG_FORMAT',
    flag: '--log-format <format>',
    help: '`auto`: readable lines on a terminal, JSON lines otherwise.',
  }),
  supergraphFile: setting(z.string().min(1).optional(), {
    env: 'SUPERGRAPH_FILE',
    flag: '--supergraph <file>',
    help: 'Serve this Federation 2 supergraph (remote subgraphs, URLs from the file) as a general gateway',
  }),
  subgraphUrls: setting(z.record(z.string(), z.url({ protocol: /^https?$/ })).default({}), {
    flag: '--subgraph <name=url>',
    help: '`name=url` pairs: serve that subgraph from a remote URL instead of in-process.',
  }),
  subgraphTimeoutMs: setting(z.coerce.number().int().min(10).max(600_000).default(10_000), {
    env: 'SUBGRAPH_TIMEOUT_MS',
    help: 'Longest one fetch from a subgraph may take (milliseconds)',
  }),
  subgraphLongTimeoutMs: setting(z.coerce.number().int().min(0).max(86_400_000).default(0), {
    env: 'SUBGRAPH_LONG_TIMEOUT_MS',
    help:
      'Longest a fetch of a long-running field (`@longRunning`: a zone import, DNSSEC on, off or a rollover) may take ' +
      'instead (milliseconds); 0: as long as the subgraph works on it',
  }),
  subgraphMaxResponseBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
    {
      env: 'SUBGRAPH_MAX_RESPONSE_BYTES',
      help: 'Largest answer taken from a remote subgraph; a larger one fails that fetch (the subgraph named).',
    },
  ),
  subgraphTrustedProxies: setting(
    commaList(z.array(z.union([z.ipv4(), z.ipv6()])).max(100)).default([...LOOPBACK_PROXIES]),
    {
      env: 'SUBGRAPH_TRUSTED_PROXIES',
      help: "A subgraph served alone believes X-Forwarded-For only from these peers (the gateway's addresses).",
    },
  ),
});
