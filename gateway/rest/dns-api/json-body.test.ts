import { RestError } from '../errors';
import { JSON_TYPE, parseJsonBody } from './json-body';

function restError(f: () => unknown): RestError {
  try {
    f();
  } catch (e) {
    if (e instanceof RestError) return e;
    throw new Error(`expected a RestError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a RestError, nothing was thrown');
}

describe('parseJsonBody', () => {
  test('JSON as JSON.parse reads it; an empty or blank body is no body', () => {
    expect(parseJsonBody('{"a": [1, {"b": null}]}')).toEqual({ a: [1, { b: null }] });
    expect(parseJsonBody('')).toBeUndefined();
    expect(parseJsonBody(' \r\n')).toBeUndefined();
  });

  test('malformed JSON: 400 "malformed"', () => {
    const err = restError(() => parseJsonBody('{"a":'));
    expect({ status: err.status, message: err.message }).toEqual({
      status: 400,
      message: 'malformed JSON: the request body is not valid JSON',
    });
  });

  test.each([
    ['{"__proto__": {"x": 1}}', '"__proto__"'],
    ['{"a": [{"b": {"__proto__": 1}}]}', '"__proto__"'],
    ['{"constructor": {"prototype": {"x": 1}}}', '"constructor" with "prototype"'],
    ['[{"constructor": {"prototype": null}}]', '"constructor" with "prototype"'],
  ])('%s: 400 naming the forbidden key %s', (text, key) => {
    const err = restError(() => parseJsonBody(text));
    expect({ status: err.status, message: err.message }).toEqual({
      status: 400,
      message: `the request body has the key ${key}, which is not allowed (a forbidden key)`,
    });
  });

  test('"constructor" alone, or "prototype" elsewhere, is an ordinary key', () => {
    expect(parseJsonBody('{"constructor": "x", "prototype": {"constructor": 1}}')).toEqual({
      constructor: 'x',
      prototype: { constructor: 1 },
    });
  });

  test('a body nested 100 000 deep is walked without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(() => parseJsonBody(deep)).not.toThrow(RangeError);
  });
});

describe('JSON_TYPE', () => {
  test.each([
    ['application/json', true],
    ['application/json; charset="utf-8"', true],
    ['application/merge-patch+json', true],
    ['application/vnd.api+json; charset="utf-8"', true],
    ['text/plain', false],
    ['application/jsonx', false],
    ['application/x-www-form-urlencoded', false],
    ['text/json+xml', false],
  ])('%s: %s', (type, json) => {
    expect(JSON_TYPE.test(type)).toBe(json);
  });
});
