import { appendFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, type JSONWebKeySet } from 'jose';
import { GraphAccessError, type SubgraphDeps, type SubgraphDescriptor } from '../descriptor';
import { readKeyFile } from '../../dns/tsig';
import { VERSION } from '../../platform/version';
import { redisLedger } from '../../platform/login-throttle';
import { RedisLink } from '../../platform/redis';
import { ToolAuth, type DirectoryLogin } from './auth';
import { DnsToolConfigSchema, type DnsToolConfig } from './config';
import { buildDnsToolSchema, createDnsToolSubgraph } from './index';
import { DnsApiTokens, type DnsApiClaims, type DnsApiSource } from './jwt-trust';
import { ensureGeneratedToken, sharedGeneratedToken } from './token-file';
import { auditLine, eventId } from './tool/audit';
import { ldapLogin } from './tool/ldap-login';
import { RedisSessionStore } from './tool/redis-sessions';
import { ToolService, type AuditEntry } from './tool/service';
import { MemorySessionStore, type SessionStore } from './tool/sessions';
import { parseUsersFile } from './tool/users-file';
import { toolZones, type EmbeddedServer } from './zones';

const JWKS_QUERY = 'query DnsToolJwks { dnsApiJwks { keys { kty crv x kid alg use } } }';
/** Longest the tool waits for a DNS API run apart to say who a token's user is. */
const USER_CHECK_TIMEOUT_MS = 5_000;
/** The token's user as the DNS API sees it now (its own check: signature, expiry, user enabled, not revoked). */
const TOKEN_USER_QUERY = 'query DnsToolTokenUser { me { username role } }';

/**
 * Where the DNS API's public keys and its users' current state come from: the graph in the all-in-one process, else
 * the DNS API's own URLs (`dnsApiJwksUrl`, and `dnsApiUserUrl` — by default its `/users/me` beside the JWKS).
 */
function dnsApiSource({ config, graph, log }: SubgraphDeps<DnsToolConfig>): DnsApiSource | undefined {
  const url = config.dnsTool.dnsApiJwksUrl;
  if (url) {
    const remote = createRemoteJWKSet(new URL(url));
    const userUrl = config.dnsTool.dnsApiUserUrl ?? url.replace(/\/\.well-known\/jwks\.json$/, '/users/me');
    return {
      jwks: async () => {
        await remote.reload();
        return remote.jwks() ?? { keys: [] };
      },
      currentUser: async (token) => {
        try {
          const res = await fetch(userUrl, {
            headers: { authorization: `Bearer ${token}` },
            // A DNS API that does not answer must not hold the tool's request: refused (fail closed) instead.
            signal: AbortSignal.timeout(USER_CHECK_TIMEOUT_MS),
          });
          if (res.status === 401) return null;
          if (!res.ok) throw new Error(`${userUrl} answered ${res.status}`);
          return userOf(await res.json());
        } catch (err) {
          log.warn({ err: (err as Error).message }, 'DNS tool: the DNS API could not say who a token is; refused');
          return null;
        }
      },
    };
  }
  if (!graph) return undefined;
  return {
    jwks: async () => (await graph.query('DnsToolJwks', JWKS_QUERY)).dnsApiJwks as JSONWebKeySet,
    currentUser: async (token) => {
      try {
        return userOf((await graph.query('DnsToolTokenUser', TOKEN_USER_QUERY, {}, `Bearer ${token}`)).me);
      } catch (err) {
        if (!(err instanceof GraphAccessError && err.code === 'UNAUTHENTICATED'))
          log.warn({ err: (err as Error).message }, 'DNS tool: the DNS API could not say who a token is; refused');
        return null;
      }
    },
  };
}

/** `{username, role}` out of a DNS API user, or null for anything else (GraphQL spells roles as `ADMIN`). */
function userOf(value: unknown): DnsApiClaims | null {
  const { username, role } = (value ?? {}) as { username?: unknown; role?: unknown };
  return typeof username === 'string' && typeof role === 'string' ? { username, role: role.toLowerCase() } : null;
}

/** With REDIS_URL: the link the tool's sessions and login throttle share with every replica (closed with the tool). */
function toolRedis({ shared, log }: SubgraphDeps<DnsToolConfig>): RedisLink | undefined {
  if (!shared.redisUrl) return undefined;
  return new RedisLink({
    url: shared.redisUrl,
    purpose: 'DNS tool sessions and login throttle',
    fallback: 'DNS tool logins and sessions fail',
    connectTimeoutMs: shared.redisConnectTimeoutMs,
    commandTimeoutMs: shared.redisCommandTimeoutMs,
    log,
  });
}

/** Sessions in memory, or in Redis (shared by replicas). */
function sessionStore({ config, shared }: SubgraphDeps<DnsToolConfig>, redis: RedisLink | undefined): SessionStore {
  const idleSeconds = config.dnsTool.sessionIdleS;
  const bounds = { maxPerUser: config.dnsTool.maxSessionsPerUser, maxBytes: config.dnsTool.maxSessionBytes };
  if (!redis) return new MemorySessionStore({ idleSeconds, bounds });
  return new RedisSessionStore(redis, { prefix: shared.redisPrefix, idleSeconds, bounds });
}

function loopbackOf(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  return host === '::' ? '::1' : host;
}

/**
 * The DNS record tool (`/api.php` and its GraphQL fields). Without configured zones it manages every zone of the
 * embedded server through the wire, with the key the server was given for it; without configured tokens it makes
 * one (`admin_…`, role root), shown once on the terminal.
 */
