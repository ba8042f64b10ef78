import { z } from 'zod';
import { isIP } from 'node:net';
import { commaList, setting, textBool } from '../../platform/settings';
import { parseServerAddress } from '../../dns/client';

/** The DNS API's keys of the configuration: its first admin, tokens, login throttle (the DNS tool applies the same), batches, the cap on whole-zone reads, new zones' name servers and DNSSEC timings (seconds; RFC 7583 names in brackets). */
/** A signature time in seconds (jitter, refresh, pre-refresh): up to a year; unset: its share of the validity. */
const optionalSignatureSeconds = () =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(366 * 86_400)
    .optional();

export const DnsApiConfigSchema = z.object({
  adminPassword: setting(z.string().min(8).max(256).optional(), {
    env: 'ADMIN_PASSWORD',
    help:
      "DNS API: the `admin` user's password on first start (unset: a random one, printed once); ignored once users " +
      'exist (`npm run dns-api-admin -- reset-password` sets one). No flag: a command line is visible to every local user.',
    secret: true,
  }),
  dnsApiTokenTtl: setting(z.coerce.number().int().min(60).max(31_536_000).default(3_600), {
    env: 'DNS_API_TOKEN_TTL',
    help: 'Lifetime of DNS API tokens (seconds).',
  }),
  dnsApiSigningKeyLifetime: setting(
    z.coerce
      .number()
      .int()
      .refine((v) => v === 0 || (v >= 3_600 && v <= 315_360_000), 'must be 0 or 3600 to 315360000 seconds')
      .default(7_776_000),
    {
      env: 'DNS_API_SIGNING_KEY_LIFETIME',
      help: 'Seconds a token signing key signs before a new one takes over (the old one verifies until its tokens expire); 0: only on request.',
    },
  ),
  dnsApiIssuer: setting(z.string().min(1).max(200).default('onegraph-dns-api'), {
    env: 'DNS_API_ISSUER',
    help: 'Issuer (`iss`) of DNS API tokens.',
  }),
  dnsApiAudience: setting(z.string().min(1).max(200).default('onegraph'), {
    env: 'DNS_API_AUDIENCE',
    help: 'Audience (`aud`) of DNS API tokens.',
  }),
  dnsApiLoginFailuresPerUser: setting(z.coerce.number().int().min(1).max(1_000).default(5), {
    env: 'DNS_API_LOGIN_FAILURES_PER_USER',
    help: 'Login throttle (DNS API and DNS tool): failed logins per user name within the window.',
  }),
  dnsApiLoginFailuresPerAddress: setting(z.coerce.number().int().min(1).max(100_000).default(20), {
    env: 'DNS_API_LOGIN_FAILURES_PER_ADDRESS',
    help: 'Login throttle: failed logins per client address within the window.',
  }),
  dnsApiLoginWindowS: setting(z.coerce.number().int().min(1).max(86_400).default(900), {
    env: 'DNS_API_LOGIN_WINDOW_S',
    help: 'Login throttle: the window failed logins are counted in (seconds).',
  }),
  dnsApiMaxBatch: setting(z.coerce.number().int().min(1).max(100_000).default(1_000), {
    env: 'DNS_API_MAX_BATCH',
    help: 'DNS API: most operations in one batch (413 beyond).',
  }),
  dnsApiWholeZoneReads: setting(z.coerce.number().int().min(1).max(1_000).default(4), {
    env: 'DNS_API_WHOLE_ZONE_READS',
    help: 'DNS API: whole-zone reads (listings without limit, exports, GraphQL zoneFile) running at once in this process.',
  }),
  dnsApiWholeZoneQueue: setting(z.coerce.number().int().min(0).max(100_000).default(32), {
    env: 'DNS_API_WHOLE_ZONE_QUEUE',
    help: 'DNS API: whole-zone reads waiting for one of DNS_API_WHOLE_ZONE_READS; beyond: 503 with Retry-After (GraphQL: BUSY).',
  }),
  dnsApiNameservers: setting(
    commaList(
      z.array(
        z
          .string()
          .regex(
            /^(?=.{1,253}\.?$)([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.)*[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.?$/,
            'must be domain names, comma-separated',
          ),
      ),
    ).default([]),
    {
      env: 'DNS_API_NAMESERVERS',
      help: 'DNS API: NS records of a new zone (absolute names, comma-separated); empty: ns1.<zone>.',
    },
  ),
  dnsApiNameserverAddresses: setting(
    commaList(
      z.array(z.string().refine((s) => isIP(s) !== 0, 'must be IPv4 or IPv6 addresses, comma-separated')),
    ).default([]),
    {
      env: 'DNS_API_NAMESERVER_ADDRESSES',
      help: "DNS API: addresses (IPv4/IPv6, comma-separated) of a new zone's name servers named inside it (ns1.<zone> by default), added as their A/AAAA records so the zone is complete; empty: DNS_HOST when it is one address, else such a zone is refused.",
    },
  ),
  dnssecDnskeyTtl: setting(z.coerce.number().int().min(1).max(604_800).default(3600), {
    env: 'DNSSEC_DNSKEY_TTL',
    help: 'TTL of the DNSKEY RRset (TTLkey).',
  }),
  dnssecSignatureValidityS: setting(
    z.coerce
      .number()
      .int()
      .min(3600)
      .max(366 * 86_400)
      .default(14 * 86_400),
    {
      env: 'DNSSEC_SIGNATURE_VALIDITY_S',
      help: 'How long signatures are valid from their signing; each is made afresh near its expiry (DNSSEC_SIGNATURE_REFRESH_S).',
    },
  ),
  dnssecSignatureJitterS: setting(optionalSignatureSeconds(), {
    env: 'DNSSEC_SIGNATURE_JITTER_S',
    help: "Expirations of one signing are spread over the validity's last this many seconds, per RRset, so they do not come due together; unset: a quarter of DNSSEC_SIGNATURE_VALIDITY_S.",
  }),
  dnssecSignatureRefreshS: setting(optionalSignatureSeconds(), {
    env: 'DNSSEC_SIGNATURE_REFRESH_S',
    help: 'A signature is made afresh when it has this many seconds left; a refresh signs only the RRsets that near, not the zone (Knot: rrsig-refresh); unset: a quarter of DNSSEC_SIGNATURE_VALIDITY_S. Jitter + refresh + pre-refresh must be less than the validity.',
  }),
  dnssecSignaturePreRefreshS: setting(optionalSignatureSeconds(), {
    env: 'DNSSEC_SIGNATURE_PRE_REFRESH_S',
    help: 'A refresh also makes afresh the signatures due within this many seconds after it: fewer, larger refreshes (Knot: rrsig-pre-refresh); unset: a fourteenth of DNSSEC_SIGNATURE_VALIDITY_S (a day of 14).',
  }),
  dnssecPropagationDelayS: setting(z.coerce.number().int().min(0).max(86_400).default(300), {
    env: 'DNSSEC_PROPAGATION_DELAY_S',
    help: 'How long a change takes to reach every secondary (Dprp).',
  }),
  dnssecPublishSafetyS: setting(
    z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(3600),
    { env: 'DNSSEC_PUBLISH_SAFETY_S', help: 'Margin added to the publication interval of a rollover.' },
  ),
  dnssecRetireSafetyS: setting(
    z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(3600),
    { env: 'DNSSEC_RETIRE_SAFETY_S', help: 'Margin added to the retire interval of a rollover.' },
  ),
  dnssecZskLifetimeS: setting(
    z.coerce
      .number()
      .int()
      .min(86_400)
      .max(10 * 366 * 86_400)
      .default(90 * 86_400),
    { env: 'DNSSEC_ZSK_LIFETIME_S', help: 'Lifetime that `expires_at` of a ZSK shows.' },
  ),
  dnssecKskLifetimeS: setting(
    z.coerce
      .number()
      .int()
      .min(86_400)
      .max(10 * 366 * 86_400)
      .default(365 * 86_400),
    {
      env: 'DNSSEC_KSK_LIFETIME_S',
      help: 'Lifetime that `expires_at` of a KSK shows; a KSK rollover starts then (DNSSEC_AUTO_ROLLOVER).',
    },
  ),
  dnssecAutoRollover: setting(textBool.default(true), {
    env: 'DNSSEC_AUTO_ROLLOVER',
    help: "Start a ZSK or KSK rollover by itself when a key's lifetime (`expires_at`) is over.",
  }),
  dnssecCdsPublish: setting(z.enum(['rollover', 'always']).default('rollover'), {
    env: 'DNSSEC_CDS_PUBLISH',
    help:
      'CDS/CDNSKEY at the apex (RFC 7344): `rollover` only while a KSK rollover waits for and follows the new DS; ' +
      '`always` for the current KSK too, from the moment DNSSEC is turned on (a parent may bootstrap, RFC 8078).',
  }),
  dnssecParentDsTtlS: setting(
    z.coerce
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(86_400),
    {
      env: 'DNSSEC_PARENT_DS_TTL_S',
      help: "The parent's DS TTL assumed when its DS is confirmed by hand (`POST .../dnssec/ds-seen`); a DS check reads it.",
    },
  ),
  dnssecRolloverCheckS: setting(z.coerce.number().int().min(1).max(86_400).default(60), {
    env: 'DNSSEC_ROLLOVER_CHECK_S',
    help: "How often rollovers are looked at: the parent's DS for a new KSK, CDS of child zones, keys past their lifetime.",
  }),
  dnssecDsCheckServers: setting(
    commaList(
      z.array(
        z.string().refine((s) => {
          try {
            parseServerAddress(s);
            return true;
          } catch {
            return false;
          }
        }, 'must be IP addresses with an optional port (host:port, [v6]:port), comma-separated'),
      ),
    ).default([]),
    {
      env: 'DNSSEC_DS_CHECK_SERVERS',
      help:
        "Where the parent's DS of a zone whose parent is not served here is asked for (host:port, comma-separated); " +
        "empty: the parent zone's name servers, found through the system's resolvers.",
    },
  ),
  dnssecDsCheckTimeoutMs: setting(z.coerce.number().int().min(100).max(60_000).default(3000), {
    env: 'DNSSEC_DS_CHECK_TIMEOUT_MS',
    help: "Timeout of each query for the parent's DS.",
  }),
});
export type DnsApiConfig = z.infer<typeof DnsApiConfigSchema>;
