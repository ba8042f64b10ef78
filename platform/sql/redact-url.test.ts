import { redactUrl } from './postgres';

test.each([
  ['postgres://u:SECRET@db:5432/zones', 'postgres://u:***@db:5432/zones'],
  ['postgres://u@db/zones?password=SECRET', 'postgres://u@db/zones?password=***'],
  [
    'postgresql://db/zones?sslmode=require&sslpassword=SECRET&application_name=x',
    'postgresql://db/zones?sslmode=require&sslpassword=***&application_name=x',
  ],
  ['postgres://u:SECRET@db/zones?PASSWORD=SECRET2', 'postgres://u:***@db/zones?PASSWORD=***'],
  ['postgres://db/zones', 'postgres://db/zones'],
])('redactUrl(%s) masks every credential form', (url, expected) => {
  expect(redactUrl(url)).toBe(expected);
  expect(redactUrl(url)).not.toContain('SECRET');
});

test('an unparseable URL is not echoed at all', () => {
  expect(redactUrl('postgres://u:SECRET@[bad')).toBe('(unparseable database URL)');
});
