import { passwordLine, PasswordInputError } from './read-password';

test.each([
  ['pw', 'pw'],
  ['pw\n', 'pw'],
  ['pw\r\n', 'pw'],
  [' with spaces \n', ' with spaces '],
  ['pw\n\n', 'pw'],
])('the password line of %j is %j', (input, password) => {
  expect(passwordLine(input)).toBe(password);
});

test.each([
  ['', /empty password refused/],
  ['\n', /empty password refused/],
  ['pw\nmore\n', /one line and nothing else/],
  ['\npw\n', /one line and nothing else/],
])('%j is refused', (input, message) => {
  expect(() => passwordLine(input)).toThrow(PasswordInputError);
  expect(() => passwordLine(input)).toThrow(message);
});
