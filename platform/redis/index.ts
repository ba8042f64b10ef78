export {
  REDIS_TIMEOUT_DEFAULTS,
  RedisLink,
  RedisTimeoutError,
  RedisUnavailableError,
  bounded,
  type RedisLinkHealth,
  type RedisLinkLogger,
  type RedisLinkOptions,
} from './redis-link';
