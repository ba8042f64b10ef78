import { isIP } from 'node:net';
import { NameError, normalizeName, wireName } from '../../model';

/** A zone this server serves as a secondary: transferred from `primary`, TSIG-signed with `key` when one is named. */
export interface SecondaryZone {
  /** Model form (lower case, no trailing dot). */
  zone: string;
  primary: { host: string; port: number };
  /** Name of a configured TSIG key: transfers and SOA queries are signed with it, NOTIFY must be. */
  key?: string;
}

/** The form of one entry, for error messages. */
export const SECONDARY_FORM =
  'zone@address:port[/key], e.g. example.com@192.0.2.1:53 or example.com@[2001:db8::1]:53/xfr';

/** `[v6]:port` or `v4:port`, then an optional `/key`. */
const ENTRY = /^([^@\s]+)@(\[[^\]\s]+\]|[^:/\s[\]]+):([0-9]{1,5})(?:\/(\S+))?$/;

/**
 * One entry of the secondary zones setting (see SECONDARY_FORM); throws an Error saying what is wrong with it. The
 * primary is an IP address, not a host name: a name would need a resolver at every refresh (BIND's `primaries`
 * takes addresses too).
 */
export function parseSecondaryZone(text: string): SecondaryZone {
  const match = ENTRY.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not ${SECONDARY_FORM}`);
  const [, name = '', rawHost = '', rawPort = '', key] = match;
  let zone: string;
  try {
    zone = normalizeName(name.endsWith('.') ? name : `${name}.`);
  } catch (err) {
    if (err instanceof NameError)
      throw new Error(`"${text}": the zone is no domain name (${err.message})`, { cause: err });
    throw err;
  }
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  if (isIP(host) === 0) throw new Error(`"${text}": the primary must be an IP address (${host} is not one)`);
  if (rawHost.startsWith('[') !== (isIP(host) === 6))
    throw new Error(`"${text}": an IPv6 primary is written in brackets ([${host}]:port), an IPv4 one without`);
  const port = Number(rawPort);
  if (port < 1 || port > 65535) throw new Error(`"${text}": the port must be from 1 to 65535`);
  return { zone, primary: { host, port }, ...(key === undefined ? {} : { key: wireName(key) }) };
}

/** Every entry parsed; a zone listed twice is an error (one primary per zone here). */
export function parseSecondaryZones(entries: readonly string[]): SecondaryZone[] {
  const seen = new Set<string>();
  return entries.map((entry) => {
    const parsed = parseSecondaryZone(entry);
    if (seen.has(parsed.zone)) throw new Error(`zone ${parsed.zone} is listed twice`);
    seen.add(parsed.zone);
    return parsed;
  });
}

/** `host:port`, an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
