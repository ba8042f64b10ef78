import { isIP } from 'node:net';
import { hostPort, type SecondaryStatus } from '../../../dns/engine';
import type { SecondaryZoneRow, ZoneStore } from '../../../dns/store';
import { apiError, asApi, invalid, type FieldError, invalidFields } from '../errors';
import { zoneNameArg } from './zones';

/** What the secondary zones need of the DNS engine (this replica's). */
export interface SecondaryEngine {
  /** Every secondary zone this server knows, with how its transfers go here. */
  secondaryStatus(): SecondaryStatus[];
  /** Where a secondary zone comes from; null: it is none. */
  secondaryOrigin(zone: string): 'configuration' | 'store' | null;
  /** Why this server cannot serve `row` (answer workers on, an unknown TSIG key), or null. */
  secondaryProblem(row: Pick<SecondaryZoneRow, 'name' | 'tsigKey'>): string | null;
  /** Brings the engine in line with the store's secondary zones (after a change made here). */
  syncSecondaryZones(): Promise<void>;
}

/** A secondary zone as the API shows it: its definition and, from this server, how its transfers go. */
export interface SecondaryZoneView {
  name: string;
  /** `address:port` (an IPv6 address in brackets). */
  primary: string;
  tsigKey: string | null;
  /** `api`: added through the API (held in the store, every replica serves it); `configuration`: DNS_SECONDARY_ZONES. */
  origin: 'api' | 'configuration';
  createdAt: string | null;
  serial: number | null;
  refreshedAt: string | null;
  /** Not answered (SERVFAIL): never transferred, or past its SOA expire time. */
  expired: boolean;
  error: string | null;
  errorAt: string | null;
}

export interface CreateSecondaryZone {
  name?: unknown;
  primary?: unknown;
  tsigKey?: unknown;
}

/** `address:port` or `[v6]:port`. */
const PRIMARY = /^(?:\[([^\]\s]+)\]|([^:\s[\]]+)):([0-9]{1,5})$/;
const PRIMARY_FORM = 'address:port, e.g. 192.0.2.1:53 or [2001:db8::1]:53';

/**
 * Zones this server serves as a secondary of another server (RFC 1034 §4.3.5): added and removed through the API,
 * kept in the store so that every replica of one database serves them, each replica transferring from the primary
 * itself. Those of the configuration (DNS_SECONDARY_ZONES) are listed too, but changed only there.
 */
export class SecondaryZoneService {
  constructor(
    private readonly store: ZoneStore,
    private readonly engine: SecondaryEngine,
  ) {}

