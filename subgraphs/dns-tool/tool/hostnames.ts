import { isInZone, wireName } from '../../../dns/model';
import { toolErrors } from '../protocol';

/** Letters, digits, `*`, `_`, `-` and `.`, not starting with `+` or `-` (the original tool's check). */
const HOSTNAME = /^[A-Za-z0-9*_.][A-Za-z0-9*_.-]*$/;

export function isValidHostname(name: string): boolean {
  return name.length > 0 && name.length <= 255 && HOSTNAME.test(name);
}

/**
 * The fully qualified name (no trailing dot) of `record`: relative to `zone` when one is given (`@` or empty for the
 * apex, a name ending in a dot stays absolute), else `record` itself. Refuses names with invalid characters.
 */
export function recordFqdn(record: string, zone?: string): string {
  const name = record.trim();
  if (zone === undefined) {
    if (!isValidHostname(name)) throw toolErrors.invalidHostnameChars();
    return wireName(name);
  }
  if (name === '@' || name === '') return wireName(zone);
  if (!isValidHostname(name)) throw toolErrors.invalidHostnameChars();
  if (name.endsWith('.')) return wireName(name);
  const z = wireName(zone);
  return z === '' ? name.toLowerCase() : `${name.toLowerCase()}.${z}`;
}

/**
 * The configured zone a name belongs to: the longest zone that is the name or a suffix of it at a label boundary.
 * Case-insensitive, a trailing dot accepted, single-label zones found (where the original missed them).
 */
export function zoneOfName(fqdn: string, zones: Iterable<string>): string | null {
  const name = wireName(fqdn);
  let best: string | null = null;
  let bestLength = -1;
  for (const zone of zones) {
    const z = wireName(zone);
    if (isInZone(name, z) && z.length > bestLength) [best, bestLength] = [zone, z.length];
  }
  return best;
}
