import { requestOrigin, requestScheme } from './cross-site';

describe('requestOrigin: what a browser says of where a request comes from', () => {
  const host = '127.0.0.1:4000';

  test('neither Origin nor Sec-Fetch-Site: no browser (curl, Ansible, scripts)', () => {
    expect(requestOrigin({ host }, 'http')).toBe('no-browser');
  });

  test.each([
    ['same-origin', { 'sec-fetch-site': 'same-origin' }],
    ['the user typed the URL (none)', { 'sec-fetch-site': 'none' }],
    ['our own Origin', { origin: 'http://127.0.0.1:4000' }],
    ['our own Origin with same-origin', { origin: 'http://127.0.0.1:4000', 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site in capitals', { 'sec-fetch-site': 'Same-Origin' }],
  ])('own: %s', (_label, headers) => {
    expect(requestOrigin({ host, ...headers }, 'http')).toBe('own');
  });

  test.each([
    ['cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['same-site (another port or subdomain)', { 'sec-fetch-site': 'same-site' }],
    ['a value we do not know', { 'sec-fetch-site': 'same-universe' }],
    ['another port', { origin: 'http://127.0.0.1:4001' }],
    ['another scheme', { origin: 'https://127.0.0.1:4000' }],
    ['another host', { origin: 'http://evil.example' }],
    ['Origin: null', { origin: 'null' }],
    ['an Origin that is no URL', { origin: 'not an origin' }],
    ['our Origin but Sec-Fetch-Site cross-site', { origin: 'http://127.0.0.1:4000', 'sec-fetch-site': 'cross-site' }],
  ])('foreign: %s', (_label, headers) => {
    expect(requestOrigin({ host, ...headers }, 'http')).toBe('foreign');
  });

  test('origins compare as browsers serialize them: default ports left out, host names in any case', () => {
    expect(requestOrigin({ host: 'DNS.Example.TEST:80', origin: 'http://dns.example.test' }, 'http')).toBe('own');
    expect(requestOrigin({ host: 'dns.example.test', origin: 'https://dns.example.test:443' }, 'https')).toBe('own');
    expect(requestOrigin({ host: '[::1]:4000', origin: 'http://[::1]:4000' }, 'http')).toBe('own');
  });

  test('an Origin without a Host header to compare with is foreign', () => {
    expect(requestOrigin({ origin: 'http://127.0.0.1:4000' }, 'http')).toBe('foreign');
  });
});

describe('requestScheme', () => {
  test('https over TLS, or when the proxy in front says so; http otherwise', () => {
    expect(requestScheme(true, undefined)).toBe('https');
    expect(requestScheme(false, undefined)).toBe('http');
    expect(requestScheme(false, 'https')).toBe('https');
    expect(requestScheme(false, 'HTTPS')).toBe('https');
    expect(requestScheme(false, 'https, http')).toBe('https');
    expect(requestScheme(false, 'http')).toBe('http');
    expect(requestScheme(false, ['http', 'https'])).toBe('http');
  });
});
