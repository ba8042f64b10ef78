import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import {
  isInZone,
  MAX_NAME_LENGTH,
  MAX_TTL,
  NameError,
  normalizeName,
  type RecordData,
  type Zone,
  type ZoneSettings,
} from '../../../dns/model';
import { checkZoneName, emailToRname, parseValue, soaNames, ZoneNameError } from '../../../dns/records';
import { StoreError, type ZoneStore, type ZoneWriteOptions } from '../../../dns/store';
import { exportZoneFile, importZoneFile } from '../../../dns/zonefile';
import { apiError, apiErrorOf, asApi, invalid, invalidFields, type FieldError } from '../errors';
import type { ChangeFeed } from './changes';
import { KeyedQueue, type DnsServing, type PreparedWrite } from './serving';

/** Zone fields of a create or update (camelCase; the REST adapter maps the seed's snake_case names). */
export interface ZoneSettingsInput {
  adminEmail?: string | null;
  refresh?: number | null;
  retry?: number | null;
  expire?: number | null;
  minimum?: number | null;
  defaultTtl?: number | null;
}

export interface CreateZoneInput extends ZoneSettingsInput {
  name: string;
  /** An RFC 1035 master file to import instead of the defaults (its SOA and records, serial kept). */
  zoneFile?: string | null;
}

/** A zone as the API shows it: the store's zone plus its name servers, DNSSEC state and ETag. */
export interface ZoneView extends Zone {
  nameservers: string[];
  dnssecEnabled: boolean;
  etag: string;
}

export interface ZoneDefaults {
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  defaultTtl: number;
  /** Name servers of a new zone (absolute names); empty: `ns1.<zone>`. */
  nameservers: readonly string[];
  /**
   * Addresses (IPv4, IPv6) of a new zone's name servers whose names are inside it (`ns1.<zone>` by default): each
   * such name gets these A/AAAA records, without which the zone is incomplete (`named-checkzone`: "NS 'ns1.<zone>'
   * has no address records"). Empty: such a zone is refused, saying what to set.
   */
  nameserverAddresses: readonly string[];
}

/** docs/dns-api.md, "Zone defaults on create". */
export const ZONE_DEFAULTS: ZoneDefaults = {
  refresh: 10_800,
  retry: 3_600,
  expire: 604_800,
  minimum: 3_600,
  defaultTtl: 3_600,
  nameservers: [],
  nameserverAddresses: ['127.0.0.1'], // the embedded DNS server's default address (DNS_HOST), as the demo zone's ns1
};

/** Longest master file a zone may be imported from (a 100 000-record zone is ~5 MB). */
export const MAX_ZONE_FILE_BYTES = 64 * 1024 * 1024;

const NUMBER_FIELDS = ['refresh', 'retry', 'expire', 'minimum', 'defaultTtl'] as const;

/** The ETag of a zone: it changes with every change of the zone (its serial rises with each). */
export function zoneEtag(zone: Zone): string {
  const digest = createHash('sha256').update(`${zone.name}|${zone.serial}|${zone.updatedAt}`).digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

/**
 * A zone name as the API accepts it: a domain name in lower case, with or without the trailing dot. An upper-case
 * name is refused with the lower-case form to use (names are stored and shown in one form; a client that sent
 * `Example.COM` would not find it in the listing under that spelling).
 */
export function zoneNameArg(input: unknown, field = 'name'): string {
  if (typeof input !== 'string' || input === '') throw invalid(field, `${field} must be a non-empty domain name`);
  if (input.length > MAX_NAME_LENGTH + 1) throw invalid(field, `${field} is longer than ${MAX_NAME_LENGTH} characters`);
  let name: string;
  try {
    name = normalizeName(input);
  } catch (err) {
    if (err instanceof NameError) throw invalid(field, `${field} is not a valid domain name: ${err.message}`);
    throw err;
  }
  if (name === '') throw invalid(field, `${field} must not be the root zone`);
  const written = input.endsWith('.') ? input.slice(0, -1) : input;
  if (written !== name) throw invalid(field, `${field} must be lower case, in ASCII (use "${name}")`);
  return name;
}

/** A zone named in a path or argument: matched case-insensitively, a trailing dot allowed (404 if malformed). */
export function zoneRef(input: string): string {
  try {
    return normalizeName(input);
  } catch {
    throw apiError('NOT_FOUND', `no zone ${JSON.stringify(input)}`);
  }
}

function settingsProblems(input: ZoneSettingsInput, field: (name: string) => string): FieldError[] {
  const problems: FieldError[] = [];
  for (const key of NUMBER_FIELDS) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (!Number.isInteger(value) || value < 0 || value > MAX_TTL)
      problems.push({
        field: field(key),
        message: `${key} must be an integer from 0 to ${MAX_TTL} (got ${String(value)})`,
      });
  }
  const email = input.adminEmail;
  if (email !== undefined && email !== null) {
    if (typeof email !== 'string' || email.length > 254)
      problems.push({
        field: field('adminEmail'),
        message: 'adminEmail must be an e-mail address of at most 254 characters',
      });
    else {
      try {
        emailToRname(email);
      } catch (err) {
        problems.push({
          field: field('adminEmail'),
          message: `adminEmail is not a valid e-mail address: ${err instanceof Error ? err.message : String(err)}`,
        });
      }
    }
  }
  return problems;
}

