import { canRead, canWrite, grantOf, rightIn, type RoleSettings } from './access';

const SETTINGS: RoleSettings = {
  roles: {
    editors: { 'example.test': 'rw', '2.0.192.in-addr.arpa': 'rw' },
    readers: { 'example.test': 'r', 'other.test': 'r' },
  },
  usersRoles: { alice: ['editors'], bob: ['readers'], ops_9f2c1e: ['editors'], carol: ['readers', 'editors'] },
  defaultRole: 'readers',
};

test('roles come from the users file first, then the map, then the default role', () => {
  expect(grantOf(SETTINGS, 'alice')).toEqual({ roles: ['editors'], explicit: true });
  expect(grantOf(SETTINGS, 'alice', ['readers'])).toEqual({ roles: ['readers'], explicit: true });
  expect(grantOf(SETTINGS, 'dave')).toEqual({ roles: ['readers'], explicit: false });
  expect(grantOf({ ...SETTINGS, defaultRole: null }, 'dave')).toEqual({ roles: [], explicit: false });
  expect(grantOf(SETTINGS, 'ops_9f2c1e').roles).toEqual(['editors']); // a whole token is a key of the map
  expect(grantOf(SETTINGS, 'constructor').roles).toEqual(['readers']); // no prototype keys
});

test('a zone right is the strongest of the roles; zone names compare case-insensitively; root may do all', () => {
  expect(rightIn(SETTINGS, grantOf(SETTINGS, 'alice'), 'Example.Test.')).toBe('rw');
  expect(rightIn(SETTINGS, grantOf(SETTINGS, 'bob'), 'example.test')).toBe('r');
  expect(rightIn(SETTINGS, grantOf(SETTINGS, 'carol'), 'example.test')).toBe('rw');
  expect(rightIn(SETTINGS, grantOf(SETTINGS, 'alice'), 'other.test')).toBeNull();
  expect(canRead(SETTINGS, grantOf(SETTINGS, 'bob'), 'other.test')).toBe(true);
  expect(canWrite(SETTINGS, grantOf(SETTINGS, 'bob'), 'other.test')).toBe(false);
  expect(canWrite(SETTINGS, { roles: ['root'], explicit: true }, 'anything.test')).toBe(true);
  expect(canRead(SETTINGS, { roles: ['nonexistent'], explicit: true }, 'example.test')).toBe(false);
});
