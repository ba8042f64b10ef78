/**
 * RFC 1035 §5.1 master-file lexing: entries (one per line, or several lines inside parentheses), tokens separated
 * by blanks, `;` comments outside quotes, quoted strings, `\` escapes kept for the record parser.
 */

/** A zone file that cannot be used; `line` is 1-based (0 for a bad option, not a line of the file). */
export class ZoneFileError extends Error {
  override readonly name = 'ZoneFileError';
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `line ${line}: ${reason}` : reason);
  }
}

export interface LexToken {
  /** As written; a quoted string keeps its quotes. */
  text: string;
  quoted: boolean;
  line: number;
}

export interface Entry {
  /** Line where the entry starts. */
  line: number;
  /** The entry starts with a blank: the owner is the previous one. */
  blankOwner: boolean;
  /** Never empty: a line of blanks and comments is no entry. */
  tokens: [LexToken, ...LexToken[]];
}

/** An entry while its tokens are read. */
interface Pending {
  line: number;
  blankOwner: boolean;
  tokens: LexToken[];
}

function nonEmpty<T>(items: T[]): items is [T, ...T[]] {
  return items.length > 0;
}

export function lexZoneFile(text: string): Entry[] {
  const entries: Entry[] = [];
  let line = 1;
  let parenLine = 0; // line of the open '(' or 0
  let current: Pending | null = null;
  let atLineStart = true;
  let i = 0;
  const n = text.length;

  const finish = (): void => {
    if (current && nonEmpty(current.tokens))
      entries.push({ line: current.line, blankOwner: current.blankOwner, tokens: current.tokens });
    current = null;
  };
  const push = (tok: LexToken): void => {
    current ??= { line, blankOwner: false, tokens: [] };
    current.tokens.push(tok);
  };

  while (i < n) {
    const c = text[i];
    if (atLineStart && parenLine === 0) {
      finish();
      current = { line, blankOwner: c === ' ' || c === '\t', tokens: [] };
    }
    atLineStart = false;
    if (c === '\n') {
      line++;
      atLineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === ';') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (c === '(') {
      if (parenLine !== 0)
        throw new ZoneFileError(line, `nested "(": the one opened on line ${parenLine} is not closed yet`);
      parenLine = line;
      i++;
      continue;
    }
    if (c === ')') {
      if (parenLine === 0) throw new ZoneFileError(line, '")" without an opening "("');
      parenLine = 0;
      i++;
      continue;
    }
    const start = i;
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\n') break;
        if (text[i] === '\\' && i + 1 < n && text[i + 1] !== '\n') i++;
        i++;
      }
      if (i >= n || text[i] !== '"')
        throw new ZoneFileError(line, 'unterminated quoted string (a closing " is missing on this line)');
      i++;
      push({ text: text.slice(start, i), quoted: true, line });
      continue;
    }
    for (let ch = text[i]; ch !== undefined && !' \t\r\n;()"'.includes(ch); ch = text[i]) {
      if (ch === '\\') {
        if (i + 1 >= n || text[i + 1] === '\n')
          throw new ZoneFileError(line, 'a backslash at the end of a line escapes nothing');
        i++;
      }
      i++;
    }
    push({ text: text.slice(start, i), quoted: false, line });
  }
  if (parenLine !== 0) throw new ZoneFileError(parenLine, '"(" opened here is never closed');
  finish();
  return entries;
}
