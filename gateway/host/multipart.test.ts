import type { Payload } from './incremental-formats';
import { multipartBody, multipartContentType, multipartFormat, withHasNext } from './multipart';

async function* of(...payloads: Payload[]): AsyncGenerator<Payload> {
  for (const p of payloads) yield p;
}

async function body(initial: string, later: AsyncIterable<Payload>): Promise<string> {
  let out = '';
  for await (const chunk of multipartBody(initial, later)) out += chunk;
  return out;
}

const PART = 'content-type: application/json; charset=utf-8\r\n\r\n';

test('the content type is the one Apollo Router sends, naming the format', () => {
  expect(multipartContentType('deferSpec=20220824')).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
  expect(multipartContentType('incrementalSpec=v0.2')).toBe('multipart/mixed;boundary="-";incrementalSpec=v0.2');
});

test('parts: a delimiter before the first and after each, the last closed by the final delimiter', async () => {
  const later = of(
    { hasNext: true, incremental: [] },
    { hasNext: false, incremental: [{ data: { b: 2 }, path: ['a'], label: 'x' }] },
  );
  expect(await body('{"data":{"a":{}},"hasNext":true}', later)).toBe(
    `\r\n---\r\n${PART}{"data":{"a":{}},"hasNext":true}\r\n---\r\n` +
      `${PART}{"hasNext":true,"incremental":[]}\r\n---\r\n` +
      `${PART}{"hasNext":false,"incremental":[{"data":{"b":2},"path":["a"],"label":"x"}]}\r\n-----\r\n`,
  );
});

test('payloads that end without hasNext: false still close the body', async () => {
  const out = await body('{"data":{},"hasNext":true}', of());
  expect(out.endsWith(`${PART}{"hasNext":false}\r\n-----\r\n`)).toBe(true);
});

test('nothing is written after the payload saying hasNext: false', async () => {
  const out = await body('{}', of({ hasNext: false }, { hasNext: true }));
  expect(out.match(/content-type/g)).toHaveLength(2);
  expect(out.endsWith('{"hasNext":false}\r\n-----\r\n')).toBe(true);
});

test('withHasNext adds hasNext to Apollo Server’s serialised result', () => {
  expect(withHasNext('{"data":{"a":1}}\n')).toBe('{"data":{"a":1},"hasNext":true}');
  expect(withHasNext('{}')).toBe('{"hasNext":true}');
  expect(JSON.parse(withHasNext('{"errors":[{"message":"}"}],"data":null}\n'))).toEqual({
    errors: [{ message: '}' }],
    data: null,
    hasNext: true,
  });
  expect(() => withHasNext('null')).toThrow('not a JSON object');
});

test('withHasNext adds other fields before hasNext', () => {
  const pending = [{ id: '0', path: ['a'], label: 'x' }];
  expect(withHasNext('{"data":{"a":{}}}\n', { pending })).toBe(
    '{"data":{"a":{}},"pending":[{"id":"0","path":["a"],"label":"x"}],"hasNext":true}',
  );
  expect(withHasNext('{}', { pending: [] })).toBe('{"pending":[],"hasNext":true}');
});

const OLD = 'deferSpec=20220824';
const V02 = 'incrementalSpec=v0.2';
test.each([
  ['multipart/mixed;deferSpec=20220824,application/json', OLD],
  ['application/json, multipart/mixed', OLD],
  ['multipart/mixed; deferSpec="20220824"', OLD],
  ['Multipart/Mixed', OLD],
  // what Apollo Client's GraphQL17Alpha9Handler sends
  ['multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9', V02],
  ['multipart/mixed; incrementalSpec="v0.2"', V02],
  ['multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824', V02],
  ['multipart/mixed;deferSpec=20220824, multipart/mixed;incrementalSpec=v0.2', OLD],
  ['multipart/mixed;deferSpec=20220824;q=0.5, multipart/mixed;incrementalSpec=v0.2', V02],
  ['multipart/mixed;incrementalSpec=v0.3, multipart/mixed', OLD],
  ['multipart/mixed;incrementalSpec=v0.3', undefined],
  ['multipart/mixed;incrementalSpec=v0.2;deferSpec=20220824', undefined],
  ['multipart/mixed;deferSpec=20990101', undefined],
  ['multipart/mixed;q=0, application/json', undefined],
  ['application/json', undefined],
  ['*/*', undefined],
  [undefined, undefined],
])('Accept %s takes the format %s', (accept, expected) => {
  expect(multipartFormat(accept)).toBe(expected);
});