/**
 * A new zone's name and SOA names as the server needs them (dns/zone-names.ts): a 422 on the field to change — the
 * zone name, or admin_email when the client gave it. (With a zone file the file's own SOA is checked on import.)
 */
function checkSoaNames(name: string, settings: ZoneSettings, input: CreateZoneInput): void {
  try {
    if (input.zoneFile) checkZoneName(name);
    else soaNames(name, settings);
  } catch (err) {
    if (!(err instanceof ZoneNameError)) throw err;
    const field = err.part === 'rname' && input.adminEmail ? 'adminEmail' : 'name';
    throw invalid(field, `${field} cannot be used: ${err.reason}`);
  }
}

/** Zones: list, read, create (with defaults or from a master file), change settings, delete, export. */
export class ZoneService {
  constructor(
    private readonly store: ZoneStore,
    private readonly serving: DnsServing,
    private readonly feed: ChangeFeed,
    private readonly defaults: ZoneDefaults = ZONE_DEFAULTS,
    /**
     * Writes of one zone, one at a time in this process (shared with the record service); an If-Match holds across
     * processes because the store checks the zone's version again inside the write (`ifVersion`).
     */
    private readonly writes: KeyedQueue = new KeyedQueue(),
  ) {}

  list(): Promise<Zone[]> {
    return asApi(() => this.store.listZones());
  }

  async get(name: string): Promise<ZoneView> {
    const zone = await asApi(() => this.store.getZone(zoneRef(name)));
    if (!zone) throw apiError('NOT_FOUND', `no zone ${JSON.stringify(name)}`);
    return this.view(zone);
  }

  /** The zone with its name servers (NS at the apex), DNSSEC state and ETag. */
  async view(zone: Zone): Promise<ZoneView> {
    const [ns, dnssecEnabled] = await Promise.all([
      asApi(() => this.store.listRecords(zone.name, { name: zone.name, type: 'NS' })),
      this.dnssecEnabled(zone.name),
    ]);
    return {
      ...zone,
      nameservers: ns.map((r) => r.value.replace(/\.$/, '')),
      dnssecEnabled,
      etag: zoneEtag(zone),
    };
  }

  /** Whether the zone is signed: it has DNSSEC keys (a KSK and a ZSK from enabling until disabling). */
  async dnssecEnabled(name: string): Promise<boolean> {
    const keys = await asApi(() => this.store.listDnssecKeys(name));
    return keys.length > 0;
  }

  async create(input: CreateZoneInput, by: string): Promise<ZoneView> {
    return this.prepareCreate(input, by).run();
  }

