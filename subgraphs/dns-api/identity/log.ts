/** Where the identity library reports what an operator should see (key rotations, failed logins); never a secret. */
export interface IdentityLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}
