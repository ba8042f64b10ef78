import { ManifestError, sha256Hex, TrustedDocuments } from './manifest';
import { PersistedOperations, searchWithDocument, withDocument } from './persisted-operations';

const Q = '{ a }';

test('a document is found by its id, its SHA-256 (bare or sha256:-prefixed), and recognised by its exact text', () => {
  const docs = TrustedDocuments.parse(JSON.stringify({ 'my-id': Q }));
  expect(docs.get('my-id')).toBe(Q);
  expect(docs.get(sha256Hex(Q))).toBe(Q);
  expect(docs.get(`sha256:${sha256Hex(Q)}`)).toBe(Q);
  expect(docs.get('other')).toBeUndefined();
  expect(docs.has(Q)).toBe(true);
  expect(docs.has('{ a  }')).toBe(false); // the exact text, not an equivalent one
});

test('an id given twice: the same document is fine, two different ones are refused', () => {
  const op = (body: string) => ({ id: 'x', body, name: 'X', type: 'query' });
  const manifest = (...operations: unknown[]) =>
    JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations });
  expect(TrustedDocuments.parse(manifest(op(Q), op(Q))).size).toBe(1);
  expect(() => TrustedDocuments.parse(manifest(op(Q), op('{ b }')))).toThrow(
    new ManifestError('operations[1]: id "x" is given twice with different documents'),
  );
  expect(() => TrustedDocuments.parse(JSON.stringify({ '': Q }))).toThrow('has an empty id');
});

test('a resolved document replaces the text and drops documentId and persistedQuery, keeping other extensions', () => {
  expect(
    withDocument(
      { documentId: 'x', variables: { n: 1 }, extensions: { persistedQuery: { version: 1 }, operationId: 7 } },
      Q,
    ),
  ).toEqual({ query: Q, variables: { n: 1 }, extensions: { operationId: 7 } });
  expect(withDocument({ extensions: { persistedQuery: {} } }, Q)).toEqual({ query: Q });
  const search = searchWithDocument(
    new URLSearchParams({ documentId: 'x', extensions: JSON.stringify({ persistedQuery: { version: 1 } }) }),
    Q,
  );
  expect(Object.fromEntries(search)).toEqual({ query: Q });
});

test('enforcement lets a request that names no document through (a graphql-sse stream opened for later operations)', () => {
  const only = new PersistedOperations({ documents: TrustedDocuments.parse(JSON.stringify({ x: Q })), only: true });
  expect(only.resolve({})).toEqual({ kind: 'as-is' });
  expect(only.resolve({ query: '{ b }' })).toMatchObject({ kind: 'refused', refusal: { status: 403 } });
  expect(only.resolve({ documentId: 7 })).toMatchObject({ kind: 'refused', refusal: { status: 400 } });
});