  async list(): Promise<SecondaryZoneView[]> {
    const rows = await asApi(() => this.store.listSecondaryZones());
    const status = new Map(this.engine.secondaryStatus().map((s) => [s.zone, s]));
    const views = rows.map((row) => view(row, 'api', status.get(row.name)));
    for (const s of status.values())
      if (this.engine.secondaryOrigin(s.zone) === 'configuration')
        views.push(view({ name: s.zone, primary: s.primary, tsigKey: s.key, createdAt: null }, 'configuration', s));
    return views.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async get(name: string): Promise<SecondaryZoneView | null> {
    const zone = zoneNameArg(name.toLowerCase());
    return (await this.list()).find((z) => z.name === zone) ?? null;
  }

  /** Adds a secondary zone (CONFLICT when the name is taken: by a zone of the store, or a secondary zone). */
  async create(input: CreateSecondaryZone): Promise<SecondaryZoneView> {
    const problems: FieldError[] = [];
    let name = '';
    try {
      name = zoneNameArg(input.name);
    } catch (err) {
      problems.push(firstField(err, 'name'));
    }
    const primary = parsePrimary(input.primary, problems);
    let tsigKey: string | null = null;
    if (input.tsigKey !== undefined && input.tsigKey !== null) {
      try {
        tsigKey = zoneNameArg(input.tsigKey, 'tsig_key');
      } catch (err) {
        problems.push(firstField(err, 'tsig_key'));
      }
    }
    if (problems.length) throw invalidFields(problems);
    if (this.engine.secondaryOrigin(name) === 'configuration')
      throw apiError('CONFLICT', `zone ${name} is a secondary zone already (DNS_SECONDARY_ZONES)`);
    const problem = this.engine.secondaryProblem({ name, tsigKey });
    if (problem !== null) {
      if (problem.startsWith('TSIG key')) throw invalid('tsig_key', problem);
      throw apiError('CONFLICT', `zone ${name} cannot be served as a secondary here: ${problem}`);
    }
    const row = await asApi(() =>
      this.store.addSecondaryZone({ name, primaryHost: primary!.host, primaryPort: primary!.port, tsigKey }),
    );
    await this.engine.syncSecondaryZones();
    const status = this.engine.secondaryStatus().find((s) => s.zone === name);
    return view(row, 'api', status);
  }

  /** Stops serving a secondary zone added through the API (NOT_FOUND: none; CONFLICT: one of the configuration). */
  async delete(name: string): Promise<void> {
    const zone = zoneNameArg(name.toLowerCase());
    if (this.engine.secondaryOrigin(zone) === 'configuration')
      throw apiError(
        'CONFLICT',
        `zone ${zone} is a secondary zone of the configuration (DNS_SECONDARY_ZONES): remove it there and restart`,
      );
    const removed = await asApi(() => this.store.removeSecondaryZone(zone));
    if (!removed) throw apiError('NOT_FOUND', `no secondary zone ${zone}`);
    await this.engine.syncSecondaryZones();
  }
}

function view(
  row: Pick<SecondaryZoneRow, 'name' | 'tsigKey'> & { createdAt: string | null } & (
      { primaryHost: string; primaryPort: number } | { primary: string }
    ),
  origin: SecondaryZoneView['origin'],
  status: SecondaryStatus | undefined,
): SecondaryZoneView {
  const primary = 'primary' in row ? row.primary : hostPort(row.primaryHost, row.primaryPort);
  return {
    name: row.name,
    primary,
    tsigKey: row.tsigKey,
    origin,
    createdAt: row.createdAt,
    serial: status?.serial ?? null,
    refreshedAt: status?.refreshedAt ?? null,
    expired: status ? status.expired : true,
    error: status?.error ?? (status ? null : 'not served by this server yet'),
    errorAt: status?.errorAt ?? null,
  };
}

/** The primary's address and port, or a problem noted for the `primary` field. */
function parsePrimary(input: unknown, problems: FieldError[]): { host: string; port: number } | undefined {
  if (typeof input !== 'string' || input === '') {
    problems.push({ field: 'primary', message: `primary is required: ${PRIMARY_FORM}` });
    return undefined;
  }
  const match = PRIMARY.exec(input.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined) {
    problems.push({
      field: 'primary',
      message: `primary must be ${PRIMARY_FORM} (got ${JSON.stringify(input.slice(0, 80))})`,
    });
    return undefined;
  }
  const family = isIP(host);
  if (family === 0) {
    problems.push({ field: 'primary', message: `primary must be an IP address and port (${host} is no IP address)` });
    return undefined;
  }
  if ((family === 6) !== (match[1] !== undefined)) {
    problems.push({
      field: 'primary',
      message: `primary: an IPv6 address is written in brackets ([${host}]:port), an IPv4 one without`,
    });
    return undefined;
  }
  if (!(port >= 1 && port <= 65535)) {
    problems.push({ field: 'primary', message: `primary: the port must be from 1 to 65535 (got ${match[3]})` });
    return undefined;
  }
  return { host, port };
}

/** The field error an invalid() GraphQLError carries, for collecting several. */
function firstField(err: unknown, field: string): FieldError {
  const errors = (err as { extensions?: { errors?: FieldError[] } }).extensions?.errors;
  if (errors?.[0]) return errors[0];
  if (err instanceof Error) return { field, message: err.message };
  throw err;
}
