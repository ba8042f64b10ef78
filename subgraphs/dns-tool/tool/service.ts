import { DnsClient, DnsClientError, type ServerAddress, type UpdateOperation } from '../../../dns/client';
import type { TsigKey } from '../../../dns/tsig';
import { canRead, canWrite, type Grant, type RoleSettings } from './access';
import {
  planCreate,
  planDelete,
  planReplace,
  presentationValue,
  ptrStepFailed,
  type ChangePlan,
  type ZoneUpdate,
} from './changes';
import { editableType, toolErrors, ttlOf, type EditableType } from '../protocol';
import { parseValue, RecordValueError } from '../../../dns/records';
import { isInZone, wireName } from '../../../dns/model';
import { isValidHostname, recordFqdn, zoneOfName } from './hostnames';
import { toolRow, type ToolRow } from './rows';
import type { AuditOperation } from './audit';

/** A zone the tool manages: where its updates and transfers go, with which key, and what the list shows of it. */
export interface ToolZone {
  name: string;
  updateServer: ServerAddress;
  /** As configured (`host port`), for list_zones. */
  updateServerText: string;
  transferServer: ServerAddress;
  transferServerText: string;
  key?: TsigKey;
  readOnly: boolean;
  note?: string;
  maintenanceNote?: string;
  inTransfer?: boolean;
}

/** A logged-in caller: the user (for audit lines) and their roles. */
export interface ToolCaller {
  user: string;
  grant: Grant;
  /** The client's address, for audit lines. */
  address?: string;
  /** The request's event id, shared by its audit lines. */
  eid?: string;
}

/** One audited change, as the audit line shows it. */
export interface AuditEntry {
  eid?: string;
  user: string;
  ip: string;
  operation: AuditOperation;
  record?: string;
  comment?: string;
}

export interface ToolServiceOptions {
  /** How long one DNS exchange may take. */
  timeoutMs?: number;
  /** Called for every change sent (after the server accepted it). */
  audit?: (entry: AuditEntry) => void;
}

export interface ChangeParams {
  record: string;
  type: string;
  zone?: string;
  ttl?: string;
  value?: string;
  ptr: boolean;
  /** For the audit line. */
  comment?: string;
}

export interface ReplaceParams extends ChangeParams {
  ttl: string;
  newValue: string;
  newRecord?: string;
  newType?: string;
}

/**
 * The DNS tool's actions on its configured zones, spoken natively to their DNS servers (queries, RFC 2136 UPDATE,
 * AXFR, each with the zone's TSIG key). Interface-free: the GraphQL subgraph and `/api.php` both call it.
 */
export class ToolService {
  private zones: ReadonlyMap<string, ToolZone> = new Map();
  /** The zone a name belongs to among the configured ones (also the reverse zones of PTR steps). */
  private findZone: (fqdn: string) => string | null = () => null;

  constructor(
    zones: Iterable<ToolZone>,
    private readonly roles: RoleSettings,
    private readonly options: ToolServiceOptions = {},
  ) {
    this.setZones(zones);
  }

  /** The zones it manages from now on (the embedded server's zones change as zones are created and deleted). */
  setZones(zones: Iterable<ToolZone>): void {
    const byName = new Map([...zones].map((z) => [wireName(z.name), z]));
    const names = [...byName.values()].map((z) => z.name);
    this.zones = byName;
    this.findZone = (fqdn) => zoneOfName(fqdn, names);
  }

  get zoneCount(): number {
    return this.zones.size;
  }

  /** A configured zone the caller may read, or null. */
  zone(caller: ToolCaller, name: string): ToolZone | null {
    const zone = this.zones.get(wireName(name));
    return zone && canRead(this.roles, caller.grant, zone.name) ? zone : null;
  }

  /** The configured zones the caller may read, in configuration order. */
  readableZones(caller: ToolCaller): ToolZone[] {
    return [...this.zones.values()].filter((z) => canRead(this.roles, caller.grant, z.name));
  }

  /**
   * Every record by zone transfer, SOA first and last. A zone the caller may not read is "Permission denied", as
   * get_record says (the original answered [], which a client cannot tell from an empty zone: docs/dns-tool.md). The
   * transfer stops (its connection closed) when `signal` fires: nobody awaits the zone any more.
   */
  async listRecords(caller: ToolCaller, zoneName: string | undefined, signal?: AbortSignal): Promise<ToolRow[]> {
    if (!zoneName) throw toolErrors.noZone();
    const zone = this.zones.get(wireName(zoneName));
    if (!zone) throw toolErrors.zoneNotConfigured();
    if (!canRead(this.roles, caller.grant, zone.name)) throw toolErrors.cannotRead();
    // rows made as records arrive: the zone is held once, as rows
    const rows: ToolRow[] = [];
    const { soa } = await this.dns(
      () =>
        this.client(zone, 'transfer').transferEach(zone.name, (r) => rows.push(toolRow(r)), signal ? { signal } : {}),
      (why) => `Unable to retrieve SOA record for ${zone.name}: ${why}`,
    );
    const first = toolRow(soa);
    rows.push(first);
    rows.unshift([...first]);
    return rows;
  }

