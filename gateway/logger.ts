import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs; credentials are redacted wherever they could appear in a logged object. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
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
    destination,
  );
}
