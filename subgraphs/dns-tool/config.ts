import { z } from 'zod';
import { parseServerAddress } from '../../dns/client';
import { setting } from '../../platform/settings';
import { LdapSchema } from './config-ldap';
import { MIN_TOKEN_BITS, tokenSecretBits, tokenUser } from './tool/tokens';

/**
 * The DNS tool's settings: the `dnsTool` section of the configuration file (docs/dns-tool.md). Scripts and
 * deployments rely on these keys.
 */

const serverAddress = z.string().superRefine((text, ctx) => {
  try {
    parseServerAddress(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

const ToolZone = z.strictObject({
  updateServer: setting(serverAddress.optional(), {
    help: 'Where dynamic updates go: `host` or `host port`. Default: the embedded DNS server.',
  }),
  transferServer: setting(serverAddress.optional(), {
    help: 'Where zone transfers and queries go. Default: the update server.',
  }),
  tsigKey: setting(z.string().min(1).max(255).optional(), {
    help: 'TSIG key name (from TSIG_KEYFILE) that signs updates and transfers of this zone.',
  }),
  readOnly: setting(z.boolean().default(false), { help: 'The tool refuses changes to this zone' }),
  note: setting(z.string().max(1000).optional(), { help: 'A note shown with the zone' }),
  maintenanceNote: setting(z.string().max(1000).optional(), { help: 'A maintenance note shown with the zone' }),
  inTransfer: setting(z.boolean().optional(), {
    help: 'The zone is being transferred elsewhere (shown with the zone)',
  }),
});
export type ToolZoneSettings = z.infer<typeof ToolZone>;

const roleName = z.string().min(1).max(100);

export const DnsToolSchema = z
  .strictObject({
    apiEnabled: setting(z.boolean().default(true), {
      help: "The `/api.php` interface (the original's `$g_api_enabled`).",
    }),
    tokens: setting(
      z.array(z.string().min(8, 'a token must have at least 8 characters').max(512)).max(10_000).default([]),
      { help: 'API tokens (`USER_SECRET` form allowed: USER is shown in logs).', secret: true },
    ),
    roles: setting(z.record(roleName, z.record(z.string().min(1).max(255), z.enum(['r', 'rw']))).default({}), {
      help: 'role → zone → `r` | `rw`; `root` is built in.',
    }),
    usersRoles: setting(z.record(z.string().min(1).max(512), z.array(roleName).max(100)).default({}), {
      help: 'users and whole tokens → roles (an entry replaces the default role).',
    }),
    defaultRole: setting(roleName.nullable().default(null), { help: 'Role of users not in usersRoles (null: none).' }),
    zones: setting(z.record(z.string().min(1).max(255), ToolZone).optional(), {
      help: 'Zones the tool manages; absent: every zone of the embedded server, through its own address and key.',
    }),
    usersFile: setting(z.string().min(1).optional(), {
      help: 'File login: a users file (`user:scrypt-hash[:disabled][:role,role]` lines).',
    }),
    ldap: setting(LdapSchema.optional(), {
      help: 'Directory (LDAP) login: the user binds with their own password, optionally only members of a group.',
    }),
    trustDnsApi: setting(z.boolean().default(true), {
      help: "Accept the DNS API's JWTs (the all-in-one default: one login for both DNS domains).",
    }),
    dnsApiRoles: setting(
      z.record(z.string().min(1).max(100), z.array(roleName).max(100)).default({ admin: ['root'] }),
      { help: "DNS API role → the tool's roles, for DNS API users the usersRoles map does not list." },
    ),
    dnsApiJwksUrl: setting(z.string().url().optional(), {
      help: 'Where the DNS API publishes its public keys, when the tool runs apart from the gateway (else: the graph).',
    }),
    dnsApiUserUrl: setting(z.string().url().optional(), {
      help: "Where the tool asks the DNS API who a token's user is now (revoked? role?), with dnsApiJwksUrl; default: the `/users/me` beside the JWKS URL.",
    }),
    auditFile: setting(z.string().min(1).optional(), {
      help: 'A file the audit lines are appended to (they are always logged).',
    }),
    dnsTimeoutMs: setting(z.number().int().min(100).max(120_000).default(5000), {
      help: 'How long one DNS exchange (query, UPDATE, transfer) may take, in milliseconds.',
    }),
    sessionIdleS: setting(
      z
        .number()
        .int()
        .min(60)
        .max(86_400 * 30)
        .default(3600),
      { help: 'Idle seconds after which a session ends.' },
    ),
    maxSessionsPerUser: setting(z.number().int().min(1).max(1_000_000).default(100), {
      help: 'Sessions one user (a login name, or one API token) may hold; the next login ends its least recently used.',
    }),
    maxSessionBytes: setting(
      z
        .number()
        .int()
        .min(1024)
        .max(64 * 1024 ** 3)
        .default(64 * 1024 ** 2),
      {
        help: "Estimated bytes all sessions may hold; a login past it ends its own user's oldest sessions, or is refused.",
      },
    ),
  })
  .superRefine((tool, ctx) => {
    // A guessable token is a door left open: /api.php's throttle slows guessing, it does not make 1234 safe.
    tool.tokens.forEach((token, i) => {
      const { bits, length, alphabet } = tokenSecretBits(token);
      if (bits < MIN_TOKEN_BITS)
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', i],
          // Never the token itself: this message is printed and logged.
          message: `the token of ${tokenUser(token)} has a secret part worth about ${bits} bits (${length} characters of ${alphabet}); tokens must carry at least ${MIN_TOKEN_BITS}: make one with USER_$(openssl rand -hex 16)`,
        });
    });
    // Every role named anywhere must be defined (or be the built-in root): a typo must not silently grant nothing.
    const lists: Array<[string[], readonly string[]]> = [
      ...Object.entries(tool.usersRoles).map(([user, roles]): [string[], string[]] => [['usersRoles', user], roles]),
      ...Object.entries(tool.dnsApiRoles).map(([role, roles]): [string[], string[]] => [['dnsApiRoles', role], roles]),
    ];
    for (const [path, roles] of lists)
      for (const role of roles)
        if (role !== 'root' && !(role in tool.roles))
          ctx.addIssue({
            code: 'custom',
            path,
            message: `role ${JSON.stringify(role)} is not defined in dnsTool.roles (nor the built-in root)`,
          });
    if (tool.defaultRole !== null && tool.defaultRole !== 'root' && !(tool.defaultRole in tool.roles))
      ctx.addIssue({
        code: 'custom',
        path: ['defaultRole'],
        message: `role ${JSON.stringify(tool.defaultRole)} is not defined in dnsTool.roles (nor the built-in root)`,
      });
  });
export type DnsToolSettings = z.infer<typeof DnsToolSchema>;

/** The DNS tool's part of the configuration: the `dnsTool` section of the file (no environment variables). */
export const DnsToolConfigSchema = z.object({
  dnsTool: setting(DnsToolSchema.default(DnsToolSchema.parse({})), {
    help: 'The DNS tool (`/api.php`, the dns-tool subgraph): tokens, roles, zones, logins, sessions',
  }),
});
export type DnsToolConfig = z.infer<typeof DnsToolConfigSchema>;
