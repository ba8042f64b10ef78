import fc from 'fast-check';
import {
  NameError,
  isInZone,
  isWildcardName,
  joinLabels,
  normalizeName,
  parentNames,
  relativeName,
  splitLabels,
  toFqdn,
  wireName,
} from './names';

function nameError(f: () => unknown): NameError {
  try {
    f();
  } catch (e) {
    if (e instanceof NameError) return e;
    throw new Error(`expected a NameError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a NameError, nothing was thrown');
}

describe('normalizeName: accepted forms', () => {
  test.each([
    ['@', 'example.com', 'example.com'],
    ['www', 'example.com', 'www.example.com'],
    ['www.sub', 'example.com', 'www.sub.example.com'],
    ['WWW.Example.COM.', 'example.com', 'www.example.com'],
    ['www.example.com', 'example.com', 'www.example.com'], // already ends with the origin: absolute (api syntax)
    ['example.com', 'example.com', 'example.com'],
    ['www.other.org.', 'example.com', 'www.other.org'],
    ['_dmarc', 'example.com', '_dmarc.example.com'],
    ['_sip._tcp', 'example.com', '_sip._tcp.example.com'],
    ['*', 'example.com', '*.example.com'],
    ['*.wild', 'example.com', '*.wild.example.com'],
    ['.', 'example.com', ''],
    ['www', 'example.com.', 'www.example.com'],
    ['a-b-c', undefined, 'a-b-c'],
    ['xn--bcher-kva.example', undefined, 'xn--bcher-kva.example'],
  ])('%j with origin %j → %j', (input, origin, expected) => {
    expect(normalizeName(input, origin)).toBe(expected);
  });

  test('without an origin, names are absolute with or without the trailing dot', () => {
    expect(normalizeName('www.example.com')).toBe('www.example.com');
    expect(normalizeName('www.example.com.')).toBe('www.example.com');
  });

  test('master syntax: every name without a trailing dot is relative, even one ending with the origin', () => {
    expect(normalizeName('www.example.com', 'example.com', { syntax: 'master' })).toBe('www.example.com.example.com');
    expect(normalizeName('www.example.com.', 'example.com', { syntax: 'master' })).toBe('www.example.com');
    expect(normalizeName('@', 'example.com', { syntax: 'master' })).toBe('example.com');
  });

  test('IDN labels become punycode, per label', () => {
    expect(normalizeName('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalizeName('BÜCHER.example.')).toBe('xn--bcher-kva.example');
    expect(normalizeName('www.bücher', 'example.com')).toBe('www.xn--bcher-kva.example.com');
    expect(normalizeName('_dmarc.bücher.example')).toBe('_dmarc.xn--bcher-kva.example');
  });

  test('labels of exactly 63 octets and names of exactly 253 characters are fine', () => {
    const l63 = 'a'.repeat(63);
    expect(normalizeName(`${l63}.com`)).toBe(`${l63}.com`);
    const name = [l63, l63, l63, 'a'.repeat(61)].join('.'); // 63*3 + 61 + 3 dots = 253
    expect(name).toHaveLength(253);
    expect(normalizeName(name)).toBe(name);
  });
});

describe('normalizeName: errors name what is wrong', () => {
  test.each([
    ['', /the name is empty/],
    ['a..b', /empty label/],
    ['.a', /empty label/],
    [`${'a'.repeat(64)}.com`, /is 64 octets long; at most 63/],
    [
      'a b.example.com',
      /label "a b" contains " ", which is not allowed; allowed are letters, digits, hyphen, underscore/,
    ],
    ['exa$mple.com', /contains "\$"/],
    ['foo/bar', /contains "\/"/],
    ['-foo.example.com', /must not start or end with a hyphen/],
    ['foo-.example.com', /must not start or end with a hyphen/],
    ['a*.example.com', /"\*" is only allowed as a whole label/],
    ['www.*.example.com', /wildcard "\*" must be the leftmost label/],
    ['www\\.example.com', /escaped characters \(\\\) are not supported/],
    ['ex\\065mple.com', /escaped characters/],
    ['a\u0000b', /contains "\\u0000"/],
  ])('%j', (input, message) => {
    const e = nameError(() => normalizeName(input));
    expect(e.message).toMatch(message);
    expect(e.message).toContain(`Invalid name ${JSON.stringify(input)}`);
    expect(e.field).toBe('name');
  });

  test('a name longer than 253 characters', () => {
    const name = ['a'.repeat(63), 'a'.repeat(63), 'a'.repeat(63), 'a'.repeat(62)].join('.');
    expect(name).toHaveLength(254);
    expect(nameError(() => normalizeName(name)).message).toMatch(
      /254 characters long; at most 253 are allowed \(255 octets on the wire\)/,
    );
  });

  test('a relative name that becomes too long with the origin', () => {
    const origin = ['b'.repeat(63), 'b'.repeat(63), 'b'.repeat(63)].join('.');
    expect(nameError(() => normalizeName('c'.repeat(63), origin)).message).toMatch(/at most 253/);
  });

  test('wildcard not leftmost after appending the origin is caught too', () => {
    expect(nameError(() => normalizeName('www', '*.example.com')).message).toMatch(/leftmost/);
  });

  test('"@" without an origin', () => {
    expect(nameError(() => normalizeName('@')).message).toMatch(/"@" stands for the zone origin/);
  });

  test('an invalid internationalised label', () => {
    expect(nameError(() => normalizeName('ü b.example')).message).toMatch(
      /not a valid internationalised label|not allowed/,
    );
  });

  test('a label of 61 characters that is longer than 63 octets as punycode', () => {
    const e = nameError(() => normalizeName(`${'a'.repeat(60)}ü.example`));
    expect(e.message).toMatch(/octets long; at most 63/);
  });
});

describe('normalizeName: escapes in master files (RFC 1035 §5.1)', () => {
  test.each([
    ['\\065bc', 'abc.ex.test', 'Abc.ex.test'],
    ['w\\ww', 'www.ex.test', 'www.ex.test'],
    ['x\\-y\\_z.sub.', 'x-y_z.sub', 'x-y_z.sub'],
    ['\\097\\098', 'ab.ex.test', 'ab.ex.test'],
  ])('%j stands for a name of plain characters', (input, model, given) => {
    expect(normalizeName(input, 'ex.test', { syntax: 'master' })).toBe(model);
    expect(normalizeName(input, 'ex.test', { syntax: 'master', keepCase: true })).toBe(given);
  });

  test.each([
    ['a\\.b', /the escape "\\\." stands for a "\." inside a label, which names here cannot hold; allowed are letters/],
    ['a\\046b', /the escape "\\046" stands for a "\." inside a label/],
    ['nul\\000x', /the escape "\\000" stands for the octet 0, which names here cannot hold/],
    ['x\\200y', /the escape "\\200" stands for the octet 200/],
    ['my\\ host', /the escape "\\ " stands for the octet 32/],
    ['\\*', /the escape "\\\*" stands for a literal "\*" \(not a wildcard\)/],
    ['a\\300', /the escape "\\300" is above 255, the largest octet/],
    ['trailing\\', /the name ends with a lone "\\"/],
  ])('%j is an error naming the escape', (input, message) => {
    const e = nameError(() => normalizeName(input, 'ex.test', { syntax: 'master' }));
    expect(e.message).toMatch(message);
    expect(e.message).toContain(`Invalid name ${JSON.stringify(input)}`);
  });

  test('outside master files, escapes stay an error', () => {
    expect(nameError(() => normalizeName('\\065bc.ex.test')).message).toMatch(/escaped characters/);
  });
});

describe('name helpers', () => {
  test('isInZone', () => {
    expect(isInZone('www.example.com', 'example.com')).toBe(true);
    expect(isInZone('example.com', 'example.com')).toBe(true);
    expect(isInZone('wwwexample.com', 'example.com')).toBe(false);
    expect(isInZone('example.org', 'example.com')).toBe(false);
    expect(isInZone('anything', '')).toBe(true);
    expect(isInZone('', '')).toBe(true);
    expect(isInZone('', 'com')).toBe(false);
    expect(isInZone('com', 'example.com')).toBe(false);
    expect(isInZone('.example.com', 'example.com')).toBe(true);
  });

  test('isInZone agrees with the suffix test it replaces', () => {
    const label = fc.stringMatching(/^[a-z.]{0,4}$/);
    fc.assert(
      fc.property(label, label, (name, zone) => {
        expect(isInZone(name, zone)).toBe(zone === '' || name === zone || name.endsWith(`.${zone}`));
      }),
    );
  });

  test('wireName: lower case, no trailing dot, the root as ""', () => {
    expect(wireName('.')).toBe('');
    expect(wireName('')).toBe('');
    expect(wireName('WWW.Example.COM.')).toBe('www.example.com');
    expect(wireName('www.example.com')).toBe('www.example.com');
    // only one trailing dot goes; nothing else is checked or changed
    expect(wireName('a..')).toBe('a.');
    expect(wireName('Hmac-SHA256.')).toBe('hmac-sha256');
  });

  test('relativeName', () => {
    expect(relativeName('example.com', 'example.com')).toBe('@');
    expect(relativeName('www.sub.example.com', 'example.com')).toBe('www.sub');
    expect(relativeName('www.example.org', 'example.com')).toBe('www.example.org.');
    expect(relativeName('com', '')).toBe('com');
  });

  test('parentNames, toFqdn, splitLabels, joinLabels, isWildcardName', () => {
    expect(parentNames('a.b.example.com')).toEqual(['b.example.com', 'example.com', 'com']);
    expect(parentNames('com')).toEqual([]);
    expect(parentNames('')).toEqual([]);
    expect(toFqdn('example.com')).toBe('example.com.');
    expect(toFqdn('')).toBe('.');
    expect(splitLabels('a.b.c')).toEqual(['a', 'b', 'c']);
    expect(splitLabels('')).toEqual([]);
    expect(joinLabels(['a', 'b'])).toBe('a.b');
    expect(isWildcardName('*.example.com')).toBe(true);
    expect(isWildcardName('x*.example.com')).toBe(false);
  });
});

describe('normalizeName properties', () => {
  const label = fc.stringMatching(/^[a-z0-9_]([a-z0-9_-]{0,20}[a-z0-9_])?$/);
  const name = fc.array(label, { minLength: 1, maxLength: 5 }).map((l) => l.join('.'));

  test('idempotent, lower case, absolute form of valid names', () => {
    fc.assert(
      fc.property(name, fc.boolean(), (n, upper) => {
        const input = upper ? n.toUpperCase() : n;
        const out = normalizeName(`${input}.`);
        expect(out).toBe(n);
        expect(normalizeName(out)).toBe(out);
        expect(normalizeName(`${out}.`)).toBe(out);
      }),
    );
  });

  test('relativeName inverts normalizeName for names in the zone', () => {
    fc.assert(
      fc.property(name, name, (rel, zone) => {
        const abs = normalizeName(rel, zone, { syntax: 'master' });
        expect(isInZone(abs, zone)).toBe(true);
        expect(normalizeName(relativeName(abs, zone), zone, { syntax: 'master' })).toBe(abs);
      }),
    );
  });

  test('arbitrary input throws nothing but NameError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 80 }),
          fc.string({ unit: fc.constantFrom('a', 'Ü', '.', '-', '_', '*', '@', '\\', ' ', '0'), maxLength: 300 }),
        ),
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        (input, origin) => {
          try {
            const out = normalizeName(input, origin);
            expect(out).toMatch(/^([a-z0-9_*-]+(\.[a-z0-9_-]+)*)?$/);
            expect(out.length).toBeLessThanOrEqual(253);
          } catch (e) {
            expect(e).toBeInstanceOf(NameError);
          }
        },
      ),
      { numRuns: 600 },
    );
  });
});

describe('normalizeName with keepCase: the name as given, checked the same way', () => {
  test('letters keep their case, in the name and in the origin it is relative to', () => {
    expect(normalizeName('WwW', 'Example.COM', { syntax: 'master', keepCase: true })).toBe('WwW.Example.COM');
    expect(normalizeName('Mail.Example.com.', undefined, { keepCase: true })).toBe('Mail.Example.com');
    expect(normalizeName('@', 'Example.COM', { keepCase: true })).toBe('Example.COM');
    // api syntax: a name already inside the origin (in any case) is absolute
    expect(normalizeName('WWW.example.com', 'Example.Com', { keepCase: true })).toBe('WWW.example.com');
    // internationalised labels come out as punycode (lower case), as without keepCase
    expect(normalizeName('Bücher.Example.', undefined, { keepCase: true })).toBe('xn--bcher-kva.Example');
  });

  test('the same names are refused, with the same messages', () => {
    for (const bad of ['A B.example.', '-Ab.example.', 'a*B.example.', `${'X'.repeat(64)}.example.`]) {
      expect(() => normalizeName(bad, undefined, { keepCase: true })).toThrow(
        (() => {
          try {
            normalizeName(bad);
          } catch (e) {
            return (e as Error).message;
          }
          return 'accepted';
        })(),
      );
    }
  });

  test('property: lower-cased, the name as given is the model form', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9]([a-zA-Z0-9-]{0,20}[a-zA-Z0-9])?$/), (label) => {
        const name = `${label}.Zone.Test.`;
        expect(normalizeName(name, undefined, { keepCase: true }).toLowerCase()).toBe(normalizeName(name));
      }),
    );
  });
});
