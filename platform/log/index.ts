/** Structured logs (pino) with credentials redacted. Only re-exports. */
export { createLogger, resolveLogFormat, type LogFormat, type Logger } from './logger';
