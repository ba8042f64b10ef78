import { APQ_KEY_PREFIX, type QueryStore } from './query-store';
import { isRecord, sha256Hex, type TrustedDocuments } from './manifest';

/** What a GraphQL request carries that names its document: its text, a manifest id, an APQ hash. */
export interface DocumentParams {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

/** A request refused before Apollo Server sees it: HTTP status and the error's code and message. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** `as-is`: Apollo Server (or graphql-sse) takes the request unchanged; `document`: run this text instead. */
export type Resolution =
  { kind: 'as-is' } | { kind: 'document'; query: string } | { kind: 'refused'; refusal: Refusal };

export interface PersistedOptions {
  /** The trusted documents (PERSISTED_DOCUMENTS), if any. */
  documents?: TrustedDocuments;
  /** Only trusted documents may run (PERSISTED_DOCUMENTS_ONLY). */
  only: boolean;
  /** The APQ store (absent: APQ off). */
  store?: QueryStore;
}

const refused = (status: number, code: string, message: string): Resolution => ({
  kind: 'refused',
  refusal: { status, code, message },
});

/** The `extensions.persistedQuery` of a request, when it has one. */
export function persistedQueryOf(params: DocumentParams): { version?: unknown; sha256Hash?: unknown } | undefined {
  const ext = params.extensions;
  return isRecord(ext) && isRecord(ext.persistedQuery) ? ext.persistedQuery : undefined;
}

const hasText = (params: DocumentParams) => params.query !== undefined && params.query !== null;

/**
 * Trusted documents and automatic persisted queries at the HTTP edge, before Apollo Server's pipeline: a
 * `documentId` or an APQ hash that the manifest holds is replaced by the document's text; with `only`, nothing
 * else runs. APQ proper (register, look up) is Apollo Server's on /graphql and `resolveStream`'s on the stream.
 */
export class PersistedOperations {
  constructor(readonly options: PersistedOptions) {}

  /** Manifest look-ups and enforcement (both paths). */
  resolve(params: DocumentParams): Resolution {
    const { documents, only } = this.options;
    const pq = persistedQueryOf(params);
    const hash = pq?.sha256Hash;
    if (params.documentId !== undefined && params.documentId !== null) {
      if (typeof params.documentId !== 'string' || params.documentId === '')
        return refused(400, 'BAD_REQUEST', 'documentId must be a non-empty string');
      if (hasText(params)) return refused(400, 'BAD_REQUEST', 'give a documentId or a query, not both');
      if (!documents)
        return refused(
          400,
          'PERSISTED_QUERY_NOT_SUPPORTED',
          'documentId names a trusted document, and this gateway has no manifest of them (PERSISTED_DOCUMENTS)',
        );
      const query = documents.get(params.documentId);
      return query === undefined
        ? refused(400, 'PERSISTED_QUERY_NOT_IN_LIST', `no trusted document has the id ${params.documentId}`)
        : { kind: 'document', query };
    }
    // Refused here rather than by Apollo Server, whose error for it carries no code (clients would see
    // INTERNAL_SERVER_ERROR); the stream path shares this answer.
    if (
      pq?.version === 1 &&
      typeof hash === 'string' &&
      typeof params.query === 'string' &&
      sha256Hex(params.query) !== hash
    )
      return refused(400, 'BAD_REQUEST', 'provided sha does not match query');
    if (documents && typeof hash === 'string' && !hasText(params)) {
      const query = documents.get(hash);
      if (query !== undefined) return { kind: 'document', query };
    }
    // nothing named (a graphql-sse stream opened for operations sent later; a request Apollo Server refuses anyway)
    if (!documents || !only || (!hasText(params) && hash === undefined)) return { kind: 'as-is' };
    if (typeof params.query === 'string' && documents.has(params.query)) return { kind: 'as-is' };
    if (typeof hash === 'string' && !hasText(params))
      return refused(400, 'PERSISTED_QUERY_NOT_IN_LIST', `no trusted document has the hash ${hash}`);
    return refused(
      403,
      'QUERY_NOT_IN_SAFELIST',
      'only trusted documents run here (PERSISTED_DOCUMENTS_ONLY): send the documentId of one from the manifest',
    );
  }

  /**
   * The stream endpoint's resolution: the manifest's, then APQ over the same store as /graphql (graphql-sse knows
   * nothing of it). A text sent with its hash is registered once `valid` says it validates, as Apollo Server does.
   */
  async resolveStream(params: DocumentParams, valid: (query: string) => boolean): Promise<Resolution> {
    const first = this.resolve(params);
    const pq = persistedQueryOf(params);
    if (first.kind !== 'as-is' || pq === undefined) return first;
    const { store } = this.options;
    if (!store && !hasText(params)) return refused(200, 'PERSISTED_QUERY_NOT_SUPPORTED', 'PersistedQueryNotSupported');
    if (pq.version !== 1) return refused(400, 'BAD_REQUEST', 'Unsupported persisted query version');
    if (typeof pq.sha256Hash !== 'string')
      return refused(400, 'BAD_REQUEST', 'persistedQuery.sha256Hash must be a string');
    if (!hasText(params)) {
      const query = await store?.get(APQ_KEY_PREFIX + pq.sha256Hash);
      return query === undefined
        ? refused(200, 'PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound')
        : { kind: 'document', query };
    }
    if (typeof params.query !== 'string') return { kind: 'as-is' }; // graphql-sse answers the bad query
    if (store && valid(params.query)) await store.set(APQ_KEY_PREFIX + pq.sha256Hash, params.query);
    return { kind: 'document', query: params.query };
  }
}

/** The request's parameters with `query` set to a resolved document and no documentId or persistedQuery left. */
export function withDocument<T extends DocumentParams>(params: T, query: string): T {
  const { documentId: _id, extensions, ...rest } = params;
  const ext = isRecord(extensions) ? { ...extensions } : undefined;
  if (ext) delete ext.persistedQuery;
  return { ...rest, query, ...(ext && Object.keys(ext).length > 0 ? { extensions: ext } : {}) } as T;
}

/** The same for a GET request's query string. */
export function searchWithDocument(search: URLSearchParams, query: string): URLSearchParams {
  const out = new URLSearchParams(search);
  out.delete('documentId');
  out.set('query', query);
  const ext = out.get('extensions');
  if (ext !== null) {
    const parsed = parsedJson(ext);
    if (parsed === undefined) return out; // Apollo Server answers the bad JSON
    const rest = withDocument({ extensions: parsed }, query).extensions;
    if (rest === undefined) out.delete('extensions');
    else out.set('extensions', JSON.stringify(rest));
  }
  return out;
}

/** The document parameters of a GET request's query string (`extensions` parsed from its JSON). */
export function searchParamsOf(search: URLSearchParams): DocumentParams {
  const ext = search.get('extensions');
  // bad JSON: none here (Apollo Server answers it)
  const extensions = ext === null ? undefined : parsedJson(ext);
  return { query: search.get('query') ?? undefined, documentId: search.get('documentId') ?? undefined, extensions };
}

/** `text` parsed as JSON, or undefined when it is not JSON (no JSON text parses to undefined). */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