  /** A DNS query for `type` at the name, sent to the zone's transfer server. Checks: name → type → zone → right. */
  async getRecord(caller: ToolCaller, params: { record: string; type?: string; zone?: string }): Promise<ToolRow[]> {
    // Checked before the name is made absolute: get_record names the bad name (create's message does not).
    if (!isValidHostname(params.record) && params.record !== '@') throw toolErrors.invalidHostname(params.record);
    const name = params.zone === undefined ? params.record : recordFqdn(params.record, params.zone);
    const type = editableType(params.type ?? 'A');
    const zone = this.zoneFor(wireName(name), params.zone);
    if (!canRead(this.roles, caller.grant, zone.name)) throw toolErrors.cannotRead();
    const answer = await this.dns(
      () => this.client(zone, 'transfer').query(wireName(name), type),
      (why) => `query failed: ${why}`,
    );
    return answer.rcode === 0 ? answer.answers.map(toolRow) : [];
  }

  zoneForFqdn(fqdn: string): { zone: string } {
    const zone = this.findZone(fqdn);
    if (zone === null) throw toolErrors.noZoneForFqdn();
    return { zone };
  }

  async create(caller: ToolCaller, p: ChangeParams): Promise<{ warnings: string[] }> {
    const type = editableType(p.type);
    const ttl = ttlOf(p.ttl ?? '');
    const fqdn = recordFqdn(p.record, p.zone);
    const zone = this.writable(caller, fqdn, p.zone);
    checkValue(type, p.value ?? '', 'value');
    const plan = planCreate({ zone: zone.name, fqdn, type, ttl, value: p.value ?? '', ptr: p.ptr }, this.findZone);
    return this.apply(caller, plan, 'create', p.comment);
  }

  async delete(caller: ToolCaller, p: ChangeParams): Promise<{ warnings: string[] }> {
    const type = editableType(p.type);
    const fqdn = recordFqdn(p.record, p.zone);
    const zone = this.writable(caller, fqdn, p.zone);
    const value = p.value === undefined || p.value === '' ? undefined : p.value;
    if (value !== undefined) checkValue(type, value, 'value');
    const plan = planDelete(
      { zone: zone.name, fqdn, type, ...(value === undefined ? {} : { value }), ptr: p.ptr },
      this.findZone,
    );
    return this.apply(caller, plan, 'delete', p.comment);
  }

  async replace(caller: ToolCaller, p: ReplaceParams): Promise<{ warnings: string[] }> {
    const type = editableType(p.type);
    const newType = editableType(p.newType ?? p.type);
    const ttl = ttlOf(p.ttl);
    const fqdn = recordFqdn(p.record, p.zone);
    const newFqdn = p.newRecord ? recordFqdn(p.newRecord, p.zone) : fqdn;
    const zone = this.writable(caller, fqdn, p.zone);
    // Renaming works only inside one zone: the new name must be in the same zone (also a new name written absolute
    // next to a given zone, which zoneFor does not look at).
    if (!isInZone(newFqdn, wireName(zone.name)) || this.zoneFor(newFqdn, p.zone).name !== zone.name)
      throw toolErrors.cannotEdit(newFqdn);
    const value = p.value === undefined || p.value === '' ? undefined : p.value;
    if (value !== undefined) checkValue(type, value, 'value');
    checkValue(newType, p.newValue, 'newValue');
    const plan = planReplace(
      {
        zone: zone.name,
        fqdn,
        type,
        ...(value === undefined ? {} : { value }),
        newFqdn,
        newType,
        ttl,
        newValue: p.newValue,
        ptr: p.ptr,
      },
      this.findZone,
    );
    return this.apply(caller, plan, 'replace', p.comment);
  }

  /** Sends the main UPDATE, then each PTR step; PTR zones are checked before anything is sent. */
  private async apply(
    caller: ToolCaller,
    plan: ChangePlan,
    kind: 'create' | 'delete' | 'replace',
    comment: string | undefined,
  ): Promise<{ warnings: string[] }> {
    const ptrZones = plan.ptr.map((step) => this.writable(caller, step.zone, step.zone));
    await this.dns(
      () => this.send(plan.main),
      (why) => `update failed: ${why}`,
    );
    this.audit(caller, plan.main.operations, kind, comment);
    for (const [i, step] of plan.ptr.entries()) {
      try {
        await this.send(step, ptrZones[i]);
      } catch (err) {
        throw ptrStepFailed(err instanceof DnsClientError ? `update failed: ${dnsReason(err)}` : String(err));
      }
      this.audit(caller, step.operations, kind, comment);
    }
    return { warnings: plan.warnings };
  }

