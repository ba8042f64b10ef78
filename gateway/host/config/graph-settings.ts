import { z } from 'zod';
import { setting, textBool } from '../../../platform/settings';

/** The graph: limits of one operation, the whole-response cache, persisted queries and live streams. */
export const GraphSettings = z.object({
  introspection: setting(textBool.default(true), {
    env: 'INTROSPECTION',
    help: 'Answer GraphQL introspection queries',
  }),
  maxBodyBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(100 * 1024 * 1024)
      .default(1024 * 1024),
    {
      env: 'MAX_BODY_BYTES',
      help: 'Largest request body, and largest message a GraphQL WebSocket client may send (bytes)',
    },
  ),
  maxQueryDepth: setting(z.coerce.number().int().min(1).max(1_000).default(15), {
    env: 'MAX_QUERY_DEPTH',
    help: 'Deepest selection nesting of one operation',
  }),
  maxAliases: setting(z.coerce.number().int().min(0).max(10_000).default(50), {
    env: 'MAX_ALIASES',
    help: 'Most aliases in one operation',
  }),
  maxFields: setting(z.coerce.number().int().min(1).max(100_000).default(500), {
    env: 'MAX_FIELDS',
    help: 'Most fields selected in one operation',
  }),
  maxQueryCost: setting(z.coerce.number().int().min(1).max(1_000_000_000).default(100_000), {
    env: 'MAX_QUERY_COST',
    help: "Largest estimated cost of one operation: each field 1, a list its page size (or assumed size) times its items, a field's own weight from the schema's @cost. 100 000: two full pages of records (10 000 × 5 fields) or one zone transfer with every column, not fifty of them.",
  }),
  maxVariablesDepth: setting(z.coerce.number().int().min(1).max(1_000).default(32), {
    env: 'MAX_VARIABLES_DEPTH',
    help: "Deepest nesting of arrays and objects in a request's GraphQL variables.",
  }),
  graphqlConcurrency: setting(
    z
      .union([z.literal('auto'), z.literal('off'), z.coerce.number().int().min(1).max(100_000)], {
        error: "must be 'auto', 'off' or a whole number from 1 to 100000",
      })
      .default('auto'),
    {
      env: 'GRAPHQL_CONCURRENCY',
      help:
        'GraphQL operations (queries and mutations over HTTP and the REST interfaces) executing at once; the others ' +
        'wait their turn in arrival order. auto: adapted to the event loop (more while it has time to spare, fewer ' +
        'while it is saturated); off: no bound.',
    },
  ),
  responseCache: setting(textBool.default(true), {
    env: 'RESPONSE_CACHE',
    flag: '--no-response-cache',
    help: 'The whole-response cache of GraphQL results',
  }),
  responseCacheEntries: setting(z.coerce.number().int().min(0).max(1_000_000).default(10_000), {
    env: 'RESPONSE_CACHE_ENTRIES',
    help: 'Most responses the whole-response cache holds; the least recently used go first',
  }),
  responseCacheBytes: setting(
    z.coerce
      .number()
      .int()
      .min(0)
      .max(64 * 1024 ** 3)
      .default(64 * 1024 ** 2),
    {
      env: 'RESPONSE_CACHE_BYTES',
      help: 'Bytes the whole-response cache may hold (results and their renderings); the least recently used go first.',
    },
  ),
  responseCacheMaxEntryBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(1024 ** 3)
      .default(2 * 1024 ** 2),
    { env: 'RESPONSE_CACHE_MAX_ENTRY_BYTES', help: 'A response bigger than this is not cached at all.' },
  ),
  persistedQueries: setting(textBool.default(true), {
    env: 'PERSISTED_QUERIES',
    help: "Automatic persisted queries (Apollo's extensions.persistedQuery protocol) on /graphql and /graphql/stream",
  }),
  persistedQueriesEntries: setting(z.coerce.number().int().min(1).max(10_000_000).default(10_000), {
    env: 'PERSISTED_QUERIES_ENTRIES',
    help: 'Most documents the automatic persisted queries store holds (in this process); the least recently used go first',
  }),
  persistedQueriesBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(16 * 1024 ** 3)
      .default(32 * 1024 ** 2),
    {
      env: 'PERSISTED_QUERIES_BYTES',
      help: 'Bytes of document text the automatic persisted queries store holds; the least recently used go first',
    },
  ),
  persistedQueriesTtlS: setting(
    z.coerce
      .number()
      .int()
      .min(60)
      .max(365 * 86_400)
      .default(86_400),
    {
      env: 'PERSISTED_QUERIES_TTL_S',
      help: 'With REDIS_URL: how long a registered document stays in Redis, where every replica shares it (its bound there)',
    },
  ),
  persistedDocuments: setting(z.string().min(1).optional(), {
    env: 'PERSISTED_DOCUMENTS',
    flag: '--persisted-documents <file>',
    help: "Manifest of trusted documents (JSON: Apollo's persisted query manifest or a map of ids to documents); clients name them by documentId or hash",
  }),
  persistedDocumentsOnly: setting(textBool.default(false), {
    env: 'PERSISTED_DOCUMENTS_ONLY',
    help: "Only the manifest's documents may run on /graphql and /graphql/stream (needs PERSISTED_DOCUMENTS); the REST interfaces' fixed operations still run",
  }),
  liveMaxConnections: setting(z.coerce.number().int().min(1).max(1_000_000).default(10_000), {
    env: 'LIVE_MAX_CONNECTIONS',
    help: 'Open live streams (GraphQL subscriptions over SSE or WebSocket, and /v1/live) in this process.',
  }),
  liveMaxConnectionsPerClient: setting(z.coerce.number().int().min(1).max(1_000_000).default(100), {
    env: 'LIVE_MAX_CONNECTIONS_PER_CLIENT',
    help: 'Open live streams one client address may hold',
  }),
  liveHeartbeatMs: setting(z.coerce.number().int().min(100).max(600_000).default(15_000), {
    env: 'LIVE_HEARTBEAT_MS',
    help: 'Heartbeat comment lines on /v1/live streams (graphql-sse pings its own streams every 12 s).',
  }),
  liveMaxSubscriptionsPerConnection: setting(z.coerce.number().int().min(1).max(10_000).default(100), {
    env: 'LIVE_MAX_SUBSCRIPTIONS_PER_CONNECTION',
    help: 'Operations one single-connection-mode graphql-sse stream, or one GraphQL WebSocket, may carry at once.',
  }),
  liveMaxStreamBufferBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(1024 * 1024 * 1024)
      .default(1024 * 1024),
    {
      env: 'LIVE_MAX_STREAM_BUFFER_BYTES',
      help: 'Outgoing live streams: unsent bytes one stream may hold (a client that falls behind loses its oldest events).',
    },
  ),
  liveMaxBufferedBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024 * 1024)
      .default(256 * 1024 * 1024),
    {
      env: 'LIVE_MAX_BUFFERED_BYTES',
      help: 'Unsent bytes of all live streams of the process; over it the streams holding the most are disconnected.',
    },
  ),
  liveSlowClientTimeoutMs: setting(z.coerce.number().int().min(100).max(3_600_000).default(60_000), {
    env: 'LIVE_SLOW_CLIENT_TIMEOUT_MS',
    help: 'A live stream that stays over liveMaxStreamBufferBytes this long is disconnected.',
  }),
  liveReservationTimeoutMs: setting(z.coerce.number().int().min(100).max(600_000).default(10_000), {
    env: 'LIVE_RESERVATION_TIMEOUT_MS',
    help: 'How long a graphql-sse single-connection reservation (PUT) waits for its stream to open.',
  }),
  liveWsInitTimeoutMs: setting(z.coerce.number().int().min(100).max(600_000).default(10_000), {
    env: 'LIVE_WS_INIT_TIMEOUT_MS',
    help: 'How long a GraphQL WebSocket may stay open without its connection_init (then closed with 4408).',
  }),
  liveWsKeepAliveMs: setting(z.coerce.number().int().min(100).max(600_000).default(12_000), {
    env: 'LIVE_WS_KEEPALIVE_MS',
    help: 'Interval of pings on GraphQL WebSockets; a socket that has not answered one by the next is cut.',
  }),
});
