// @needs php
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { phpPrettyJson, type PhpJson } from './php-json';

/**
 * Our encoder against PHP's own json_encode(…, JSON_PRETTY_PRINT) (Debian's php-cli): PHP decodes each value
 * from plain JSON (objects stay objects, lists stay lists) and encodes it again; the bytes must be ours.
 */
function phpEncodeAll(values: readonly PhpJson[]): string[] {
  const script =
    '$in = json_decode(stream_get_contents(STDIN), false, 512, JSON_THROW_ON_ERROR);' +
    'foreach ($in as $v) { echo base64_encode(json_encode($v, JSON_PRETTY_PRINT)), "\\n"; }';
  const out = execFileSync('php', ['-r', script], { input: JSON.stringify(values), encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .map((line) => Buffer.from(line, 'base64').toString('utf8'));
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('a/b', '"\\"quoted\\" \\"twice\\""', 'caf\u00e9', '\u007f\u0000\u001f', '\ud83d\ude00'),
);
const value: fc.Arbitrary<PhpJson> = fc.letrec<{ v: PhpJson }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(text, tie('v'), { maxKeys: 4 }),
  ),
})).v;

test('byte for byte what PHP writes, for generated values', () => {
  const samples = fc.sample(value, { numRuns: 300 });
  const php = phpEncodeAll(samples);
  expect(php).toHaveLength(samples.length);
  samples.forEach((sample, i) => expect(phpPrettyJson(sample)).toBe(php[i]));
});
