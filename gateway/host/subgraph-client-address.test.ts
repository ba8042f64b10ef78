import { loadConfig } from './config/load';
import { LOOPBACK_PROXIES } from './config/schema';
import { clientAddressOf } from './subgraph-server';

test('a subgraph believes X-Forwarded-For only from a trusted peer (the gateway), else uses the peer address', () => {
  expect(clientAddressOf('127.0.0.1', '203.0.113.7, 10.0.0.1', LOOPBACK_PROXIES)).toBe('203.0.113.7');
  expect(clientAddressOf('::1', ['198.51.100.2'], LOOPBACK_PROXIES)).toBe('198.51.100.2');
  // a client reaching the subgraph directly cannot pick its address (e.g. to dodge the login throttle)
  expect(clientAddressOf('192.0.2.50', '203.0.113.7', LOOPBACK_PROXIES)).toBe('192.0.2.50');
  expect(clientAddressOf('127.0.0.1', undefined, LOOPBACK_PROXIES)).toBe('127.0.0.1');
  expect(clientAddressOf('127.0.0.1', '', LOOPBACK_PROXIES)).toBe('127.0.0.1');
  expect(clientAddressOf('10.1.2.3', '203.0.113.9', ['10.1.2.3'])).toBe('203.0.113.9');
});

test('SUBGRAPH_TRUSTED_PROXIES lists the gateway addresses; loopback by default; a bad address is named', () => {
  expect(loadConfig({ env: {} }).subgraphTrustedProxies).toEqual(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
  expect(loadConfig({ env: { SUBGRAPH_TRUSTED_PROXIES: '10.0.0.5, fd00::5' } }).subgraphTrustedProxies).toEqual([
    '10.0.0.5',
    'fd00::5',
  ]);
  expect(() => loadConfig({ env: { SUBGRAPH_TRUSTED_PROXIES: 'gateway.internal' } })).toThrow(
    /SUBGRAPH_TRUSTED_PROXIES/,
  );
});
