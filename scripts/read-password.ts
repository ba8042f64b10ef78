/** Reads a new password for a command: from a terminal without echo (asked twice), else one line of standard input. */

export class PasswordInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasswordInputError';
  }
}

/** More than this on standard input is not a password line. */
const MAX_INPUT_BYTES = 64 * 1024;

export async function readNewPassword(input: NodeJS.ReadStream, prompt: string): Promise<string> {
  if (input.isTTY) {
    const first = await promptHidden(input, prompt);
    if (first === '') throw new PasswordInputError('empty password refused');
    if ((await promptHidden(input, 'Again: ')) !== first) throw new PasswordInputError('the two passwords differ');
    return first;
  }
  return passwordLine(await readAll(input));
}

/** The one line of piped input (its line break, LF or CRLF, is not part of it); empty or several lines: refused. */
export function passwordLine(text: string): string {
  const [first = '', ...rest] = text.split('\n');
  if (rest.some((line) => line.replace(/\r$/, '') !== ''))
    throw new PasswordInputError('standard input must hold the password on one line and nothing else');
  const password = first.replace(/\r$/, '');
  if (password === '') throw new PasswordInputError('empty password refused (standard input held no password)');
  return password;
}

async function readAll(input: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new PasswordInputError('standard input is too long for a password line');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A prompt on stderr, the answer typed in raw mode so nothing echoes; Enter ends it, Ctrl-C cancels. */
function promptHidden(input: NodeJS.ReadStream, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    process.stderr.write(prompt);
    let value = '';
    const finish = (err?: Error): void => {
      input.removeListener('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string): void => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new PasswordInputError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
  });
}
