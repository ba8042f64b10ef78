import { isIPv4, isIPv6 } from 'node:net';
import { parseIPv6 } from '../../../dns/records';

/** `a.b.c.d` → `d.c.b.a.in-addr.arpa`; null when `address` is not a dotted quad. */
export function ipv4ReverseName(address: string): string | null {
  if (!isIPv4(address)) return null;
  return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
}

/** An IPv6 address → its ip6.arpa name in nibble format (RFC 3596 §2.5); null when not an IPv6 address. */
export function ipv6ReverseName(address: string): string | null {
  const groups = isIPv6(address) ? parseIPv6(address) : null;
  if (!groups) return null;
  const nibbles = groups.flatMap((g) => g.toString(16).padStart(4, '0').split(''));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}
