import { readFileSync } from 'node:fs';
import { ManifestError, PersistedOperations, QueryStore, TrustedDocuments } from '../graph';
import { ConfigError } from './config/load';
import type { Config } from './config/schema';

type PersistedSettings = Pick<
  Config,
  | 'persistedQueries'
  | 'persistedQueriesEntries'
  | 'persistedQueriesBytes'
  | 'persistedDocuments'
  | 'persistedDocumentsOnly'
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

/** The APQ store (none when PERSISTED_QUERIES is off) and the trusted documents of this process's settings. */
export function persistedOperations(config: PersistedSettings): PersistedOperations {
  return new PersistedOperations({
    documents: config.persistedDocuments === undefined ? undefined : readTrustedDocuments(config.persistedDocuments),
    only: config.persistedDocumentsOnly,
    store: config.persistedQueries
      ? new QueryStore({ maxEntries: config.persistedQueriesEntries, maxBytes: config.persistedQueriesBytes })
      : undefined,
  });
}
