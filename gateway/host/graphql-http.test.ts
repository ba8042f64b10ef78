import { utf8Bytes } from './graphql-http';

describe('utf8Bytes', () => {
  const cases: [string, string][] = [
    ['empty', ''],
    ['ASCII JSON', '{"data":{"name":"Table","price":899}}\n'],
    ['Latin-1 characters (two bytes each)', '{"name":"Café Zürich ñ"}'],
    ['characters of three bytes', '{"name":"株式会社 €"}'],
    ['a surrogate pair (four bytes)', '{"mood":"😀"}'],
    ['a lone surrogate (replaced, as Buffer.from does)', '{"bad":"\ud800x"}'],
    ['non-ASCII only at the very end', `${'a'.repeat(5000)}é`],
  ];
  it.each(cases)('%s: the same bytes as Buffer.from', (_name, text) => {
    const bytes = utf8Bytes(text);
    expect(bytes.equals(Buffer.from(text))).toBe(true);
    expect(bytes.toString('utf8')).toBe(Buffer.from(text).toString('utf8'));
  });

  it('an ASCII answer keeps its length in bytes', () => {
    const text = JSON.stringify({ data: { items: Array.from({ length: 2000 }, (_, i) => ({ id: i })) } });
    expect(utf8Bytes(text).length).toBe(text.length);
  });
});
