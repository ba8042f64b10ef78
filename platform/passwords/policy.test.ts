/** The password policy: each rule with the password it refuses and the sentence it says. */
import { checkPassword, type CheckedPassword } from './policy';

const problem = (c: CheckedPassword) => {
  if (c.ok) throw new Error(`expected a problem, got the value ${JSON.stringify(c.value)}`);
  return c.problem;
};
const value = (c: CheckedPassword): string => {
  if (!c.ok) throw new Error(`expected a value, got: ${c.problem.message}`);
  return c.value;
};

describe('password', () => {
  test.each(['w7#kQ2!m', 'xyz'.repeat(85), 'correct horse battery staple', '🔑🚪🔒🔑🚪🔒🔑🚪'])('accepts %j', (pw) => {
    expect(value(checkPassword(pw, 'alice'))).toBe(pw);
  });

  test('counts characters, not UTF-16 units: 256 emoji pass, 7 emoji (14 units) do not', () => {
    expect(value(checkPassword('😀😃😄😁'.repeat(64), 'alice'))).toHaveLength(512);
    expect(problem(checkPassword('😀😃😄😁😀😃😄', 'alice')).message).toBe(
      'password must be 8 to 256 characters long (got 7)',
    );
  });

  test.each([
    ['12345678', 'password is one of the 49,233 most common passwords, which attackers try first; choose another'],
    ['password', 'password is one of the 49,233 most common passwords, which attackers try first; choose another'],
    ['Password1', 'password is one of the 49,233 most common passwords, which attackers try first; choose another'],
    ['  qwertyuiop ', 'password is one of the 49,233 most common passwords, which attackers try first; choose another'],
    ['aaaaaaaa', 'password must have at least 3 different characters (it is too easy to guess)'],
    ['abababab', 'password must have at least 3 different characters (it is too easy to guess)'],
    ['AaAaAaAa', 'password must have at least 3 different characters (it is too easy to guess)'],
    ['        ', 'password must not be only white space'],
    ['\t\t \n    ', 'password must not be only white space'],
  ])('refuses the weak password %j, saying why', (pw, message) => {
    expect(problem(checkPassword(pw, 'alice'))).toEqual({ field: 'password', message });
  });

  test('is normalised to NFC (the same password typed as composed or decomposed characters)', () => {
    expect(value(checkPassword('cafe\u0301-latte', 'alice'))).toBe('caf\u00e9-latte');
  });

  test.each([
    ['', 'password must be 8 to 256 characters long (got 0)'],
    ['1234567', 'password must be 8 to 256 characters long (got 7)'],
    ['x'.repeat(257), 'password must be 8 to 256 characters long (got 257)'],
    ['x'.repeat(1_000_000), 'password must be 8 to 256 characters long (got 1000000)'],
  ])('refuses %j by length', (pw, message) => {
    expect(problem(checkPassword(pw, 'alice'))).toEqual({ field: 'password', message });
  });

  test.each([
    ['alice.smith', 'alice.smith'],
    ['Alice.Smith', 'alice.smith'],
    [' alice.smith ', 'alice.smith'],
  ])('refuses the username as password (%j for %j)', (pw, username) => {
    expect(problem(checkPassword(pw, username))).toEqual({
      field: 'password',
      message: 'password must not be the username',
    });
  });

  test('refuses a non-string and names the field given', () => {
    expect(problem(checkPassword(12345678, 'alice', 'newPassword'))).toEqual({
      field: 'newPassword',
      message: 'newPassword must be a string',
    });
  });
});
