import { z } from 'zod';
import { setting } from '../../platform/settings';

/**
 * Directory (LDAP) login settings, the `dnsTool.ldap` section: the user binds with their own password; `userDn`
 * builds their DN directly, or a service account (`bindDn`…`searchFilter`) finds it first. With `groupDn`, only
 * members of that group may log in.
 */

/** A template with `{user}` where the (escaped) user name goes. */
const withUser = (key: string) =>
  z
    .string()
    .min(1)
    .max(1024)
    .refine((t) => t.includes('{user}'), `${key} must contain {user} where the user name goes`);

/** The keys that find the user by a search with a service account instead of a DN template. */
const SEARCH_KEYS = ['bindDn', 'bindPassword', 'searchBase', 'searchFilter'] as const;

export const LdapSchema = z
  .strictObject({
    url: setting(
      z
        .string()
        .max(2048)
        .regex(/^ldaps?:\/\/[^/?#\s]+\/?$/i, 'must be ldap://host[:port] or ldaps://host[:port]'),
      { help: 'The directory server: `ldap://host[:port]` or `ldaps://host[:port]`, nothing after the host.' },
    ),
    userDn: setting(withUser('userDn').optional(), {
      help: "Direct bind: the user's DN, e.g. `uid={user},ou=people,dc=example,dc=test` (the name is escaped, RFC 4514).",
    }),
    bindDn: setting(z.string().min(1).max(1024).optional(), {
      help: 'Search then bind: the DN of the service account that searches for the user.',
    }),
    bindPassword: setting(z.string().min(1).max(1024).optional(), {
      help: "Search then bind: the service account's password.",
      secret: true,
    }),
    searchBase: setting(z.string().min(1).max(1024).optional(), {
      help: 'Search then bind: where users are searched (the whole subtree).',
    }),
    searchFilter: setting(
      withUser('searchFilter')
        .refine((f) => f.startsWith('(') && f.endsWith(')'), 'searchFilter must be in parentheses, e.g. (uid={user})')
        .optional(),
      {
        help: 'Search then bind: a filter that finds exactly one user, e.g. `(uid={user})` (the name is escaped, RFC 4515).',
      },
    ),
    groupDn: setting(z.string().min(1).max(1024).optional(), {
      help: 'Only members of this group may log in (its `member`, `uniqueMember` or `memberUid` names the user).',
    }),
    timeoutMs: setting(z.number().int().min(100).max(120_000).default(5000), {
      help: 'Timeout in milliseconds for connecting and for each operation.',
    }),
    startTls: setting(z.boolean().default(false), {
      help: 'Upgrade an ldap:// connection with StartTLS before any password is sent.',
    }),
  })
  .superRefine((ldap, ctx) => {
    const searchSet = SEARCH_KEYS.filter((k) => ldap[k] !== undefined);
    if (ldap.userDn !== undefined && searchSet.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['userDn'],
        message: `set userDn (direct bind) or ${SEARCH_KEYS.join(', ')} (search then bind), not both`,
      });
    else if (ldap.userDn === undefined && searchSet.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['userDn'],
        message: `required, or ${SEARCH_KEYS.join(', ')} to search for the user`,
      });
    else if (ldap.userDn === undefined)
      for (const key of SEARCH_KEYS.filter((k) => ldap[k] === undefined))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `required with ${searchSet.join(', ')} (search then bind)`,
        });
    if (ldap.startTls && /^ldaps:/i.test(ldap.url))
      ctx.addIssue({
        code: 'custom',
        path: ['startTls'],
        message: 'ldaps:// is TLS already: use ldap:// with startTls',
      });
  });
export type LdapSettings = z.infer<typeof LdapSchema>;
