export {
  REDIS_TIMEOUT_DEFAULTS,
  RedisLink,
  RedisTimeoutError,
  RedisUnavailableError,
  bounded,
  redisKey,
  type RedisLinkHealth,
  type RedisLinkLogger,
  type RedisLinkOptions,
} from './redis-link';
