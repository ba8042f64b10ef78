import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { DnsClient, type ServerAddress } from '../../../dns/client';
import { dnskeyRdata, dsDigest, keyTag } from '../../../dns/dnssec';
import type { DnssecKey } from '../../../dns/store';

/**
 * The parent side of a KSK rollover: the DS records a child's CDS asks for (RFC 7344), and whether the parent's
 * servers elsewhere already give a DS for a key. Queries are bounded by a timeout each and never hold up answers.
 */

/** A DS record as the store and our answers write it: `tag algorithm digestType DIGEST` (upper-case hex). */
export function dsValue(zone: string, key: DnssecKey, digestType: 2 | 4 = 2): string {
  const rdata = dnskeyRdata(key.flags, key.algorithm, Buffer.from(key.publicKey, 'base64'));
  return `${keyTag(rdata)} ${key.algorithm} ${digestType} ${dsDigest(zone, rdata, digestType).toString('hex').toUpperCase()}`;
}

/** A DS value in one spelling (digest upper case, single spaces), to compare values from anywhere. */
export const normalDs = (value: string): string => {
  const [tag = '', alg = '', type = '', ...digest] = value.trim().split(/\s+/);
  return `${Number(tag)} ${Number(alg)} ${Number(type)} ${digest.join('').toUpperCase()}`;
};

/** Whether one of `values` (DS values) points at `key` of `zone` (by a SHA-256 or SHA-384 digest). */
export function dsMatches(zone: string, key: DnssecKey, values: readonly string[]): boolean {
  const wanted = new Set([dsValue(zone, key, 2), dsValue(zone, key, 4)]);
  return values.some((v) => wanted.has(normalDs(v)));
}

/** The zone above `zone` among `zones` (names in model form), or null when none of them is. */
export function parentAmong(zone: string, zones: ReadonlySet<string>): string | null {
  for (let name = zone; name !== '';) {
    const dot = name.indexOf('.');
    name = dot < 0 ? '' : name.slice(dot + 1);
    if (zones.has(name)) return name;
  }
  return null;
}

export interface DsCheckOptions {
  /** The parent's servers to ask; empty: found through the system's resolvers (the parent zone's NS). */
  servers: readonly ServerAddress[];
  timeoutMs: number;
}

/**
 * The TTL of the DS RRset for `zone` when every server of its parent gives a DS for `key`; null when one does not,
 * does not answer, or no server could be found (looked at again on the next check).
 */
export async function dsAtParentServers(zone: string, key: DnssecKey, options: DsCheckOptions): Promise<number | null> {
  const servers = options.servers.length ? options.servers : await parentServers(zone, options.timeoutMs);
  if (servers.length === 0) return null;
  let ttl = 0;
  for (const server of servers) {
    try {
      const answer = await new DnsClient({ server, timeoutMs: options.timeoutMs }).query(zone, 'DS');
      const ds = answer.answers.filter((r) => r.type === 'DS' && r.name === zone);
      if (
        !dsMatches(
          zone,
          key,
          ds.map((r) => r.value),
        )
      )
        return null;
      ttl = Math.max(ttl, ...ds.map((r) => r.ttl));
    } catch {
      return null;
    }
  }
  return ttl;
}

/** The addresses of the name servers of the zone above `zone`, found through the system's resolvers. */
async function parentServers(zone: string, timeoutMs: number): Promise<ServerAddress[]> {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  for (let name = zone.slice(zone.indexOf('.') + 1); zone.includes('.'); name = name.slice(name.indexOf('.') + 1)) {
    const hosts = await resolver.resolveNs(name || '.').catch(() => [] as string[]);
    if (hosts.length > 0) {
      const addresses = await Promise.all(
        hosts.map(async (h) =>
          isIP(h)
            ? [h]
            : [...(await resolver.resolve4(h).catch(() => [])), ...(await resolver.resolve6(h).catch(() => []))],
        ),
      );
      return addresses.flat().map((host) => ({ host, port: 53 }));
    }
    if (!name.includes('.')) break;
  }
  return [];
}
