import { isIP } from 'node:net';

/** Where a DNS server listens. */
export interface ServerAddress {
  host: string;
  port: number;
}

/**
 * A server as configurations write it: `127.0.0.1`, `127.0.0.1 5353` (nsupdate's `server` form, the DNS tool's
 * `update_server`), `127.0.0.1:5353`, `::1`, `[::1]:5353` or `::1 5353`. Port 53 when none is given. Only IP
 * addresses: the client never resolves names (a DNS tool that needs DNS to find its DNS server fails at the worst
 * time).
 */
export function parseServerAddress(text: string): ServerAddress {
  const trimmed = text.trim();
  let host = trimmed;
  let port = '53';
  const spaced = /^(\S+)\s+(\S+)$/.exec(trimmed);
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  const colon = /^([^:\s]+):(\d+)$/.exec(trimmed);
  if (spaced) [, host = '', port = ''] = spaced;
  else if (bracketed) [, host = '', port = '53'] = bracketed;
  else if (colon) [, host = '', port = ''] = colon;
  if (isIP(host) === 0)
    throw new Error(
      `DNS server ${JSON.stringify(text)}: the address must be an IPv4 or IPv6 address, optionally with a port`,
    );
  const n = Number(port);
  if (!/^\d{1,5}$/.test(port) || n < 1 || n > 65535)
    throw new Error(`DNS server ${JSON.stringify(text)}: the port must be from 1 to 65535`);
  return { host, port: n };
}

export function formatServerAddress(server: ServerAddress): string {
  return `${isIP(server.host) === 6 ? `[${server.host}]` : server.host}#${server.port}`;
}
