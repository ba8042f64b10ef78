import { parseSecondaryZones, type SecondaryZone } from '../../dns/engine';
import { wireName } from '../../dns/model';
import { ConfigError } from './config/load';

/** What start-up knows when it checks DNS_SECONDARY_ZONES against the rest of the configuration. */
export interface SecondaryContext {
  /** Names of the TSIG keys configured (TSIG_KEYFILE and the DNS tool's). */
  keys: readonly string[];
  /** Zones of the zone store. */
  storeZones: ReadonlySet<string>;
  /** DNS_WORKERS as configured. */
  workers: 'auto' | number;
}

/**
 * DNS_SECONDARY_ZONES checked against the rest of the configuration (its own syntax the schema checked): every key
 * named is configured, no zone is also the store's, and no answer workers (they read the store, which does not hold
 * these zones). Gives the zones and the worker count to start; a problem is a ConfigError naming the setting.
 */
export function secondaryZonesFor(
  entries: readonly string[],
  context: SecondaryContext,
): { zones: SecondaryZone[]; workers: 'auto' | number } {
  const zones = parseSecondaryZones(entries);
  if (zones.length === 0) return { zones, workers: context.workers };
  const keys = new Set(context.keys.map(wireName));
  for (const z of zones) {
    if (z.key !== undefined && !keys.has(z.key))
      throw new ConfigError(
        `DNS_SECONDARY_ZONES (dnsSecondaryZones): zone ${z.zone} names TSIG key "${z.key}", which is not configured (TSIG_KEYFILE holds ${[...keys].join(', ') || 'no key'})`,
      );
    if (context.storeZones.has(z.zone))
      throw new ConfigError(
        `DNS_SECONDARY_ZONES (dnsSecondaryZones): zone ${z.zone || '.'} is in the zone store, served as its primary; a zone is either the store's or a secondary: delete it from the store (DELETE /api/v1/zones/${z.zone}) or remove it from the setting`,
      );
  }
  if (context.workers !== 'auto' && context.workers > 0)
    throw new ConfigError(
      `DNS_SECONDARY_ZONES (dnsSecondaryZones): secondary zones are served by the gateway process alone; DNS_WORKERS must be 0 or auto (it is ${context.workers})`,
    );
  return { zones, workers: 0 };
}
