import { z } from 'zod';
import { parseKeySpec } from '../../../dns/tsig';
import { commaList, portNumber, setting, textBool } from '../../../platform/settings';
import { MasterKeyError, parseMasterKey } from '../../../dns/dnssec';
import { parseSecondaryZones, SECONDARY_FORM } from '../../../dns/engine';
import { parseNetwork } from '../../../dns/server';

/** A master key's text: checked here so a bad one stops start-up naming its setting (and showing none of it). */
const masterKeyText = z.string().superRefine((text, ctx) => {
  try {
    parseMasterKey(text);
  } catch (err) {
    if (!(err instanceof MasterKeyError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
  }
});

/** A rate of one kind of response per second per client network: a whole number, 0 = that kind is not limited. */
const perSecond = z.coerce.number().int().min(0).max(1_000_000);

/** One rate setting of RRL beside responses-per-second (unset: the same as DNS_RRL_RESPONSES_PER_SECOND). */
function rrlRate(env: string, what: string) {
  return setting(perSecond.optional(), {
    env,
    help: `RRL: ${what} per second to one client network (BIND's defaults: the responses rate); 0: not limited. Unset: DNS_RRL_RESPONSES_PER_SECOND.`,
  });
}

/** The embedded DNS server: address, zones loaded at start, TSIG, NOTIFY, limits, answer workers, DNSSEC key sealing. */
export const DnsServerSettings = z.object({
  dnsHost: setting(z.string().min(1).default('127.0.0.1'), {
    env: 'DNS_HOST',
    flag: '--dns-host <addr>',
    help: 'Address of the embedded DNS server',
  }),
  dnsPort: setting(portNumber.default(5353), {
    env: 'DNS_PORT',
    flag: '--dns-port <n>',
    help: 'Port of the embedded DNS server, UDP and TCP; 0 turns it off',
  }),
  seedDemo: setting(textBool.default(true), {
    env: 'SEED_DEMO',
    help: 'Seed a demo zone when the store holds no zone at all (first start).',
  }),
  zoneFiles: setting(z.record(z.string(), z.string().min(1)).default({}), {
    flag: '--zone <name=file>',
    help: '`name=file` pairs: master files loaded at start into zones the store does not hold yet.',
  }),
  tsigKeyFile: setting(z.string().min(1).optional(), {
    env: 'TSIG_KEYFILE',
    flag: '--tsig-keyfile <file>',
    help: "TSIG keys in BIND's key-file format; every key may update and transfer every zone unless dnsAccess narrows it.",
  }),
  dnsAccess: setting(
    z
      .object({
        updateKeys: setting(z.record(z.string(), z.array(z.string())).optional(), {
          help: 'zone → names of the TSIG keys that may update it (unset: every key may update every zone)',
        }),
        transferKeys: setting(z.record(z.string(), z.array(z.string())).optional(), {
          help: 'zone → names of the TSIG keys that may transfer it (unset: every key may transfer every zone)',
        }),
        transferFromLoopback: setting(z.boolean().optional(), {
          help: 'Whether loopback clients may transfer zones without a key',
        }),
      })
      .strict()
      .default({}),
    { help: 'Which TSIG keys may update and transfer which zones (file only)' },
  ),
  notifyTargets: setting(
    commaList(
      z.array(z.string().regex(/^[^\s:]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'must be host:port (comma-separated)')),
    ).default([]),
    {
      env: 'NOTIFY_TARGETS',
      flag: '--notify <host:port>',
      help: 'Secondaries told by NOTIFY after every change, as host:port.',
    },
  ),
  dnsSecondaryZones: setting(
    commaList(
      z.array(z.string()).superRefine((entries, ctx) => {
        try {
          parseSecondaryZones(entries);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: `${(err as Error).message} (each entry: ${SECONDARY_FORM})` });
        }
      }),
    ).default([]),
    {
      env: 'DNS_SECONDARY_ZONES',
      help: 'Zones served as a secondary of another server (BIND, or another of ours), comma-separated `zone@address:port`, `/key` after it to sign transfers with that key of TSIG_KEYFILE (and require it on NOTIFY): transferred (AXFR) at start, on NOTIFY from that primary and on the SOA timers, kept in DATA_DIR/secondary. Not in the zone store; needs DNS_WORKERS 0 (auto gives 0).',
    },
  ),
  dnsCatalogZone: setting(
    z
      .string()
      .regex(
        /^(?=.{1,253}\.?$)([a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.)*[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?\.?$/,
        'must be a domain name, e.g. catalog.example',
      )
      .transform((v) => v.replace(/\.$/, '').toLowerCase())
      .optional(),
    {
      env: 'DNS_CATALOG_ZONE',
      help: 'Name of a catalog zone (RFC 9432) listing every zone served, kept in the store, so that secondaries reading catalogs (BIND 9 catalog-zones) add and drop zones by themselves. Unset: none.',
    },
  ),
  notifyKey: setting(
    z
      .string()
      .min(1)
      .superRefine((v, ctx) => {
        if (!v.includes(':')) return;
        try {
          parseKeySpec(v);
        } catch (err) {
          ctx.addIssue({
            code: 'custom',
            message: `must be a key name from the TSIG key file, or algorithm:name:secret (${(err as Error).message})`,
          });
        }
      })
      .optional(),
    {
      env: 'NOTIFY_KEY',
      help: "Key NOTIFY is signed with: the name of a key in tsigKeyFile, or a key of its own as `algorithm:name:secret` (nsupdate's -y form). Unset: NOTIFY goes out unsigned.",
      secret: true,
    },
  ),
  dnsMaxRecordsPerRrset: setting(z.coerce.number().int().min(0).max(1_000_000).default(100), {
    env: 'DNS_MAX_RECORDS_PER_RRSET',
    help: "Most records per name and type a write may leave (BIND 9's max-records-per-type default, 100); 0 = no limit.",
  }),
  dnsTcpMaxConnections: setting(z.coerce.number().int().min(1).max(100_000).default(150), {
    env: 'DNS_TCP_MAX_CONNECTIONS',
    help: "Most DNS TCP connections open at once (BIND's tcp-clients default, 150); more are closed at once.",
  }),
  dnsReplicaCheckMs: setting(z.coerce.number().int().min(0).max(3_600_000).default(500), {
    env: 'DNS_REPLICA_CHECK_MS',
    help: "With DATABASE_URL (replicas on one database): how often every zone's serial served is compared with the store's and what differs caught up through the change log, so a change whose notification was lost is served within about this long. 0: off.",
  }),
  dnsTcpIdleMs: setting(z.coerce.number().int().min(100).max(3_600_000).default(10_000), {
    env: 'DNS_TCP_IDLE_MS',
    help: 'A DNS TCP connection with nothing in progress is closed after this long.',
  }),
  dnsTcpMessageMs: setting(z.coerce.number().int().min(100).max(600_000).default(10_000), {
    env: 'DNS_TCP_MESSAGE_MS',
    help: 'A DNS message over TCP must arrive whole within this long of its first byte.',
  }),
  dnsTcpMaxBufferedBytes: setting(
    z.coerce
      .number()
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024)
      .default(256 * 1024),
    {
      env: 'DNS_TCP_MAX_BUFFERED_BYTES',
      help: 'A DNS TCP connection is not read from while more than this many bytes of its answers wait to be sent.',
    },
  ),
  dnsUdpBatch: setting(z.enum(['on', 'off']).default('on'), {
    env: 'DNS_UDP_BATCH',
    help: "UDP through the batched addon `npm run build` compiles (recvmmsg/sendmmsg, Linux), when it is built; off: Node's dgram, a system call per datagram",
  }),
  dnsRrl: setting(z.enum(['on', 'off', 'log-only']).default('on'), {
    env: 'DNS_RRL',
    help: "Response rate limiting of UDP answers (BIND's rate-limit, Knot's mod-rrl): identical answers to one client network past a rate are dropped, every DNS_RRL_SLIP-th sent truncated so real clients ask over TCP; log-only counts and logs what it would limit and sends everything; off: none. TCP, TSIG-signed queries and clients with a valid server cookie are never limited.",
  }),
  dnsRrlResponsesPerSecond: setting(perSecond.default(20), {
    env: 'DNS_RRL_RESPONSES_PER_SECOND',
    help: "RRL: identical answers (same name and type) per second to one client network (BIND's responses-per-second); 0: not limited. The other kinds default to it.",
  }),
  dnsRrlNxdomainsPerSecond: rrlRate('DNS_RRL_NXDOMAINS_PER_SECOND', 'NXDOMAIN answers for one zone'),
  dnsRrlNodataPerSecond: rrlRate('DNS_RRL_NODATA_PER_SECOND', 'empty answers (NODATA) for one name and type'),
  dnsRrlReferralsPerSecond: rrlRate('DNS_RRL_REFERRALS_PER_SECOND', 'referrals to one delegation'),
  dnsRrlErrorsPerSecond: rrlRate('DNS_RRL_ERRORS_PER_SECOND', 'error answers (REFUSED, SERVFAIL, FORMERR...)'),
  dnsRrlWindowS: setting(z.coerce.number().int().min(1).max(3600).default(15), {
    env: 'DNS_RRL_WINDOW_S',
    help: "RRL: seconds over which answers are counted (BIND's window): a network limited stays so until its rate has been below the limit for up to this long.",
  }),
  dnsRrlSlip: setting(z.coerce.number().int().min(0).max(10).default(2), {
    env: 'DNS_RRL_SLIP',
    help: "RRL: every Nth limited answer is sent truncated (TC, question only) instead of dropped, so a real client retries over TCP (BIND's slip); 0: never, 1: always.",
  }),
  dnsRrlIpv4Prefix: setting(z.coerce.number().int().min(0).max(32).default(24), {
    env: 'DNS_RRL_IPV4_PREFIX',
    help: 'RRL: IPv4 client addresses are counted per network of this prefix length.',
  }),
  dnsRrlIpv6Prefix: setting(z.coerce.number().int().min(0).max(128).default(56), {
    env: 'DNS_RRL_IPV6_PREFIX',
    help: 'RRL: IPv6 client addresses are counted per network of this prefix length.',
  }),
  dnsRrlExempt: setting(
    commaList(
      z.array(z.string()).superRefine((entries, ctx) => {
        for (const entry of entries) {
          try {
            parseNetwork(entry);
          } catch (err) {
            ctx.addIssue({ code: 'custom', message: (err as Error).message });
          }
        }
      }),
    ).default([]),
    {
      env: 'DNS_RRL_EXEMPT',
      help: "RRL: client networks never limited, comma-separated CIDRs or addresses (BIND's exempt-clients), e.g. 10.0.0.0/8,2001:db8::/32. Loopback is not exempt unless listed.",
    },
  ),
  dnsRrlTableSize: setting(z.coerce.number().int().min(1).max(10_000_000).default(20_000), {
    env: 'DNS_RRL_TABLE_SIZE',
    help: "RRL: accounts (network, kind of answer, name) kept per answering process (BIND's max-table-size); when full, the least recently used is replaced.",
  }),
  dnsWorkers: setting(
    z
      .union([z.literal('auto'), z.coerce.number().int().min(0).max(64)], {
        error: "must be 'auto' or a whole number from 0 to 64",
      })
      .default('auto'),
    {
      env: 'DNS_WORKERS',
      help: "Processes that answer DNS queries over UDP besides the gateway's own (they share its socket and read the same store): `auto` is one per core but one from 4 cores up, none below (see autoWorkerCount); 0 answers from the gateway alone.",
    },
  ),
  masterKey: setting(masterKeyText.optional(), {
    env: 'MASTER_KEY',
    help: 'The master key that seals every secret kept in the store (DNSSEC private keys, the token signing key, the secrets replicas share): 32 bytes as base64 (openssl rand -base64 32) or 64 hex digits. Give every replica of one database the same. Unset, with no MASTER_KEY_FILE: one is made into DATA_DIR/dnssec-master.key (one machine only). No flag: a command line is visible to every local user.',
    secret: true,
  }),
  masterKeyFile: setting(z.string().min(1).optional(), {
    env: 'MASTER_KEY_FILE',
    flag: '--master-key-file <file>',
    help: 'A file holding the master key (as MASTER_KEY takes it; e.g. a mounted secret), read at start; instead of MASTER_KEY.',
  }),
  dnssecMasterKey: setting(masterKeyText.optional(), {
    env: 'DNSSEC_MASTER_KEY',
    help: 'Older name of MASTER_KEY (base64 or hex), still read; set one of them, not both.',
    secret: true,
  }),
});
