/**
 * A user's password set from the machine's side, without the API: for an operator locked out (the first admin's
 * password printed once and lost, ADMIN_PASSWORD given after users exist). Run by `npm run dns-api-admin`.
 */
import { checkPassword, hashPassword } from '../../../platform/passwords';
import { IdentityError, invalid } from './errors';
import type { StoredUser, UserStore } from './store/types';

/** The user a reset is for, or NOT_FOUND naming the admins there are (or that there is no user yet). */
export async function userToReset(store: UserStore, username: string): Promise<StoredUser> {
  const user = await store.getUserByUsername(username);
  if (user) return user;
  const admins = (await store.listUsers()).filter((u) => u.role === 'admin').map((u) => u.username);
  throw new IdentityError(
    'NOT_FOUND',
    admins.length > 0
      ? `no user ${username}; the admins are: ${admins.join(', ')}`
      : `no user ${username}: this store has no user yet (the first start creates admin, with ADMIN_PASSWORD)`,
  );
}

/**
 * Sets `user`'s password (the same policy as every other password: not weak, not the user name) and ends every token
 * it holds, as a password change through the API does.
 */
export async function resetPassword(
  store: UserStore,
  user: StoredUser,
  password: string,
  now: Date = new Date(),
): Promise<StoredUser> {
  const checked = checkPassword(password, user.username);
  if (!checked.ok) throw invalid(checked.problem.field, checked.problem.message);
  const updated = await store.updateUser(user.id, {
    passwordHash: await hashPassword(checked.value),
    bumpTokenVersion: true,
    updatedAt: now.toISOString(),
  });
  if (!updated) throw new IdentityError('NOT_FOUND', `user ${user.username} was removed meanwhile`);
  return updated;
}