  /**
   * A create checked as far as its own values go (422, 413: no store read, no parsing of the file), and the work
   * that does it (409 when the zone exists, 422 for a file that does not read): what a background operation starts.
   */
  prepareCreate(input: CreateZoneInput, by: string): PreparedWrite<ZoneView> {
    const name = zoneNameArg(input.name);
    const problems = settingsProblems(input, (f) => f);
    if (input.zoneFile !== undefined && input.zoneFile !== null) {
      if (typeof input.zoneFile !== 'string' || input.zoneFile.length === 0)
        problems.push({ field: 'zoneFile', message: 'zoneFile must be the text of an RFC 1035 master file' });
      else if (Buffer.byteLength(input.zoneFile) > MAX_ZONE_FILE_BYTES)
        throw apiError('PAYLOAD_TOO_LARGE', `zoneFile is larger than ${MAX_ZONE_FILE_BYTES} bytes`);
    }
    if (problems.length) throw invalidFields(problems);
    const primary = this.serving.secondaryOf?.(name);
    // the DNS server answers for it from its primary: a zone of the store with that name would never be served
    if (primary)
      throw apiError(
        'CONFLICT',
        `zone ${name} is served here as a secondary of ${primary}: it cannot also be created here (remove the secondary zone first: DELETE /api/v1/secondary-zones/${name}, or from DNS_SECONDARY_ZONES)`,
      );
    const settings = this.newSettings(name, input);
    checkSoaNames(name, settings, input);
    const zoneFile = input.zoneFile;
    const records = zoneFile ? [] : this.newRecords(name, input);
    return {
      zone: name,
      run: async () => {
        if (await asApi(() => this.store.getZone(name))) throw apiError('CONFLICT', `zone ${name} already exists`);
        const zone = zoneFile
          ? await this.importZone(name, zoneFile)
          : await asApi(() => this.store.createZone(name, settings, records));
        this.feed.attribute(name, zone.serial, by);
        await this.serving.served(name, zone.serial);
        return this.view(zone);
      },
    };
  }

