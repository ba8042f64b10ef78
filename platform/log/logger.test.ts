import { Writable } from 'node:stream';
import { createLogger, resolveLogFormat } from './logger';

test('auto is readable on a terminal and JSON lines anywhere else; an explicit format wins', () => {
  expect(resolveLogFormat('auto', true)).toBe('pretty');
  expect(resolveLogFormat('auto', false)).toBe('json');
  expect(resolveLogFormat('json', true)).toBe('json');
  expect(resolveLogFormat('pretty', false)).toBe('pretty');
});

test('credentials are redacted in what is logged', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger('info', sink);
  log.info(
    { headers: { authorization: 'Bearer abc.def', cookie: 'sid=1' }, user: { password: 'hunter2' }, token: 't0k' },
    'x',
  );
  expect(lines.join('')).not.toMatch(/abc\.def|sid=1|hunter2|t0k/);
  expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ headers: { authorization: '[redacted]' }, token: '[redacted]' });
});