  /** One audit line per operation sent: replace's removal and addition each get theirs. */
  private audit(
    caller: ToolCaller,
    operations: readonly UpdateOperation[],
    kind: 'create' | 'delete' | 'replace',
    comment: string | undefined,
  ): void {
    const audit = this.options.audit;
    if (!audit) return;
    for (const op of operations) {
      const adding = op.op === 'add';
      const operation: AuditOperation =
        kind === 'replace' ? (adding ? 'replace_create' : 'replace_delete') : adding ? 'create' : 'delete';
      audit({
        ...(caller.eid ? { eid: caller.eid } : {}),
        user: caller.user,
        ip: caller.address ?? 'unknown',
        operation,
        record: operationText(op),
        ...(comment ? { comment } : {}),
      });
    }
  }

  private send(update: ZoneUpdate, zone = this.zones.get(wireName(update.zone))): Promise<void> {
    if (!zone) throw toolErrors.noSuchZone(update.zone);
    return this.client(zone, 'update').update(zone.name, update.operations);
  }

  /** The configured zone of a name: the given one (which must be configured), else the longest suffix. */
  private zoneFor(fqdn: string, given: string | undefined): ToolZone {
    if (given !== undefined) {
      const zone = this.zones.get(wireName(given));
      if (!zone) throw toolErrors.noSuchZone(given);
      return zone;
    }
    const name = this.findZone(fqdn);
    const zone = name === null ? undefined : this.zones.get(wireName(name));
    if (!zone) throw toolErrors.noZoneForFqdn();
    return zone;
  }

  private writable(caller: ToolCaller, fqdn: string, given: string | undefined): ToolZone {
    const zone = this.zoneFor(fqdn, given);
    if (zone.readOnly) throw toolErrors.readOnly(zone.name);
    if (!canWrite(this.roles, caller.grant, zone.name)) throw toolErrors.cannotEdit(zone.name);
    return zone;
  }

  private client(zone: ToolZone, role: 'update' | 'transfer'): DnsClient {
    return new DnsClient({
      server: role === 'update' ? zone.updateServer : zone.transferServer,
      ...(zone.key ? { key: zone.key } : {}),
      timeoutMs: this.options.timeoutMs ?? 5000,
    });
  }

  /** A DNS failure as the tool's `ERROR:` error, saying what the server answered. */
  private async dns<T>(fn: () => Promise<T>, say: (why: string) => string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof DnsClientError) throw toolErrors.dns(say(dnsReason(err)));
      throw err;
    }
  }
}

/** A value in RFC 3597 generic form (`\\# <length> <hex>`): the DNS client checks those itself. */
const GENERIC_RDATA = /^\\#\s/;

/**
 * Refuses, before any UPDATE is built, a value no UPDATE can carry (an A of `300.1.2.3`): the same check the DNS
 * client makes when it encodes the value (dns/records, master syntax, letter case kept), so nothing it would take is
 * refused, and the caller hears it as bad input naming the field rather than as a failure of the DNS side.
 */
function checkValue(type: EditableType, value: string, field: 'value' | 'newValue'): void {
  const sent = presentationValue(type, value);
  if (GENERIC_RDATA.test(sent.trim())) return;
  try {
    parseValue(type, sent, '', { syntax: 'master', keepCase: true });
  } catch (err) {
    if (err instanceof RecordValueError) throw toolErrors.badValue(field, err.message);
    throw err;
  }
}

/** What the server answered (`REFUSED`, `NOTAUTH (BADSIG)`), or what went wrong on the way (timeout, refused). */
function dnsReason(err: DnsClientError): string {
  if (err.kind === 'rcode') return err.tsigError ? `${err.rcode ?? ''} (${err.tsigError})` : (err.rcode ?? err.message);
  return err.message;
}

/** An UPDATE operation as the audit line shows it: `name ttl type value`, `name type value`, `name type`. */
function operationText(op: UpdateOperation): string {
  switch (op.op) {
    case 'add':
      return `${op.name} ${op.ttl} ${op.type} ${op.value}`;
    case 'deleteRecord':
      return `${op.name} ${op.type} ${op.value}`;
    case 'deleteRRset':
      return `${op.name} ${op.type}`;
    case 'deleteName':
      return op.name;
  }
}
