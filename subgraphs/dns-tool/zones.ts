import { parseServerAddress, type ServerAddress } from '../../dns/client';
import { wireName } from '../../dns/model';
import type { TsigKey } from '../../dns/tsig';
import type { DnsToolSettings } from './config';
import type { ToolZone } from './tool/service';

/** The embedded DNS server, when the tool manages its zones (the all-in-one default). */
export interface EmbeddedServer {
  address: ServerAddress;
  /** The key its updates and transfers are signed with (the server is configured with the same key). */
  key?: TsigKey;
  /** Its zones, as the store lists them now. */
  zones: readonly string[];
}

export class ToolZonesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolZonesError';
  }
}

function addressText(address: ServerAddress): string {
  return `${address.host} ${address.port}`;
}

/**
 * The zones the tool manages, from its settings: each configured zone with its servers (the transfer server defaults
 * to the update server, the update server to the embedded one) and its TSIG key looked up by name among `keys`; with
 * no zones configured, every zone of the embedded server through its own address and key — none when no embedded
 * server listens (DNS_PORT=0: nothing to manage, which is no reason not to start; the caller says so in its log).
 */
export function toolZones(
  settings: Pick<DnsToolSettings, 'zones'>,
  keys: readonly TsigKey[],
  embedded?: EmbeddedServer,
): ToolZone[] {
  if (!settings.zones) {
    if (!embedded) return [];
    const text = addressText(embedded.address);
    return embedded.zones.map((name) => ({
      name,
      updateServer: embedded.address,
      updateServerText: text,
      transferServer: embedded.address,
      transferServerText: text,
      ...(embedded.key ? { key: embedded.key } : {}),
      readOnly: false,
    }));
  }
  return Object.entries(settings.zones).map(([name, zone]) => {
    const where = `dnsTool.zones.${name}`;
    const updateText = zone.updateServer ?? (embedded ? addressText(embedded.address) : undefined);
    if (updateText === undefined) throw new ToolZonesError(`${where}.updateServer: required (no embedded DNS server)`);
    const transferText = zone.transferServer ?? updateText;
    let key: TsigKey | undefined;
    if (zone.tsigKey !== undefined) {
      key = keys.find((k) => k.name === wireName(zone.tsigKey ?? ''));
      if (!key)
        throw new ToolZonesError(
          `${where}.tsigKey: no key ${JSON.stringify(zone.tsigKey)} in TSIG_KEYFILE (keys: ${keys.map((k) => k.name).join(', ') || 'none'})`,
        );
    } else if (zone.updateServer === undefined && embedded?.key) key = embedded.key;
    return {
      name: wireName(name),
      updateServer: parseServerAddress(updateText),
      updateServerText: updateText,
      transferServer: parseServerAddress(transferText),
      transferServerText: transferText,
      ...(key ? { key } : {}),
      readOnly: zone.readOnly,
      ...(zone.note !== undefined ? { note: zone.note } : {}),
      ...(zone.maintenanceNote !== undefined ? { maintenanceNote: zone.maintenanceNote } : {}),
      ...(zone.inTransfer !== undefined ? { inTransfer: zone.inTransfer } : {}),
    };
  });
}
