/** Each role × each action class. */
import { IdentityError } from './errors';
import { ACTIONS, ROLES, authorize, can, rolesAllowed, type Action, type Role } from './roles';

const expected: Record<Role, Record<Action, boolean>> = {
  admin: { read: true, write: true, users: true, keys: true },
  operator: { read: true, write: true, users: false, keys: false },
  viewer: { read: true, write: false, users: false, keys: false },
};

describe.each(ROLES)('role %s', (role) => {
  test.each(ACTIONS)(`action %s`, (action) => {
    expect(can(role, action)).toBe(expected[role][action]);
    if (expected[role][action]) {
      expect(() => authorize({ role }, action)).not.toThrow();
    } else {
      let caught: unknown;
      try {
        authorize({ role }, action);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(IdentityError);
      expect(caught).toMatchObject({ code: 'FORBIDDEN' });
      expect((caught as IdentityError).message).toMatch(new RegExp(`^the role ${role} may not `));
    }
  });
});

test('FORBIDDEN says which roles may', () => {
  expect(() => authorize({ role: 'viewer' }, 'write')).toThrow(
    'the role viewer may not change zones, records or DNSSEC; this needs the role admin or operator',
  );
  expect(() => authorize({ role: 'operator' }, 'users')).toThrow(
    'the role operator may not manage users; this needs the role admin',
  );
  expect(rolesAllowed('read')).toEqual(['admin', 'operator', 'viewer']);
});
