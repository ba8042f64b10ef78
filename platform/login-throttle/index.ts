/** The login throttle both DNS interfaces use: limits per user and address, spacing of a user's attempts. Only re-exports. */
export {
  LoginThrottle,
  addressKey,
  type LoginAttempt,
  type ThrottleDeps,
  type ThrottleLog,
  type ThrottleRefusal,
} from './throttle';
export {
  THROTTLE_DEFAULTS,
  type LedgerFactory,
  type ThrottleLedger,
  type ThrottleOptions,
  type TrackedKeys,
} from './ledger';
export { memoryLedger } from './memory-ledger';
export { redisLedger, type RedisLedgerOptions } from './redis-ledger';
