import { readFileSync } from 'node:fs';
import { ManifestError, PersistedOperations, QueryStore, RedisQueryStore, TrustedDocuments } from '../graph';
import type { Logger } from '../../platform/log';
import { RedisLink } from '../../platform/redis';
import { ConfigError } from './config/load';
import type { Config } from './config/schema';

type PersistedSettings = Pick<
  Config,
  | 'persistedQueries'
  | 'persistedQueriesEntries'
  | 'persistedQueriesBytes'
  | 'persistedDocuments'
  | 'persistedDocumentsOnly'
  | 'persistedQueriesTtlS'
  | 'redisUrl'
  | 'redisPrefix'
  | 'redisConnectTimeoutMs'
  | 'redisCommandTimeoutMs'
>;

/** Reads PERSISTED_DOCUMENTS; a file that cannot be read or used stops the start, naming the setting and why. */
export function readTrustedDocuments(file: string): TrustedDocuments {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`PERSISTED_DOCUMENTS (persistedDocuments): cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return TrustedDocuments.parse(text);
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    throw new ConfigError(`PERSISTED_DOCUMENTS (persistedDocuments): ${file} ${err.message}`);
  }
}

/** With REDIS_URL: the APQ documents every replica shares. */
function sharedStore(config: PersistedSettings, log?: Logger): RedisQueryStore | undefined {
  if (config.redisUrl === undefined) return undefined;
  const link = new RedisLink({
    url: config.redisUrl,
    purpose: 'persisted queries',
    fallback: "each replica keeps the documents registered with it (clients may send a document's text once more)",
    connectTimeoutMs: config.redisConnectTimeoutMs,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    log,
  });
  return new RedisQueryStore(link, { prefix: config.redisPrefix, ttlSeconds: config.persistedQueriesTtlS });
}

/** PERSISTED_DOCUMENTS read, if set (before anything opens: a bad manifest leaves nothing to close). */
export function configuredDocuments(config: Pick<Config, 'persistedDocuments'>): TrustedDocuments | undefined {
  return config.persistedDocuments === undefined ? undefined : readTrustedDocuments(config.persistedDocuments);
}

/**
 * The APQ store (none when PERSISTED_QUERIES is off; in memory, backed by Redis with REDIS_URL, closed with the
 * graph) and the trusted documents.
 */
export function persistedOperations(
  config: PersistedSettings,
  documents: TrustedDocuments | undefined,
  log?: Logger,
): PersistedOperations {
  return new PersistedOperations({
    documents,
    only: config.persistedDocumentsOnly,
    store: config.persistedQueries
      ? new QueryStore(
          { maxEntries: config.persistedQueriesEntries, maxBytes: config.persistedQueriesBytes },
          sharedStore(config, log),
        )
      : undefined,
  });
}
