/** The login throttle both DNS interfaces use: limits per user and address, spacing of a user's attempts. Only re-exports. */
export {
  LoginThrottle,
  THROTTLE_DEFAULTS,
  addressKey,
  type LoginAttempt,
  type ThrottleLog,
  type ThrottleOptions,
} from './throttle';
