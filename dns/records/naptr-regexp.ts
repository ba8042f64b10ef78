/**
 * The NAPTR regexp field (RFC 3402 §3.2), checked with the same rules BIND 9 applies when it loads a zone or
 * receives an update, so that what we accept a BIND server accepts too.
 */
import type { RecordType } from '../model';
import { RecordValueError } from './errors';

const CHAR_CLASSES = new Set([
  ':alnum:',
  ':digit:',
  ':punct:',
  ':alpha:',
  ':graph:',
  ':space:',
  ':blank:',
  ':lower:',
  ':upper:',
  ':cntrl:',
  ':print:',
  ':xdigit:',
]);

/**
 * Checks a POSIX extended regular expression (C locale) the way BIND's `isc_regex_validate` does. Returns the
 * number of groups, or a reason why it is not valid.
 */
export function validateEre(re: string): number | string {
  if (re === '') return 'the regex is empty';
  type State = 'none' | 'bracket' | 'bound' | 'ce' | 'ec' | 'cc';
  let state: State = 'none';
  let haveAtom = false;
  let wasMultiple = false;
  let emptyOk = false;
  let group = 0;
  let sub = 0;
  let neg = false;
  let seenChar = false;
  let seenComma = false;
  let seenHigh = false;
  let seenCe = false;
  let seenEc = false;
  let low = 0;
  let high = 0;
  let range = 0;
  let rangeStart = 0;
  let ccStart = 0;
  let i = 0;
  const code = (k: number): number => re.charCodeAt(k);
  for (let c = re[i]; c !== undefined; c = re[i]) {
    switch (state) {
      case 'none':
        if (c === '\\') {
          const next = re[i + 1];
          if (next === undefined) return 'it ends with an escaping "\\"';
          if (/[1-9]/.test(next) && Number(next) > sub) return `the back-reference \\${next} has no group`;
          haveAtom = true;
          wasMultiple = false;
          i += 2;
        } else if (c === '[') {
          i++;
          neg = false;
          wasMultiple = false;
          seenChar = false;
          state = 'bracket';
        } else if (c === '{' && /[0-9]/.test(re[i + 1] ?? '')) {
          if (!haveAtom) return '"{" repeats nothing';
          if (wasMultiple) return 'a repetition follows a repetition';
          seenComma = false;
          seenHigh = false;
          low = 0;
          high = 0;
          state = 'bound';
          i++;
          haveAtom = true;
          wasMultiple = true;
        } else if (c === '(') {
          haveAtom = false;
          wasMultiple = false;
          emptyOk = true;
          group++;
          sub++;
          i++;
        } else if (c === ')') {
          if (group > 0 && !haveAtom && !emptyOk) return 'an empty alternative';
          haveAtom = true;
          wasMultiple = false;
          if (group > 0) group--;
          i++;
        } else if (c === '|') {
          if (!haveAtom) return 'an empty alternative before "|"';
          haveAtom = false;
          emptyOk = false;
          wasMultiple = false;
          i++;
        } else if (c === '^' || c === '$') {
          haveAtom = true;
          wasMultiple = true;
          i++;
        } else if (c === '+' || c === '*' || c === '?') {
          if (wasMultiple) return 'a repetition follows a repetition';
          if (!haveAtom) return `"${c}" repeats nothing`;
          haveAtom = true;
          wasMultiple = true;
          i++;
        } else {
          haveAtom = true;
          wasMultiple = false;
          i++;
        }
        break;
      case 'bound':
        if (/[0-9]/.test(c)) {
          if (!seenComma) {
            low = low * 10 + Number(c);
            if (low > 255) return 'a repetition bound above 255';
          } else {
            seenHigh = true;
            high = high * 10 + Number(c);
            if (high > 255) return 'a repetition bound above 255';
          }
          i++;
        } else if (c === ',') {
          if (seenComma) return 'two commas in a repetition bound';
          seenComma = true;
          i++;
        } else if (c === '}') {
          if (seenHigh && low > high) return 'a repetition bound {m,n} with m > n';
          seenComma = false;
          state = 'none';
          i++;
        } else return 'a repetition bound with something other than digits and a comma';
        break;
      case 'bracket': {
        let inside = false;
        if (c === '^') {
          if (seenChar || neg) inside = true;
          else {
            neg = true;
            i++;
          }
        } else if (c === '-') {
          if (range === 2 || !seenChar) inside = true;
          else if (range === 1) return 'a bad range in a bracket expression';
          else {
            range = 2;
            i++;
          }
        } else if (c === '[') {
          i++;
          const n = re[i];
          if (n === '.') {
            if (range !== 0) range--;
            i++;
            state = 'ce';
            seenCe = false;
          } else if (n === '=') {
            if (range === 2) return 'an equivalence class in a range';
            i++;
            state = 'ec';
            seenEc = false;
          } else if (n === ':') {
            if (range === 2) return 'a character class in a range';
            ccStart = i;
            i++;
            state = 'cc';
          }
          seenChar = true;
        } else if (c === ']') {
          if (i + 1 >= re.length && !seenChar) return 'an unfinished bracket expression';
          if (!seenChar) inside = true;
          else {
            i++;
            range = 0;
            haveAtom = true;
            state = 'none';
          }
        } else inside = true;
        if (inside) {
          seenChar = true;
          if (range === 2 && code(i) < rangeStart) return 'a range out of order';
          if (range !== 0) range--;
          rangeStart = code(i);
          i++;
        }
        break;
      }
      case 'ce':
        if (c === '.') {
          i++;
          if (re[i] === ']') {
            if (!seenCe) return 'an empty collating element';
            i++;
            state = 'bracket';
          } else {
            rangeStart = seenCe ? 256 : 0x2e;
            seenCe = true;
          }
        } else {
          rangeStart = seenCe ? 256 : code(i);
          seenCe = true;
          i++;
        }
        break;
      case 'ec':
        if (c === '=') {
          i++;
          if (re[i] === ']') {
            if (!seenEc) return 'an empty equivalence class';
            i++;
            state = 'bracket';
          } else seenEc = true;
        } else {
          seenEc = true;
          i++;
        }
        break;
      case 'cc':
        if (c === ':') {
          i++;
          if (re[i] === ']') {
            const name = re.slice(ccStart, i);
            if (!CHAR_CLASSES.has(name)) return `an unknown character class [${name}]`;
            i++;
            state = 'bracket';
          }
        } else i++;
        break;
    }
  }
  if (group !== 0) return 'a "(" is not closed';
  if (state !== 'none') return 'an unfinished bracket expression or bound';
  if (!haveAtom) return 'it ends without anything to match';
  return sub;
}

