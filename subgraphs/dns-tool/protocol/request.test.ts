import { ToolRequest } from './request';

describe('an /api.php request', () => {
  test('the action: query string first, case-insensitive; in the query string it counts as a GET even when POSTed', () => {
    expect(new ToolRequest('GET', { action: 'List_Zones' }, {})).toMatchObject({ action: 'list_zones', isPost: false });
    expect(new ToolRequest('POST', {}, { action: 'LOGIN' })).toMatchObject({ action: 'login', isPost: true });
    expect(new ToolRequest('POST', { action: 'login' }, { action: 'logout' })).toMatchObject({
      action: 'login',
      isPost: false,
    });
    expect(new ToolRequest('GET', {}, {}).action).toBeUndefined();
    expect(new ToolRequest('GET', { action: '' }, {}).action).toBeUndefined();
  });

  test('parameters: query string before the body; a repeated name keeps its last value', () => {
    const r = new ToolRequest('POST', { zone: 'a.test', record: ['x', 'y'] }, { zone: 'b.test', ttl: '60' });
    expect(r.required('zone')).toBe('a.test');
    expect(r.required('record')).toBe('y');
    expect(r.required('ttl')).toBe('60');
    expect(r.optional('value')).toBeUndefined();
  });

  test('secrets come from the body only, never from the URL', () => {
    const r = new ToolRequest('POST', { token: 'from-url', loginPassword: 'from-url' }, { loginUsername: 'alice' });
    expect(r.optional('token')).toBeUndefined();
    expect(r.optional('loginPassword')).toBeUndefined();
    expect(r.required('loginUsername')).toBe('alice');
    expect(() => r.required('token')).toThrow(expect.objectContaining({ error: 'Missing parameter: token' }));
  });

  test.each([
    [{ zone: '' }, 'zone', 'Missing parameter: zone', 'This parameter is required'],
    [{}, 'record', 'Missing parameter: record', 'This parameter is required'],
    [
      { value: 'a\nb' },
      'value',
      'Newline not allowed',
      'Parameter values must not contain newlines for safety reasons',
    ],
    [
      { value: 'a\rb' },
      'value',
      'Newline not allowed',
      'Parameter values must not contain newlines for safety reasons',
    ],
  ])('%p asked for %s: %s', (query, name, error, message) => {
    expect(() => new ToolRequest('GET', query, {}).required(name)).toThrow(
      expect.objectContaining({ error, message, code: -1 }),
    );
  });
});
