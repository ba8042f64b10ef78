import { acceptsMultipart, MULTIPART_CONTENT_TYPE, multipartBody, withHasNext, type Payload } from './multipart';

async function* of(...payloads: Payload[]): AsyncGenerator<Payload> {
  for (const p of payloads) yield p;
}

async function body(initial: string, later: AsyncIterable<Payload>): Promise<string> {
  let out = '';
  for await (const chunk of multipartBody(initial, later)) out += chunk;
  return out;
}

const PART = 'content-type: application/json; charset=utf-8\r\n\r\n';

test('the content type is the one Apollo Router sends', () => {
  expect(MULTIPART_CONTENT_TYPE).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
});

test('parts: a delimiter before the first and after each, the last closed by the final delimiter', async () => {
  const later = of(
    { hasNext: true, incremental: [] } as Payload,
    { hasNext: false, incremental: [{ data: { b: 2 }, path: ['a'], label: 'x' }] } as Payload,
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

test.each([
  ['multipart/mixed;deferSpec=20220824,application/json', true],
  ['application/json, multipart/mixed', true],
  ['multipart/mixed; deferSpec="20220824"', true],
  ['Multipart/Mixed', true],
  ['multipart/mixed;deferSpec=20990101', false],
  ['multipart/mixed;q=0, application/json', false],
  ['application/json', false],
  ['*/*', false],
  [undefined, false],
])('Accept %s takes multipart/mixed: %s', (accept, expected) => {
  expect(acceptsMultipart(accept)).toBe(expected);
});
