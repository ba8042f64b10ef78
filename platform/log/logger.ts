import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

export type { Logger };

/** How log lines look: JSON lines for machines, or readable lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** `auto` (the default): readable when stdout is a terminal, JSON lines otherwise (files, pipes, collectors). */
export function resolveLogFormat(setting: 'auto' | LogFormat, isTty = Boolean(process.stdout.isTTY)): LogFormat {
  return setting === 'auto' ? (isTty ? 'pretty' : 'json') : setting;
}

/** Readable lines: time, level, message, then the fields (request ids, timings) on the same line. */
function prettyStream(): pino.DestinationStream {
  // Loaded only for a terminal: JSON lines (services, pipes) never load the formatter.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  const pretty = require('pino-pretty') as typeof PinoPretty;
  return pretty({
    colorize: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    sync: true, // lines in order with anything else written to the terminal, and none lost at exit
  });
}

/** Structured logs; credentials are redacted wherever they could appear in a logged object. */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = 'json'): Logger {
  return pino(
    {
      level,
      base: { service: 'onegraph' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          '*.password',
          '*.token',
          '*.secret',
          'password',
          'token',
          'secret',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? (format === 'pretty' ? prettyStream() : undefined),
  );
}
