import { parse as parseYaml } from 'yaml';
import { ConfigError, parseSettings } from '../../platform/settings';
import { DnsToolConfigSchema } from './config';

/** The DNS tool's section as a configuration file holds it, validated the way the gateway validates it. */
function load(yaml: string) {
  return parseSettings(DnsToolConfigSchema, parseYaml(yaml) ?? {});
}

const ISSUE_EXAMPLE = `
dnsTool:
  tokens: ["ops_9f2c1e0a4b3c2d1e0f9a8b7c6d5e4f3a"]
  roles: { editors: { "example.test": rw, "2.0.192.in-addr.arpa": rw } }
  usersRoles: { alice: [editors], "ops_9f2c1e0a4b3c2d1e0f9a8b7c6d5e4f3a": [editors] }
  defaultRole: null
  zones:
    "example.test": { updateServer: "127.0.0.1 5353", transferServer: "127.0.0.1 5353", tsigKey: tool, readOnly: false, note: "…" }
`;

test('the issue example is read as written; defaults fill the rest', () => {
  const { dnsTool } = load(ISSUE_EXAMPLE);
  expect(dnsTool).toEqual({
    apiEnabled: true,
    tokens: ['ops_9f2c1e0a4b3c2d1e0f9a8b7c6d5e4f3a'],
    roles: { editors: { 'example.test': 'rw', '2.0.192.in-addr.arpa': 'rw' } },
    usersRoles: { alice: ['editors'], ops_9f2c1e0a4b3c2d1e0f9a8b7c6d5e4f3a: ['editors'] },
    defaultRole: null,
    zones: {
      'example.test': {
        updateServer: '127.0.0.1 5353',
        transferServer: '127.0.0.1 5353',
        tsigKey: 'tool',
        readOnly: false,
        note: '…',
      },
    },
    trustDnsApi: true,
    dnsApiRoles: { admin: ['root'] },
    dnsTimeoutMs: 5000,
    sessionIdleS: 3600,
    maxSessionsPerUser: 100,
    maxSessionBytes: 64 * 1024 * 1024,
  });
});

test('without a dnsTool section: no tokens, no roles, every embedded zone (zones absent)', () => {
  const { dnsTool } = load('');
  expect(dnsTool).toMatchObject({ tokens: [], roles: {}, usersRoles: {}, defaultRole: null });
  expect(dnsTool.zones).toBeUndefined();
});

test.each([
  ['usersRoles: { bob: [nosuch] }', /dnsTool\.usersRoles\.bob: role "nosuch" is not defined in dnsTool\.roles/],
  ['defaultRole: ghosts', /dnsTool\.defaultRole: role "ghosts" is not defined/],
  ['roles: { r1: { "example.test": write } }', /dnsTool\.roles\.r1\.example\.test must be one of: r, rw/],
  ['tokens: ["short"]', /dnsTool\.tokens\.0: a token must have at least 8 characters/],
  [
    'tokens: ["weak_1234"]',
    /dnsTool\.tokens\.0: the token of weak has a secret part worth about 8 bits \(4 characters of 0-9\); tokens must carry at least 128: make one with USER_\$\(openssl rand -hex 16\)/,
  ],
  [
    'tokens: ["ops_0123456789abcdef0123456789abcdef", "ops_9f2c1e0a"]',
    /dnsTool\.tokens\.1: the token of ops has a secret part worth about 32 bits \(8 characters of 0-9a-f\)/,
  ],
  [
    'tokens: ["root_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]',
    /dnsTool\.tokens\.0: the token of root .* about 0 bits/,
  ],
  [
    'zones: { "x.test": { updateServer: "dns.example.com" } }',
    /dnsTool\.zones\.x\.test\.updateServer: .*IPv4 or IPv6 address/,
  ],
  [
    'zones: { "x.test": { updateServer: "127.0.0.1 99999" } }',
    /dnsTool\.zones\.x\.test\.updateServer: .*port must be from 1 to 65535/,
  ],
  ['zones: { "x.test": { readonly: true } }', /dnsTool\.zones\.x\.test: unknown key\(s\) readonly/],
  ['sessionIdleS: 5', /dnsTool\.sessionIdleS/],
  ['dnsTimeoutMs: 10', /dnsTool\.dnsTimeoutMs/],
  ['maxSessionsPerUser: 0', /dnsTool\.maxSessionsPerUser/],
  ['maxSessionBytes: 100', /dnsTool\.maxSessionBytes/],
  ['dnsApiJwksUrl: not a url', /dnsTool\.dnsApiJwksUrl/],
  ['dnsApiRoles: { admin: [nosuchrole] }', /dnsTool\.dnsApiRoles\.admin: role "nosuchrole" is not defined/],
  ['tokenz: []', /dnsTool: unknown key\(s\) tokenz/],
])('dnsTool { %s } is refused naming the key', (body, message) => {
  const file = `dnsTool:\n  ${body}\n`;
  expect(() => load(file)).toThrow(ConfigError);
  expect(() => load(file)).toThrow(message);
});
