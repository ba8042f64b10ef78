import { isIP } from 'node:net';
import type { SubgraphDescriptor } from '../descriptor';
import { DnsApiConfigSchema, type DnsApiConfig } from './config';
import { Identity, openUserStore } from './identity';
import { buildDnsApiSchema, createDnsApiSubgraph } from './index';
import { parseServerAddress } from '../../dns/client';
import { wireName } from '../../dns/model';
import { Admission } from '../../platform/async';
import { redisLedger } from '../../platform/login-throttle';
import type { ScryptParams } from '../../platform/passwords';
import { RedisLink } from '../../platform/redis';
import { RedisSharedOperations } from './service/shared-operations';

/**
 * The DNS server API: zones, records, users and tokens over the embedded DNS server's zone store. Its users live
 * beside the zones (the same SQLite file, or the same PostgreSQL database). On first start it creates `admin`
 * with ADMIN_PASSWORD, or with a random password printed once on the terminal (never logged).
 */
/**
 * Addresses for a new zone's in-zone name servers: DNS_API_NAMESERVER_ADDRESSES, else the embedded DNS server's own
 * address when it listens on one (DNS_HOST, 127.0.0.1 by default: the server that answers for the zone), else none.
 */
function nameserverAddresses(configured: readonly string[], dnsHost: string): string[] {
  if (configured.length > 0) return [...configured];
  const wildcard = dnsHost === '0.0.0.0' || dnsHost === '::';
  return isIP(dnsHost) !== 0 && !wildcard ? [dnsHost] : [];
}

/**
 * scrypt parameters a test hands in (overrides.scrypt) for the new hashes of its system: tests that are not about
 * the cost of a hash need not pay the production cost at every start and login. Identity checks them.
 */
function scryptOverride(value: unknown): { scrypt?: ScryptParams } {
  if (value === undefined) return {};
  const { N, r, p } = (value ?? {}) as Partial<Record<keyof ScryptParams, unknown>>;
  if (typeof N !== 'number' || typeof r !== 'number' || typeof p !== 'number')
    throw new Error('overrides.scrypt must be { N, r, p }, three numbers');
  return { scrypt: { N, r, p } };
}

export const dnsApiDescriptor: SubgraphDescriptor<DnsApiConfig> = {
  name: 'dns-api',
  configSchema: DnsApiConfigSchema,
  defaultUrl: 'http://127.0.0.1:4102/graphql',
  needs: ['dns'],
  buildSchema: buildDnsApiSchema,
  async create({ config, shared, log, engines, overrides }) {
    const dns = engines.dns;
    if (!dns) throw new Error('the dns-api subgraph needs the DNS engine');
    const users = await openUserStore({ dataDir: shared.dataDir, databaseUrl: shared.databaseUrl });
    // With REDIS_URL the login throttle counts in Redis, so N replicas allow what one does, and background operations
    // are kept there too, so a poll through any replica finds them.
    const redis = shared.redisUrl
      ? new RedisLink({
          url: shared.redisUrl,
          purpose: 'DNS API login throttle and operations',
          fallback: 'failed DNS API logins are counted per process and operations of other replicas cannot be read',
          connectTimeoutMs: shared.redisConnectTimeoutMs,
          commandTimeoutMs: shared.redisCommandTimeoutMs,
          log,
        })
      : undefined;
    try {
      const identity = new Identity({
        store: users,
        vault: dns.vault,
        signingKeyLifetimeSeconds: config.dnsApiSigningKeyLifetime,
        log,
        issuer: config.dnsApiIssuer,
        audience: config.dnsApiAudience,
        tokenLifetimeSeconds: config.dnsApiTokenTtl,
        throttle: {
          maxFailuresPerUsername: config.dnsApiLoginFailuresPerUser,
          maxFailuresPerAddress: config.dnsApiLoginFailuresPerAddress,
          windowSeconds: config.dnsApiLoginWindowS,
        },
        ...(redis ? { throttleLedger: redisLedger(redis, { prefix: shared.redisPrefix, namespace: 'dns-api' }) } : {}),
        ...scryptOverride(overrides.scrypt),
      });
      const bootstrap = await identity.ensureAdmin(config.adminPassword);
      if (bootstrap.created) {
        log.info({ username: bootstrap.username }, 'first start: DNS API user admin created');
        const generated = bootstrap.generatedPassword;
        // Shown once, on the terminal and not through the logger: logs are kept and shipped, this must not be.
        if (generated)
          process.stderr.write(
            `\n  DNS API: user "admin" created with the password  ${generated}\n` +
              '  (shown this once; set ADMIN_PASSWORD to choose it, and change it with PUT /api/v1/users/me/password)\n\n',
          );
      } else if (config.adminPassword !== undefined) {
        // Said because a login with it fails: it only ever chose the first admin's password.
        log.warn(
          {},
          "ADMIN_PASSWORD is ignored: the DNS API already has users (it only sets the first admin's password); " +
            'to set a password: npm run dns-api-admin -- reset-password [USER]',
        );
      }
      return await createDnsApiSubgraph({
        store: dns.store,
        engine: dns.engine,
        identity,
        users,
        zoneDefaults: {
          nameservers: config.dnsApiNameservers.map(wireName),
          nameserverAddresses: nameserverAddresses(config.dnsApiNameserverAddresses, shared.dnsHost),
        },
        records: { maxBatch: config.dnsApiMaxBatch },
        vault: dns.vault,
        dnssec: {
          dnskeyTtl: config.dnssecDnskeyTtl,
          signatureValidity: config.dnssecSignatureValidityS,
          propagationDelay: config.dnssecPropagationDelayS,
          publishSafety: config.dnssecPublishSafetyS,
          retireSafety: config.dnssecRetireSafetyS,
          zskLifetime: config.dnssecZskLifetimeS,
          kskLifetime: config.dnssecKskLifetimeS,
          cdsPublish: config.dnssecCdsPublish,
          parentDsTtl: config.dnssecParentDsTtlS,
        },
        rollovers: {
          everyMs: config.dnssecRolloverCheckS * 1000,
          autoRollover: config.dnssecAutoRollover,
          dsCheck: {
            servers: config.dnssecDsCheckServers.map((s) => parseServerAddress(s)),
            timeoutMs: config.dnssecDsCheckTimeoutMs,
          },
        },
        // One cap per process: the host shares its own with the DNS API's REST interface.
        wholeZoneReads:
          overrides.wholeZoneReads instanceof Admission
            ? overrides.wholeZoneReads
            : new Admission({ running: config.dnsApiWholeZoneReads, waiting: config.dnsApiWholeZoneQueue }),
        log,
        ...(redis ? { sharedOperations: new RedisSharedOperations(redis, shared.redisPrefix) } : {}),
        async onClose() {
          await identity.settled(); // failed and successful logins recorded before the link closes
          await redis?.close();
        },
      });
    } catch (err) {
      await users.close();
      await redis?.close();
      throw err;
    }
  },
};