  private async importZone(name: string, text: string): Promise<Zone> {
    try {
      return await importZoneFile(this.store, name, text);
    } catch (err) {
      const mapped = apiErrorOf(err);
      if (mapped !== err) throw mapped;
      // The master-file parser's errors say where the file is wrong.
      throw invalid('zoneFile', `zoneFile could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private newSettings(name: string, input: ZoneSettingsInput): ZoneSettings {
    const d = this.defaults;
    return {
      adminEmail: input.adminEmail ?? `hostmaster@${name}`,
      primaryNs: this.nameservers(name)[0] ?? `ns1.${name}`,
      refresh: input.refresh ?? d.refresh,
      retry: input.retry ?? d.retry,
      expire: input.expire ?? d.expire,
      minimum: input.minimum ?? d.minimum,
      defaultTtl: input.defaultTtl ?? d.defaultTtl,
    };
  }

  private nameservers(zone: string): string[] {
    return this.defaults.nameservers.length ? [...this.defaults.nameservers] : [`ns1.${zone}`];
  }

  /**
   * The NS records of a new zone, and the addresses of those name servers whose names are inside it (else the zone
   * would name a server nobody can find: BIND refuses to load it). Refused when such a name has no address to give.
   */
  private newRecords(name: string, input: ZoneSettingsInput): RecordData[] {
    const ttl = input.defaultTtl ?? this.defaults.defaultTtl;
    const nameservers = this.nameservers(name);
    const inside = nameservers.filter((ns) => isInZone(ns, name));
    const addresses = this.defaults.nameserverAddresses;
    if (inside.length > 0 && addresses.length === 0)
      throw apiError(
        'CONFLICT',
        `zone ${name} would be served by ${inside.join(', ')}, inside the zone itself, and no address is configured for it: ` +
          'set DNS_API_NAMESERVER_ADDRESSES (its A/AAAA records) or DNS_API_NAMESERVERS (name servers outside the zone)',
      );
    return [
      ...nameservers.map((ns): RecordData => ({ name, type: 'NS', ttl, value: `${ns}.` })),
      ...inside.flatMap((ns) =>
        addresses.map((address): RecordData => {
          const type = isIP(address) === 6 ? 'AAAA' : 'A';
          return { name: ns, type, ttl, value: parseValue(type, address) };
        }),
      ),
    ];
  }

  async update(
    name: string,
    patch: ZoneSettingsInput,
    ifMatch: string | null | undefined,
    by: string,
  ): Promise<ZoneView> {
    const zoneName = zoneRef(name);
    const problems = settingsProblems(patch, (f) => f);
    if (problems.length) throw invalidFields(problems);
    const changes: Partial<ZoneSettings> = {};
    if (patch.adminEmail !== undefined && patch.adminEmail !== null) changes.adminEmail = patch.adminEmail;
    for (const key of NUMBER_FIELDS) {
      const value = patch[key];
      if (value !== undefined && value !== null) changes[key] = value;
    }
    if (Object.keys(changes).length === 0)
      throw invalid(
        'input',
        'nothing to change: give at least one of adminEmail, refresh, retry, expire, minimum, defaultTtl',
      );
    const zone = await this.writes.run(zoneName, async () => {
      const seen = await this.checkEtag(zoneName, ifMatch);
      const updated = await this.conditional(zoneName, ifMatch, () =>
        this.store.updateZone(zoneName, changes, conditionOf(seen, ifMatch)),
      );
      this.feed.attribute(zoneName, updated.serial, by);
      await this.serving.served(zoneName, updated.serial);
      return updated;
    });
    return this.view(zone);
  }

  async delete(name: string, ifMatch: string | null | undefined, by: string): Promise<void> {
    const zoneName = zoneRef(name);
    await this.writes.run(zoneName, async () => {
      const zone = await this.checkEtag(zoneName, ifMatch);
      this.feed.attribute(zoneName, zone.serial, by, 'zone-deleted');
      const deleted = await this.conditional(zoneName, ifMatch, () =>
        this.store.deleteZone(zoneName, conditionOf(zone, ifMatch)),
      );
      if (!deleted) throw apiError('NOT_FOUND', `no zone ${zoneName}`);
      await this.serving.served(zoneName, null);
    });
  }

  /** The zone as a master file, made in steps that stop once `signal` fires (nobody awaits the file any more). */
  async export(name: string, signal?: AbortSignal): Promise<string> {
    const zoneName = zoneRef(name);
    try {
      return await asApi(() => exportZoneFile(this.store, zoneName, signal));
    } catch (err) {
      // A zone stored before its names were checked: its SOA cannot be written, which is no server fault.
      if (err instanceof ZoneNameError)
        throw apiError('CONFLICT', `zone ${zoneName} cannot be exported: ${err.message}; delete it and create it anew`);
      throw err;
    }
  }

  /**
   * The zone, after checking an If-Match against its ETag (412 when it changed since). The write then passes the
   * version read as its condition, so a change committed in between (by any process) is a 412 too.
   */
  private async checkEtag(zoneName: string, ifMatch: string | null | undefined): Promise<Zone> {
    const zone = await asApi(() => this.store.getZone(zoneName));
    if (!zone) throw apiError('NOT_FOUND', `no zone ${zoneName}`);
    if (ifMatch !== undefined && ifMatch !== null && !etagMatches(ifMatch, zoneEtag(zone)))
      throw staleZone(zoneName, ifMatch);
    return zone;
  }

  /** A conditional write: a condition that failed in the store is the same 412 as the check before it. */
  private async conditional<T>(
    zoneName: string,
    ifMatch: string | null | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof StoreError && err.code === 'PRECONDITION_FAILED' && ifMatch !== undefined && ifMatch !== null)
        throw staleZone(zoneName, ifMatch);
      throw apiErrorOf(err);
    }
  }
}

const staleZone = (zoneName: string, ifMatch: string) =>
  apiError('PRECONDITION_FAILED', `zone ${zoneName} changed since it was read (If-Match ${ifMatch} does not match)`);

/** The store condition of a write with If-Match: the zone's version as read (none without If-Match, or for `*`). */
function conditionOf(zone: Zone, ifMatch: string | null | undefined): ZoneWriteOptions {
  return !versionWanted(ifMatch) ? {} : { ifVersion: { serial: zone.serial, updatedAt: zone.updatedAt } };
}

/** Whether an If-Match asks for the version read (a list of tags), not just for something to exist (`*`, none). */
export function versionWanted(ifMatch: string | null | undefined): ifMatch is string {
  return ifMatch !== undefined && ifMatch !== null && !ifMatch.split(',').some((t) => t.trim() === '*');
}

/** If-Match: `*` or a list of entity tags, any of which may match (weak tags never match a strong comparison). */
export function etagMatches(ifMatch: string, etag: string): boolean {
  const wanted = ifMatch.split(',').map((t) => t.trim());
  return wanted.includes('*') || wanted.includes(etag);
}
