export {
  DEFAULT_SCRYPT,
  checkScryptParams,
  hashPassword,
  needsRehash,
  verifyPassword,
  type ScryptParams,
} from './hashing';
export { PASSWORD_MAX, PASSWORD_MIN, PASSWORD_MIN_DISTINCT, checkPassword, type CheckedPassword } from './policy';
