import { preferences, prefersAsync } from './prefer';

describe('Prefer (RFC 7240)', () => {
  test('preferences with values and parameters, names in any case, values as given', () => {
    const found = preferences('Respond-Async, WAIT=10, return = "minimal" ; Foo = bar ;baz, handling=strict');
    expect([...found.keys()]).toEqual(['respond-async', 'wait', 'return', 'handling']);
    expect(found.get('respond-async')).toEqual({ value: null, params: new Map() });
    expect(found.get('wait')?.value).toBe('10');
    expect(found.get('return')).toEqual({
      value: 'minimal',
      params: new Map([
        ['foo', 'bar'],
        ['baz', null],
      ]),
    });
  });

  test('several headers are one list; a preference given again is ignored after its first time (§2)', () => {
    const found = preferences(['wait=5', 'respond-async, wait=100']);
    expect(found.get('wait')?.value).toBe('5');
    expect(found.has('respond-async')).toBe(true);
  });

  test('commas and semicolons inside quoted strings do not split; quoted pairs are unquoted', () => {
    const found = preferences('x="a, b; c", y="say \\"hi\\"", respond-async');
    expect(found.get('x')?.value).toBe('a, b; c');
    expect(found.get('y')?.value).toBe('say "hi"');
    expect(found.has('respond-async')).toBe(true);
  });

  test('what does not parse is ignored, never an error; the rest still counts', () => {
    const found = preferences('=x, bad name, a=b c, "quoted", , ;, respond-async');
    expect([...found.keys()]).toEqual(['respond-async']);
  });

  test('an empty value is no value (§2)', () => {
    expect(preferences('respond-async=""').get('respond-async')?.value).toBeNull();
    expect(preferences('respond-async=').get('respond-async')?.value).toBeNull();
  });
});

describe('respond-async', () => {
  test.each([
    ['respond-async', true],
    ['RESPOND-ASYNC', true],
    ['return=minimal, respond-async', true],
    ['respond-async; foo=bar', true],
    ['respond-async, wait=10', true],
    ['respond-async=""', true],
    [' , respond-async ,', true],
    ['respond-async=yes', false],
    ['respond-asynchronously', false],
    ['wait=10', false],
    ['return=minimal', false],
    ['"respond-async"', false],
    ['', false],
  ])('Prefer: %j → %s', (header, async) => {
    expect(prefersAsync(header)).toBe(async);
  });

  test('without the header: no', () => {
    expect(prefersAsync(undefined)).toBe(false);
    expect(prefersAsync([])).toBe(false);
  });

  test('in a second Prefer header', () => {
    expect(prefersAsync(['return=minimal', 'respond-async'])).toBe(true);
  });
});
