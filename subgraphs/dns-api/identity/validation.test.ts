/** Every input rule of users, each with the bad value and the error it gets. */
import { invalidFields } from './errors';
import { checkBoolean, checkEmail, checkRole, checkUsername, isUuid, type Checked } from './validation';

const problem = <T>(c: Checked<T>) => {
  if (c.ok) throw new Error(`expected a problem, got the value ${JSON.stringify(c.value)}`);
  return c.problem;
};
const value = <T>(c: Checked<T>): T => {
  if (!c.ok) throw new Error(`expected a value, got: ${c.problem.message}`);
  return c.value;
};

describe('username', () => {
  test.each(['alice', 'a', 'bob.smith', 'x_y-z', '0', 'a'.repeat(64)])('accepts %j', (name) => {
    expect(value(checkUsername(name))).toBe(name);
  });

  test('is lower-cased (usernames are case-insensitive)', () => {
    expect(value(checkUsername('Alice.Smith'))).toBe('alice.smith');
  });

  test.each([
    ['', /username must be 1 to 64 characters long \(got 0\)/],
    ['a'.repeat(65), /username must be 1 to 64 characters long \(got 65\)/],
    ['alice smith', /may contain only letters a-z, digits, '\.', '_' and '-'/],
    ['alice@example', /may contain only letters/],
    ['ålice', /may contain only letters/],
    ['\u212Aen', /may contain only letters/], // Kelvin sign: lower-cases to "k"
    ['name\n', /may contain only letters/],
  ])('refuses %j', (name, message) => {
    expect(problem(checkUsername(name))).toEqual({ field: 'username', message: expect.stringMatching(message) });
  });

  test.each([undefined, null, 42, ['alice']])('refuses the non-string %j', (v) => {
    expect(problem(checkUsername(v))).toEqual({ field: 'username', message: 'username must be a string' });
  });
});

describe('email', () => {
  test.each(['a@example.com', 'first.last+tag@sub.example.org', 'admin@localhost', "o'neil@example.ie"])(
    'accepts %j',
    (email) => {
      expect(value(checkEmail(email))).toBe(email);
    },
  );

  test('lower-cases the domain only', () => {
    expect(value(checkEmail('Ann.Lee@Example.COM'))).toBe('Ann.Lee@example.com');
  });

  test('accepts exactly 254 characters', () => {
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(email).toHaveLength(254);
    expect(value(checkEmail(email))).toBe(email);
  });

  test.each([
    ['', /email must be 1 to 254 characters long \(got 0\)/],
    [`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, /1 to 254 characters long \(got 255\)/],
    ['no-at-sign', /email must be an address like name@example\.com/],
    ['@example.com', /must be an address like/],
    ['user@', /must be an address like/],
    ['two@@example.com', /must be an address like/],
    ['a b@example.com', /must be an address like/],
    ['.lead@example.com', /must be an address like/],
    ['trail.@example.com', /must be an address like/],
    ['dou..ble@example.com', /must be an address like/],
    [`${'a'.repeat(65)}@example.com`, /must be an address like/],
    ['user@-example.com', /must be an address like/],
    ['user@example-.com', /must be an address like/],
    ['user@exa_mple.com', /must be an address like/],
    ['user@example..com', /must be an address like/],
    [`user@${'a'.repeat(64)}.com`, /must be an address like/],
    ['user@[127.0.0.1]', /must be an address like/],
    ['"quoted"@example.com', /must be an address like/],
    ['user@example.com\n', /must be an address like/],
  ])('refuses %j', (email, message) => {
    expect(problem(checkEmail(email))).toEqual({ field: 'email', message: expect.stringMatching(message) });
  });

  test('refuses a non-string', () => {
    expect(problem(checkEmail(7))).toEqual({ field: 'email', message: 'email must be a string' });
  });
});

describe('role', () => {
  test.each(['admin', 'operator', 'viewer'])('accepts %j', (role) => {
    expect(value(checkRole(role))).toBe(role);
  });

  test.each(['Admin', 'root', '', undefined, 1])('refuses %j', (role) => {
    expect(problem(checkRole(role))).toEqual({ field: 'role', message: 'role must be one of admin, operator, viewer' });
  });
});

test('disabled must be a boolean', () => {
  expect(value(checkBoolean(false, 'disabled'))).toBe(false);
  expect(problem(checkBoolean('true', 'disabled'))).toEqual({
    field: 'disabled',
    message: 'disabled must be true or false',
  });
});

test('isUuid', () => {
  expect(isUuid('3f2504e0-4f89-41d3-9a0c-0305e82c3301')).toBe(true);
  expect(isUuid('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toBe(true);
  expect(isUuid('3f2504e0-4f89-41d3-9a0c-0305e82c330')).toBe(false);
  expect(isUuid("' OR 1=1 --")).toBe(false);
});

test('several invalid fields: the error names the first and lists them all', () => {
  const err = invalidFields([
    { field: 'username', message: 'username must be a string' },
    { field: 'email', message: 'email must be a string' },
  ]);
  expect(err).toMatchObject({
    code: 'INVALID',
    field: 'username',
    message: 'username must be a string (and 1 more invalid field(s))',
    errors: [
      { field: 'username', message: 'username must be a string' },
      { field: 'email', message: 'email must be a string' },
    ],
  });
});
