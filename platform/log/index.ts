export { createLogger, resolveLogFormat, type LogFormat, type Logger } from './logger';
