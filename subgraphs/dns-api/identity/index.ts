/**
 * The DNS API's identity library: users, roles, password login, EdDSA JWTs and their JWKS. The dns-api subgraph
 * opens the user store beside the zone store, builds one Identity, calls ensureAdmin at start and authenticate
 * on every call; resolvers check `authorize(caller, action)`.
 */
export {
  BOOTSTRAP_USERNAME,
  BootstrapResult,
  IDENTITY_DEFAULTS,
  Identity,
  IssuedToken,
  MAX_AUTHORIZATION_LENGTH,
  type Caller,
  type IdentityOptions,
  type NewUserInput,
  type UserUpdateInput,
} from './identity';
export { IdentityError, type AuthFailure, type FieldProblem, type IdentityErrorCode } from './errors';
export {
  sealContext as signingKeySealContext,
  TOKEN_ALGORITHM,
  type Jwks,
  type KeySealer,
  type PublicJwk,
  type Rotation,
  type SigningKeyInfo,
} from './keys';
export { ACTIONS, ROLES, authorize, can, isRole, rolesAllowed, type Action, type Role } from './roles';
export type { IdentityLog } from './log';
export { EMAIL_MAX, USERNAME_MAX } from './validation';
export { resetPassword, userToReset } from './reset';
export { openUserStore, openSqliteUserStore, type OpenUserStoreOptions, type SqliteUserStoreOptions } from './store';
export type { PostgresUserStoreOptions } from './store';
export type { User, UserStore } from './store/types';