/**
 * The regexp field: empty, or `<delim><ERE><delim><replacement><delim>[i]`; the delimiter is not a digit, "\" or
 * "i"; the ERE must be valid and the back-references \1-\9 of the replacement must exist in it.
 */
export function checkNaptrRegexp(re: string, type: RecordType): string {
  const delim = re[0];
  if (delim === undefined) return re; // empty: no regexp
  // A declaration, not an arrow: a call then narrows like a throw.
  function fail(why: string): never {
    throw new RecordValueError(
      `${type} regexp must be empty or "<delim><regex><delim><replacement><delim>[i]" like "!^.*$!sip:info@example.com!" (got ${JSON.stringify(re)}): ${why}`,
    );
  }
  if (/[0-9\\i]/.test(delim)) fail('the delimiter (first character) must not be a digit, "\\" or "i"');
  let part = 0; // 0 regex, 1 replacement, 2 flags
  let ere = '';
  let maxRef = 0;
  for (let i = 1; i < re.length; i++) {
    const c = re[i];
    if (c === delim) {
      if (part === 2) fail(`more than three ${JSON.stringify(delim)} delimiters`);
      part++;
      continue;
    }
    if (part === 2) {
      if (c !== 'i') fail(`the only flag is "i" (got ${JSON.stringify(c)})`);
      continue;
    }
    if (c === '\\') {
      const next = re[i + 1];
      if (next === undefined) fail('it ends with a lone "\\"');
      i++;
      if (part === 1 && next === '0') fail('"\\0" is not a valid back-reference');
      if (part === 1 && /[1-9]/.test(next)) maxRef = Math.max(maxRef, Number(next));
      if (part === 0) ere += c + next;
      continue;
    }
    if (part === 0) ere += c;
  }
  if (part !== 2) fail(`it needs three ${JSON.stringify(delim)} delimiters`);
  const groups = validateEre(ere);
  if (typeof groups === 'string') fail(`the regex is not valid: ${groups}`);
  else if (maxRef > groups) fail(`the replacement refers to \\${maxRef} but the regex has ${groups} group(s)`);
  return re;
}
