import { createHash } from 'node:crypto';
import { parse } from 'graphql';

/** A manifest that cannot be used: the message says what is wrong and where. */
export class ManifestError extends Error {}

/** Apollo's persisted query manifest (`generate-persisted-query-manifest`), version 1. */
const APOLLO_FORMAT = 'apollo-persisted-query-manifest';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The trusted documents: each by its id in the manifest and by the SHA-256 of its text (what an APQ client sends),
 * so a client may name one either way, and a full text sent as is is recognised too.
 */
export class TrustedDocuments {
  private readonly byId = new Map<string, string>();
  private readonly byHash = new Map<string, string>();

  /** Parses a manifest's text: Apollo's format or a plain `{ "<id>": "<document>" }` map (Relay, Hive). */
  static parse(text: string): TrustedDocuments {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new ManifestError(`is not JSON: ${(err as Error).message}`);
    }
    if (!isRecord(json))
      throw new ManifestError(
        `must be a JSON object: Apollo's persisted query manifest or a map of document ids to documents`,
      );
    const docs = new TrustedDocuments();
    if ('format' in json) {
      if (json.format !== APOLLO_FORMAT)
        throw new ManifestError(`has format ${JSON.stringify(json.format)}; the one known is "${APOLLO_FORMAT}"`);
      if (json.version !== 1)
        throw new ManifestError(`has version ${JSON.stringify(json.version)} of ${APOLLO_FORMAT}; the one known is 1`);
      if (!Array.isArray(json.operations)) throw new ManifestError('has no "operations" list');
      json.operations.forEach((op: unknown, i) => {
        if (!isRecord(op) || typeof op.id !== 'string' || op.id === '' || typeof op.body !== 'string')
          throw new ManifestError(`operations[${i}] must have a non-empty string "id" and a string "body"`);
        docs.add(op.id, op.body, `operations[${i}]`);
      });
    } else {
      for (const [id, body] of Object.entries(json)) {
        if (typeof body !== 'string')
          throw new ManifestError(`the document of id ${JSON.stringify(id)} is not a string`);
        if (id === '') throw new ManifestError('has an empty id');
        docs.add(id, body, `id ${JSON.stringify(id)}`);
      }
    }
    if (docs.size === 0) throw new ManifestError('holds no operations');
    return docs;
  }

  get size(): number {
    return this.byId.size;
  }

  private add(id: string, body: string, where: string): void {
    const known = this.byId.get(id);
    if (known !== undefined && known !== body)
      throw new ManifestError(`${where}: id ${JSON.stringify(id)} is given twice with different documents`);
    try {
      parse(body);
    } catch (err) {
      throw new ManifestError(`${where}: the document is not GraphQL: ${(err as Error).message}`);
    }
    this.byId.set(id, body);
    this.byHash.set(sha256Hex(body), body);
  }

  /** The document an id names: the manifest's own id, or a SHA-256 of its text (bare or `sha256:`-prefixed). */
  get(id: string): string | undefined {
    const bare = id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
    return this.byId.get(id) ?? this.byId.get(bare) ?? this.byHash.get(bare);
  }

  /** Whether this exact text is one of the trusted documents. */
  has(query: string): boolean {
    return this.byHash.has(sha256Hex(query));
  }
}
