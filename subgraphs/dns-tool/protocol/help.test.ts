import { ACTIONS, actionSpec } from './actions';
import { helpPage } from './help';

test('the help page: title, headings, every action in the original order with its notes and parameters', () => {
  const html = helpPage();
  expect(html).toContain('<title>API: help</title>');
  expect(html.indexOf('API documentation')).toBeLessThan(html.indexOf('Action APIs'));
  const order = [...html.matchAll(/<h3>([a-z_]+)<\/h3>/g)].map((m) => m[1]);
  expect(order).toEqual([
    'is_logged',
    'login',
    'logout',
    'login_token',
    'list_zones',
    'list_records',
    'create_record',
    'delete_record',
    'replace_record',
    'get_zone_for_fqdn',
    'get_record',
    'get_version',
  ]);
  const section = (name: string) =>
    html.slice(
      html.indexOf(`<section id="${name}">`),
      html.indexOf('</section>', html.indexOf(`<section id="${name}">`)),
    );
  expect(section('login')).toContain('This action must be called via POST method');
  expect(section('login')).not.toContain('This action requires authentication');
  expect(section('list_zones')).toContain('This action requires authentication');
  expect(section('list_zones')).toContain('This action has no parameters');
  expect(section('create_record')).toContain('<b>ttl</b> (<code>Number</code>)');
  expect(section('create_record')).toContain('Parameters (optional)');
  expect(section('get_version')).toContain('Example: <code>/api.php?action=get_version</code>');
  // What the session cookie alone may carry: changes (and logout) only POSTed from the tool's own origin.
  const cookieNote = 'With only the session cookie, this action must be POSTed from the tool&#39;s own origin';
  expect(ACTIONS.filter((a) => section(a.name).includes(cookieNote)).map((a) => a.name)).toEqual([
    'logout',
    'create_record',
    'delete_record',
    'replace_record',
  ]);
  expect(html.slice(html.indexOf('API documentation'), html.indexOf('Action APIs'))).toContain(
    'A request carried by the cookie alone is refused when a browser says it comes from another origin (Origin, Sec-Fetch-Site), and so is a login from another origin.',
  );
});

test('self-contained: no external script, style sheet, font or image', () => {
  expect(helpPage()).not.toMatch(/(src|href)=["']?(https?:)?\/\//i);
  expect(helpPage()).not.toMatch(/<script|<link/i);
});

test('the catalogue drives the rules: login and login_token are POST-only; reads and writes need a login', () => {
  expect(ACTIONS.filter((a) => a.postOnly).map((a) => a.name)).toEqual(['login', 'login_token']);
  expect(ACTIONS.filter((a) => !a.requiresLogin).map((a) => a.name)).toEqual([
    'is_logged',
    'login',
    'login_token',
    'get_zone_for_fqdn',
    'get_version',
  ]);
  expect(actionSpec('replace_record')?.required.map((p) => p.name)).toEqual(['record', 'type', 'ttl', 'new_value']);
  expect(actionSpec('nope')).toBeUndefined();
});