export const dnsToolDescriptor: SubgraphDescriptor<DnsToolConfig> = {
  name: 'dns-tool',
  configSchema: DnsToolConfigSchema,
  defaultUrl: 'http://127.0.0.1:4103/graphql',
  needs: [],
  buildSchema: buildDnsToolSchema,
  async create(deps) {
    const { config, shared, log, engines } = deps;
    const settings = config.dnsTool;
    const keys = shared.tsigKeyFile ? readKeyFile(shared.tsigKeyFile) : [];
    const dns = engines.dns;
    const server = dns?.engine.server;
    const embedded = async (): Promise<EmbeddedServer | undefined> =>
      dns && server
        ? {
            // Listening on every address: the tool reaches it on loopback.
            address: { host: loopbackOf(server.host), port: server.port },
            ...(dns.toolKey ? { key: dns.toolKey } : {}),
            zones: (await dns.store.listZones()).map((z) => z.name),
          }
        : undefined;

    const auditLog = log.child({ part: 'audit' });
    let auditWrites: Promise<void> = Promise.resolve();
    const audit = (entry: AuditEntry): void => {
      const line = auditLine({ ...entry, at: new Date(), eid: entry.eid ?? eventId() });
      auditLog.info({ audit: line }, 'dns tool change');
      // Appends one after the other: a replace's two lines must reach the file in the order they happened.
      if (settings.auditFile) {
        const file = settings.auditFile;
        auditWrites = auditWrites
          .then(() => appendFile(file, `${line}\n`))
          .catch((err: unknown) => auditLog.error({ err, file }, 'audit line not written'));
      }
    };
    const server0 = await embedded();
    // No zones configured and no embedded server listening (DNS_PORT=0): nothing to manage, which is no reason not to start.
    if (!settings.zones && !server0)
      log.warn({}, 'DNS tool: no dnsTool.zones and no embedded DNS server listening: it manages no zones');
    const zonesOf = (e: EmbeddedServer | undefined) => toolZones(settings, keys, e);
    const tool = new ToolService(zonesOf(server0), settings, {
      timeoutMs: settings.dnsTimeoutMs,
      audit,
    });
    // Managing the embedded server's zones: the list follows zones created and deleted through the DNS API.
    let unfollow: (() => void) | undefined;
    if (!settings.zones && dns)
      unfollow = dns.store.onChange((event) => {
        if (event.kind !== 'zone-created' && event.kind !== 'zone-deleted') return;
        void embedded()
          .then((e) => tool.setZones(zonesOf(e)))
          .catch((err: unknown) => log.error({ err }, 'DNS tool: zone list not refreshed'));
      });

    let tokens = settings.tokens;
    let roles = settings;
    if (tokens.length === 0) {
      // Shared through the store with every replica of it (sealed), else this data directory's own.
      const generated = dns
        ? await sharedGeneratedToken(shared.dataDir, { store: dns.store, vault: dns.vault })
        : { ...ensureGeneratedToken(shared.dataDir), replacedFile: false };
      if (generated.replacedFile)
        log.warn(
          { file: generated.file },
          'DNS tool: the token file held another token; replaced by the one replicas share',
        );
      tokens = [generated.token];
      roles = { ...settings, usersRoles: { ...settings.usersRoles, [generated.token]: ['root'] } };
      // Shown once, on the terminal and not through the logger (logs are kept and shipped; this must not be).
      if (generated.created)
        process.stderr.write(
          `\n  DNS tool (/api.php): API token  ${generated.token}  (role root; kept in ${generated.file})\n` +
            '  (shown this once; set dnsTool.tokens in the CONFIG file to choose your own)\n\n',
        );
    }
    const usersFile = settings.usersFile
      ? parseUsersFile(readFileSync(settings.usersFile, 'utf8'), settings.usersFile)
      : undefined;
    const dnsApi = settings.trustDnsApi ? dnsApiSource(deps) : undefined;
    const ldap = settings.ldap;
    const directory: DirectoryLogin | undefined = ldap ? (u, p) => ldapLogin(ldap, u, p) : undefined;
    const redis = toolRedis(deps);
    const sessions = sessionStore(deps, redis);
    const auth = new ToolAuth({
      roles,
      tokens,
      sessions,
      ...(usersFile ? { usersFile } : {}),
      ...(directory ? { directory } : {}),
      ...(dnsApi
        ? { dnsApi: new DnsApiTokens(dnsApi, { issuer: shared.dnsApiIssuer, audience: shared.dnsApiAudience }) }
        : {}),
      dnsApiRoles: settings.dnsApiRoles,
      // The same limits as the DNS API's login: one policy for every password and token of the system.
      throttle: {
        maxFailuresPerUsername: shared.dnsApiLoginFailuresPerUser,
        maxFailuresPerAddress: shared.dnsApiLoginFailuresPerAddress,
        windowSeconds: shared.dnsApiLoginWindowS,
      },
      // With Redis every replica counts the same failures: N replicas allow what one does.
      ...(redis ? { throttleLedger: redisLedger(redis, { prefix: shared.redisPrefix, namespace: 'dns-tool' }) } : {}),
      log: log.child({ part: 'login' }),
    });
    return createDnsToolSubgraph({
      tool,
      auth,
      sessions,
      version: VERSION,
      audit,
      async onClose() {
        unfollow?.();
        await auditWrites;
        await auth.settled(); // failed and successful logins recorded before the link closes
        await redis?.close();
      },
    });
  },
};
