import { Arg, Ctx, Directive, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { shownRoles } from '../auth';
import { loggedIn, type DnsToolContext } from '../context';
import { asTool } from '../errors';
import type { ToolRow } from '../tool/rows';
import { tokenUser } from '../tool/tokens';
import type { ToolZone } from '../tool/service';
import { ToolLoginResult, ToolRecord, ToolRecordInput, ToolReplaceInput, ToolResult, ToolSession, Zone } from './types';

/** A configured zone as the graph shows it. */
export function zoneOf(zone: ToolZone): Zone {
  return {
    name: zone.name,
    updateServer: zone.updateServerText,
    transferServer: zone.transferServerText,
    readOnly: zone.readOnly,
    note: zone.note ?? null,
    maintenanceNote: zone.maintenanceNote ?? null,
    inTransfer: zone.inTransfer ?? null,
  };
}

const recordOf = ([name, ttl, klass, type, value]: ToolRow): ToolRecord => ({
  name,
  ttl: Number(ttl),
  class: klass,
  type,
  value,
});

/** Zones, records and the tool's version: what `/api.php` reads. */
@Resolver()
export class ToolQueryResolver {
  @Query(() => String, { description: 'DNS tool: its version.' })
  toolVersion(@Ctx() ctx: DnsToolContext): string {
    ctx.cacheHint.restrict(3600);
    return ctx.dnsTool.version;
  }

  @Query(() => ToolSession, {
    description: 'DNS tool: whether the caller is logged in (session id, API token or DNS API token as Bearer).',
  })
  async toolSession(@Ctx() ctx: DnsToolContext): Promise<ToolSession> {
    const caller = await asTool(() => ctx.caller());
    if (!caller) return { loggedIn: false, user: null, roles: null };
    return { loggedIn: true, user: caller.user, roles: shownRoles(caller.grant) };
  }

  // Not paged: the zones come from the configuration or the embedded server's zones (made by its admins).
  @Directive('@listSize(assumedSize: 100)')
  @Query(() => [Zone], { description: 'DNS tool: the zones it manages that the caller may read.' })
  async toolZones(@Ctx() ctx: DnsToolContext): Promise<Zone[]> {
    const caller = await loggedIn(ctx);
    return ctx.dnsTool.tool.readableZones(caller).map(zoneOf);
  }

  // A zone transfer cannot be paged (AXFR sends the whole zone): weighed as one, a zone assumed to be 10 000 records
  // read whatever is asked of each, plus what is asked; its time is bounded by the request's deadline.
  @Directive('@cost(weight: 10000)')
  @Directive('@listSize(assumedSize: 10000)')
  @Query(() => [ToolRecord], {
    description:
      'DNS tool: every record of a zone by zone transfer, SOA first and last; a zone the caller may not read is ' +
      'a "Permission denied" error.',
  })
  async toolRecords(
    @Arg('zone', () => String, { nullable: true }) zone: string | null,
    @Ctx() ctx: DnsToolContext,
  ): Promise<ToolRecord[]> {
    const caller = await loggedIn(ctx);
    return (await asTool(() => ctx.dnsTool.tool.listRecords(caller, zone ?? undefined, ctx.signal))).map(recordOf);
  }

  // Bounded by one DNS answer (one RRset, or a CNAME chain): the cost limit's default list size.
  @Query(() => [ToolRecord], {
    description:
      "DNS tool: a DNS query of `type` at the name, sent to the zone's transfer server (CNAME chains give several rows).",
  })
  async toolRecord(
    @Arg('record', () => String, { description: 'An FQDN, or relative to `zone`.' }) record: string,
    @Arg('type', () => String, { defaultValue: 'A' }) type: string,
    @Arg('zone', () => String, { nullable: true }) zone: string | null,
    @Ctx() ctx: DnsToolContext,
  ): Promise<ToolRecord[]> {
    const caller = await loggedIn(ctx);
    const rows = await asTool(() =>
      ctx.dnsTool.tool.getRecord(caller, { record, type, ...(zone === null ? {} : { zone }) }),
    );
    return rows.map(recordOf);
  }

  @Query(() => String, { description: 'DNS tool: the configured zone a name belongs to (the longest suffix).' })
  toolZoneForFqdn(@Arg('fqdn', () => String) fqdn: string, @Ctx() ctx: DnsToolContext): Promise<string> {
    return asTool(() => ctx.dnsTool.tool.zoneForFqdn(fqdn).zone);
  }
}

/** The DNS tool's fields of the Zone entity. */
@Resolver(() => Zone)
export class ToolZoneResolver {
  // A zone transfer, weighed as toolRecords is.
  @Directive('@cost(weight: 10000)')
  @Directive('@listSize(assumedSize: 10000)')
  @FieldResolver(() => [ToolRecord], {
    nullable: true,
    description: 'DNS tool: every record by zone transfer (null when the tool does not manage the zone).',
  })
  async transferRecords(@Root() zone: Zone, @Ctx() ctx: DnsToolContext): Promise<ToolRecord[] | null> {
    const caller = await loggedIn(ctx);
    if (!ctx.dnsTool.tool.zone(caller, zone.name)) return null;
    return (await asTool(() => ctx.dnsTool.tool.listRecords(caller, zone.name, ctx.signal))).map(recordOf);
  }
}

/** Logins and record changes. */
@Resolver()
export class ToolMutationResolver {
  @Mutation(() => ToolLoginResult, { description: 'DNS tool: log in with a user name and password (file or LDAP).' })
  async toolLogin(
    @Arg('username', () => String, { nullable: true }) username: string | null,
    @Arg('password', () => String, { nullable: true }) password: string | null,
    @Ctx() ctx: DnsToolContext,
  ): Promise<ToolLoginResult> {
    const before = await ctx.caller().catch(() => null);
    const sessionId = await audited(ctx, username ?? '', () =>
      ctx.dnsTool.auth.loginPassword(username ?? undefined, password ?? undefined, ctx.clientAddress),
    );
    return { sessionId, warnings: before ? [alreadyLoggedIn(before.user)] : [] };
  }

  @Mutation(() => ToolLoginResult, { description: 'DNS tool: log in with an API token.' })
  async toolLoginToken(
    @Arg('token', () => String, { nullable: true }) token: string | null,
    @Ctx() ctx: DnsToolContext,
  ): Promise<ToolLoginResult> {
    const before = await ctx.caller().catch(() => null);
    const sessionId = await audited(ctx, tokenUser(token ?? ''), () =>
      ctx.dnsTool.auth.loginToken(token ?? undefined, ctx.clientAddress),
    );
    return { sessionId, warnings: before ? [alreadyLoggedIn(before.user)] : [] };
  }

  @Mutation(() => ToolResult, { description: 'DNS tool: end the session (its id stops working).' })
  async toolLogout(@Ctx() ctx: DnsToolContext): Promise<ToolResult> {
    const caller = await loggedIn(ctx);
    await ctx.dnsTool.auth.logout(caller);
    return { success: true, warnings: [] };
  }

  @Mutation(() => ToolResult, { description: 'DNS tool: add a record (one RFC 2136 UPDATE).' })
  async toolCreateRecord(@Arg('input', () => ToolRecordInput) input: ToolRecordInput, @Ctx() ctx: DnsToolContext) {
    const caller = await loggedIn(ctx);
    const { warnings } = await asTool(() =>
      ctx.dnsTool.tool.create(caller, { ...changeOf(input), ttl: input.ttl === undefined ? '' : String(input.ttl) }),
    );
    return { success: true, warnings };
  }

  @Mutation(() => ToolResult, { description: 'DNS tool: delete a record, or the whole set of a type at a name.' })
  async toolDeleteRecord(@Arg('input', () => ToolRecordInput) input: ToolRecordInput, @Ctx() ctx: DnsToolContext) {
    const caller = await loggedIn(ctx);
    const { warnings } = await asTool(() => ctx.dnsTool.tool.delete(caller, changeOf(input)));
    return { success: true, warnings };
  }

  @Mutation(() => ToolResult, {
    description: 'DNS tool: replace a record in one UPDATE (no moment without a record at the name).',
  })
  async toolReplaceRecord(
    @Arg('input', () => ToolReplaceInput) input: ToolReplaceInput,
    @Ctx() ctx: DnsToolContext,
  ): Promise<ToolResult> {
    const caller = await loggedIn(ctx);
    const { warnings } = await asTool(() =>
      ctx.dnsTool.tool.replace(caller, {
        ...changeOf(input),
        ttl: String(input.ttl),
        newValue: input.newValue,
        ...(input.newRecord ? { newRecord: input.newRecord } : {}),
        ...(input.newType ? { newType: input.newType } : {}),
      }),
    );
    return { success: true, warnings };
  }
}

function changeOf(input: ToolRecordInput | ToolReplaceInput) {
  return {
    record: input.record,
    type: input.type,
    ptr: input.ptr ?? false,
    ...(input.zone ? { zone: input.zone } : {}),
    ...(input.value !== undefined && input.value !== null ? { value: input.value } : {}),
    ...(input.comment ? { comment: input.comment } : {}),
  };
}

/** A login, with its audit line (`login_success` or `login_fail`). */
async function audited(ctx: DnsToolContext, user: string, login: () => Promise<string>): Promise<string> {
  const entry = { user, ip: ctx.clientAddress ?? 'unknown' };
  try {
    const sessionId = await asTool(login);
    ctx.dnsTool.audit({ ...entry, operation: 'login_success' });
    return sessionId;
  } catch (err) {
    ctx.dnsTool.audit({ ...entry, operation: 'login_fail' });
    throw err;
  }
}

function alreadyLoggedIn(user: string): string {
  return `You were already logged in as ${user}: that login was replaced by this one`;
}
