import fc from 'fast-check';
import { tokenizeEscaped, tokenizeValue } from './presentation';

/** What tokenizing gives, or the error it throws, in comparable form. */
function outcome(tokenize: () => unknown): unknown {
  try {
    return tokenize();
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Characters that matter to the tokenizer, plus plain ones, a backslash, a control character and non-ASCII. */
const CHARS = [
  'a',
  'Z',
  '0',
  '9',
  '.',
  '-',
  ' ',
  ' ',
  '\t',
  '"',
  '"',
  '\\',
  '1',
  '\u0001',
  '\u007f',
  'é',
  '😀',
  '~',
  ';',
];

test('the fast path for plain ASCII tokenizes exactly like the general one (and defers everything else to it)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...CHARS), { maxLength: 24 }).map((a) => a.join('')),
      (text) => {
        expect(outcome(() => tokenizeValue(text, 'TXT'))).toEqual(outcome(() => tokenizeEscaped(text, 'TXT')));
      },
    ),
    { numRuns: 3000, seed: 2136 },
  );
  for (const text of ['', '   ', '""', '"a b" c', 'ab"cd"', '10 mail.example.', '"unterminated', 'a\tb', '"x"y"z"']) {
    expect(outcome(() => tokenizeValue(text, 'TXT'))).toEqual(outcome(() => tokenizeEscaped(text, 'TXT')));
  }
});
