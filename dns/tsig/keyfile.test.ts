import { parseKeyFile, KeyFileError } from './keyfile';

/** BIND's key-file syntax: comments outside quotes, any base64 inside them. */
const SECRET_WITH_SLASHES = 'ab//cd+/ef//Z2hpamtsbW5vcHFyc3R1dnd4eXo=';

test('a secret holding // (a comment marker outside quotes) is read whole', () => {
  const [key] = parseKeyFile(`key "k" {\n\talgorithm hmac-sha256;\n\tsecret "${SECRET_WITH_SLASHES}";\n};\n`);
  expect(key?.secret).toEqual(Buffer.from(SECRET_WITH_SLASHES, 'base64'));
});

test('#, // and /* */ comments outside quotes are ignored, also between keys and inside a key', () => {
  const keys = parseKeyFile(
    [
      '# a comment line',
      'key "a" { // the first key',
      '  algorithm hmac-sha256; /* spans',
      '  lines */ secret "c2VjcmV0LWE="; # trailing',
      '};',
      '// another comment',
      'key b { algorithm hmac-sha512; secret "c2VjcmV0LWI="; };',
    ].join('\n'),
  );
  expect(keys.map((k) => [k.name, k.algorithm, k.secret.toString()])).toEqual([
    ['a', 'hmac-sha256', 'secret-a'],
    ['b', 'hmac-sha512', 'secret-b'],
  ]);
});

test('text that is no key is refused, naming it', () => {
  expect(() => parseKeyFile('kee "x" { algorithm hmac-sha256; secret "c2VjcmV0"; };')).toThrow(KeyFileError);
  expect(() => parseKeyFile('key "x" { algorithm hmac-sha256; };')).toThrow('key "x" has no base64 secret');
});
