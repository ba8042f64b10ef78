import {
  Arg,
  Ctx,
  Directive,
  FieldResolver,
  ID,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
  Subscription,
} from 'type-graphql';
import { LONG_RUNNING } from '../../long-running';
import { asApi } from '../errors';
import { allowed, type DnsApiContext } from '../context';
import type { User as StoredUser } from '../identity';
import { DEFAULT_RECORD_PAGE, MAX_RECORD_PAGE, type BatchOperation } from '../service/records';
import type { ZoneChange as FeedChange } from '../service/changes';
import type { RolloverResult as RolloverView, DnssecStatus as StatusView } from '../service/dnssec';
import type { SecondaryZoneView } from '../service/secondary-zones';
import { zoneEtag, zoneNameArg, zoneRef, type ZoneView } from '../service/zones';
import type { Zone as StoredZone } from '../../../dns/model';
import {
  BatchOperationInput,
  BatchOperationKind,
  BatchResult,
  CreateRecordInput,
  CreateSecondaryZoneInput,
  CreateUserInput,
  CreateZoneInput,
  DeleteResult,
  DnsRecordType,
  DnssecDenial,
  DnssecInput,
  DnssecKeyState,
  DnssecKeyType,
  DnssecRollover,
  DnssecStatus,
  JsonWebKeySet,
  LoginResult,
  RecordPage,
  SecondaryZone,
  SecondaryZoneOrigin,
  SigningKeyInfo,
  SigningKeyRotation,
  UpdateRecordInput,
  UpdateUserInput,
  UpdateZoneInput,
  User,
  UserRole,
  Zone,
  ZoneChange,
  ZoneChangeKind,
  ZoneFilePage,
} from './types';

const userOf = (user: StoredUser): User => ({ ...user, role: user.role as UserRole });

/** The service's DNSSEC status in the schema's types (its key types and states are the enums' values). */
export const dnssecOf = (status: StatusView): DnssecStatus => ({
  ...status,
  denial: status.denial as DnssecDenial | null,
  keys: status.keys.map((k) => ({
    ...k,
    keyType: k.keyType as DnssecKeyType,
    state: k.state as DnssecKeyState,
  })),
  rollovers: status.rollovers.map((r) => ({ ...r, keyType: r.keyType as DnssecKeyType })),
});

/** A rollover just started, as GraphQL gives it. */
export const rolloverOf = (r: RolloverView): DnssecRollover => ({ ...r, keyType: r.keyType as DnssecKeyType });

/** A zone as a query or mutation returned it: the service's view already holds its derived fields. */
const isView = (zone: StoredZone | ZoneView): zone is ZoneView =>
  'nameservers' in zone && 'dnssecEnabled' in zone && 'etag' in zone;

/** Login, the caller's own user and password, and the public keys tokens are signed with. */
@Resolver()
export class AuthResolver {
  @Mutation(() => LoginResult, {
    description: 'A token for the DNS API (failures are throttled per user name and per client address).',
  })
  async login(
    @Arg('username', () => String) username: string,
    @Arg('password', () => String) password: string,
    @Ctx() ctx: DnsApiContext,
  ): Promise<LoginResult> {
    const issued = await asApi(() => ctx.api.identity.login(username, password, ctx.clientAddress ?? 'unknown'));
    return { token: issued.token, expiresAt: issued.expiresAt };
  }

  @Query(() => User, { description: 'The calling user.' })
  async me(@Ctx() ctx: DnsApiContext): Promise<User> {
    const caller = await allowed(ctx, 'read');
    return userOf(await asApi(() => ctx.api.identity.me(caller)));
  }

  @Mutation(() => LoginResult, {
    description: "Changes the caller's password; tokens issued before stop working, a new one is returned.",
  })
  async changeMyPassword(
    @Arg('currentPassword', () => String) currentPassword: string,
    @Arg('newPassword', () => String) newPassword: string,
    @Ctx() ctx: DnsApiContext,
  ): Promise<LoginResult> {
    const caller = await allowed(ctx, 'read');
    const issued = await asApi(() =>
      ctx.api.identity.changeOwnPassword(caller, currentPassword, newPassword, ctx.clientAddress),
    );
    return { token: issued.token, expiresAt: issued.expiresAt };
  }

  @Query(() => JsonWebKeySet, { description: 'The public keys DNS API tokens are signed with (no login needed).' })
  async dnsApiJwks(@Ctx() ctx: DnsApiContext): Promise<JsonWebKeySet> {
    const { keys } = await asApi(() => ctx.api.identity.jwks());
    return {
      keys: keys.map(({ kty, crv, x, kid, alg, use }) => {
        // Ed25519 public keys (OKP) always carry both.
        if (!kty || !crv || !x) throw new Error(`signing key ${kid} is not an Ed25519 public key`);
        return { kty, crv, x, kid, alg, use };
      }),
    };
  }
}

/** The keys tokens are signed with: listed and rotated by admins. */
@Resolver()
export class SigningKeyResolver {
  @Query(() => [SigningKeyInfo], {
    description: 'The keys that verify DNS API tokens, the one that signs last (admin).',
  })
  async dnsApiSigningKeys(@Ctx() ctx: DnsApiContext): Promise<SigningKeyInfo[]> {
    await allowed(ctx, 'keys');
    return asApi(() => ctx.api.identity.signingKeys());
  }

  @Mutation(() => SigningKeyRotation, {
    description:
      'A new key signs tokens from now on; the old one verifies the tokens it signed until they expire, then goes (admin).',
  })
  async rotateDnsApiSigningKey(@Ctx() ctx: DnsApiContext): Promise<SigningKeyRotation> {
    await allowed(ctx, 'keys');
    return asApi(() => ctx.api.identity.rotateSigningKey());
  }
}

/** Zones: read, create (or import), change settings, delete; the Zone entity's own fields. */
@Resolver(() => Zone)
export class ZoneResolver {
  // Not paged, unlike a zone's records: zones are made one at a time by admins and operators only, each is one small
  // row, and the seed's GET /zones lists them all. What grows without bound is inside a zone (records, its file, its
  // transfer): paged or weighed by the cost limit, per zone listed — assumed to be a hundred zones.
  @Directive('@listSize(assumedSize: 100)')
  @Query(() => [Zone], { description: 'Every zone.' })
  async zones(@Ctx() ctx: DnsApiContext): Promise<StoredZone[]> {
    await allowed(ctx, 'read');
    return ctx.api.zones.list();
  }

  @Query(() => Zone, { nullable: true, description: 'One zone, by name (case-insensitive, trailing dot allowed).' })
  async zone(@Arg('name', () => String) name: string, @Ctx() ctx: DnsApiContext): Promise<StoredZone | null> {
    await allowed(ctx, 'read');
    try {
      return await ctx.api.zones.get(name);
    } catch (err) {
      if ((err as { extensions?: { code?: unknown } }).extensions?.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  // An import of a big master file takes a while: the gateway waits for it past its subgraph timeout.
  @Directive(LONG_RUNNING)
  @Mutation(() => Zone, {
    description:
      'Creates a zone (with NS records from the configuration), or imports one; waits as long as an import takes ' +
      '(startCreateZone runs it in the background instead).',
  })
  async createZone(@Arg('input', () => CreateZoneInput) input: CreateZoneInput, @Ctx() ctx: DnsApiContext) {
    const caller = await allowed(ctx, 'write');
    return ctx.api.zones.create(input, caller.username);
  }

  @Mutation(() => Zone, { description: 'Changes zone settings; with ifMatch, only if the zone is unchanged (412).' })
  async updateZone(
    @Arg('name', () => String) name: string,
    @Arg('input', () => UpdateZoneInput) input: UpdateZoneInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Ctx() ctx: DnsApiContext,
  ) {
    const caller = await allowed(ctx, 'write');
    return ctx.api.zones.update(name, input, ifMatch, caller.username);
  }

  @Mutation(() => DeleteResult, { description: 'Deletes a zone and all its records.' })
  async deleteZone(
    @Arg('name', () => String) name: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Ctx() ctx: DnsApiContext,
  ): Promise<DeleteResult> {
    const caller = await allowed(ctx, 'write');
    await ctx.api.zones.delete(name, ifMatch, caller.username);
    return { success: true, message: `zone ${zoneRef(name)} deleted` };
  }

  // Bounded: one RRset, at most DNS_MAX_RECORDS_PER_RRSET records.
  @FieldResolver(() => [String], { description: 'Its name servers (NS records at the apex), without trailing dots.' })
  async nameservers(@Root() zone: StoredZone | ZoneView, @Ctx() ctx: DnsApiContext): Promise<string[]> {
    return (isView(zone) ? zone : await ctx.api.zones.view(zone)).nameservers;
  }

  @FieldResolver(() => Boolean, { description: 'Whether the zone is signed (DNSSEC): it has DNSSEC keys.' })
  async dnssecEnabled(@Root() zone: StoredZone | ZoneView, @Ctx() ctx: DnsApiContext): Promise<boolean> {
    return isView(zone) ? zone.dnssecEnabled : ctx.api.zones.dnssecEnabled(zone.name);
  }

  @FieldResolver(() => String, { description: 'Entity tag: pass it as ifMatch to change the zone only if unchanged.' })
  etag(@Root() zone: StoredZone | ZoneView): string {
    return isView(zone) ? zone.etag : zoneEtag(zone);
  }

  @FieldResolver(() => DnssecStatus, {
    description: 'Its DNSSEC state: whether it is signed, its keys and the DS records for the parent zone.',
  })
  async dnssec(@Root() zone: StoredZone, @Ctx() ctx: DnsApiContext): Promise<DnssecStatus> {
    await allowed(ctx, 'read');
    return dnssecOf(await ctx.api.dnssec.status(zone.name));
  }

  // The cost limit counts a page's records by its limit (or the default when none is given).
  @Directive('@listSize(slicingArguments: ["limit"], sizedFields: ["records"], requireOneSlicingArgument: false)')
  @FieldResolver(() => RecordPage, {
    description:
      'Its records (SOA excluded), optionally of one type, a page at a time: `limit` records from `cursor` (the ' +
      'previous page’s nextCursor), in name order. A zone can hold millions: a page has a maximum.',
  })
  async records(
    @Root() zone: StoredZone,
    @Ctx() ctx: DnsApiContext,
    @Arg('type', () => String, { nullable: true }) type: string | null,
    @Arg('limit', () => Int, {
      nullable: true,
      defaultValue: DEFAULT_RECORD_PAGE,
      description: `Records per page, 1 to ${MAX_RECORD_PAGE} (BAD_USER_INPUT beyond).`,
    })
    limit: number | null,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
  ): Promise<RecordPage> {
    await allowed(ctx, 'read');
    ctx.signal?.throwIfAborted(); // one page is one read; a listing of many pages stops between them
    return ctx.api.records.list(zone.name, { type, limit: limit ?? DEFAULT_RECORD_PAGE, cursor });
  }

  @FieldResolver(() => DnsRecordType, { nullable: true, description: 'One record, by id.' })
  async record(
    @Root() zone: StoredZone,
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: DnsApiContext,
  ): Promise<DnsRecordType | null> {
    await allowed(ctx, 'read');
    try {
      return await ctx.api.records.get(zone.name, id);
    } catch (err) {
      if ((err as { extensions?: { code?: unknown } }).extensions?.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  // The whole zone read and written out: weighs what a page of the largest size does (its 10 000 records, 5 fields).
  @Directive('@cost(weight: 50000)')
  @FieldResolver(() => String, {
    description:
      'The zone as an RFC 1035 master file (what BIND reads), in one piece: one of the whole-zone reads a process ' +
      'runs at once (BUSY with retryAfter beyond them and their queue). zoneFilePage gives it a page at a time.',
  })
  async zoneFile(@Root() zone: StoredZone, @Ctx() ctx: DnsApiContext): Promise<string> {
    await allowed(ctx, 'read');
    return ctx.api.exports.file(zone.name, ctx.signal);
  }

  // A page of the file is a page of records: weighed as zoneFile is (the largest page).
  @Directive('@cost(weight: 50000)')
  @FieldResolver(() => ZoneFilePage, {
    description:
      'The master file a page at a time: about `limit` records (whole names) after `cursor` (the previous page’s ' +
      'nextCursor); the pages joined are zoneFile’s text. A page after the zone changed is CONFLICT: export again.',
  })
  async zoneFilePage(
    @Root() zone: StoredZone,
    @Ctx() ctx: DnsApiContext,
    @Arg('cursor', () => String, { nullable: true }) cursor: string | null,
    @Arg('limit', () => Int, {
      nullable: true,
      defaultValue: DEFAULT_RECORD_PAGE,
      description: `Records per page, 1 to ${MAX_RECORD_PAGE} (BAD_USER_INPUT beyond).`,
    })
    limit: number | null,
  ): Promise<ZoneFilePage> {
    await allowed(ctx, 'read');
    return ctx.api.exports.page(zone.name, cursor, limit ?? DEFAULT_RECORD_PAGE, ctx.signal);
  }
}

/** Records: create, change, delete one at a time or many at once. */
@Resolver()
export class RecordResolver {
  @Mutation(() => DnsRecordType, { description: 'Adds a record; answered over DNS by the time this returns.' })
  async createRecord(
    @Arg('zone', () => String) zone: string,
    @Arg('input', () => CreateRecordInput) input: CreateRecordInput,
    @Ctx() ctx: DnsApiContext,
  ) {
    const caller = await allowed(ctx, 'write');
    return ctx.api.records.create(zone, input, caller.username);
  }

  @Mutation(() => DnsRecordType, { description: 'Changes a record’s value and/or TTL (its id stays).' })
  async updateRecord(
    @Arg('zone', () => String) zone: string,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateRecordInput) input: UpdateRecordInput,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Ctx() ctx: DnsApiContext,
  ) {
    const caller = await allowed(ctx, 'write');
    return ctx.api.records.update(zone, id, input, ifMatch, caller.username);
  }

  @Mutation(() => DeleteResult)
  async deleteRecord(
    @Arg('zone', () => String) zone: string,
    @Arg('id', () => ID) id: string,
    @Arg('ifMatch', () => String, { nullable: true }) ifMatch: string | null,
    @Ctx() ctx: DnsApiContext,
  ): Promise<DeleteResult> {
    const caller = await allowed(ctx, 'write');
    await ctx.api.records.delete(zone, id, ifMatch, caller.username);
    return { success: true, message: `record ${id} deleted` };
  }

  @Mutation(() => BatchResult, {
    description: 'Applies every operation or none, in one transaction; a failure names the operation.',
  })
  async batchRecords(
    @Arg('zone', () => String) zone: string,
    @Arg('operations', () => [BatchOperationInput]) operations: BatchOperationInput[],
    @Ctx() ctx: DnsApiContext,
  ): Promise<BatchResult> {
    const caller = await allowed(ctx, 'write');
    const results = await ctx.api.records.batch(zone, operations as unknown as BatchOperation[], caller.username);
    return { success: true, results: results.map((r) => ({ ...r, operation: r.operation as BatchOperationKind })) };
  }
}

/** DNSSEC of a zone: on and off, and ZSK rollovers (admin and operator). */
@Resolver()
export class DnssecResolver {
  // Signing a big zone (or re-serving it unsigned) takes a while: the gateway waits past its subgraph timeout.
  @Directive(LONG_RUNNING)
  @Mutation(() => DnssecStatus, {
    description:
      'Signs the zone with a new KSK and ZSK (enable true), or stops signing and removes its keys (enable false; ' +
      'not during a rollover). Answered signed or unsigned over DNS by the time this returns, however long that ' +
      'takes (startSetZoneDnssec runs it in the background instead).',
  })
  async setZoneDnssec(
    @Arg('zone', () => String) zone: string,
    @Arg('input', () => DnssecInput) input: DnssecInput,
    @Ctx() ctx: DnsApiContext,
  ): Promise<DnssecStatus> {
    const caller = await allowed(ctx, 'write');
    const { enable, algorithm, keySize, denial, optOut } = input;
    return dnssecOf(await ctx.api.dnssec.set(zone, { enable, algorithm, keySize, denial, optOut }, caller.username));
  }

  @Directive(LONG_RUNNING)
  @Mutation(() => DnssecRollover, {
    description:
      'Starts a ZSK rollover by pre-publication (RFC 7583; keyType ZSK or left out): the new ZSK is published now and ' +
      'signs once published long enough; the old one is removed when its signatures have expired from caches ' +
      '(rolloverCompletionDate). keyType KSK: a double-KSK rollover — the new KSK signs the DNSKEY RRset at once, ' +
      "its CDS/CDNSKEY are published once it is ready, and the old KSK leaves after the parent's DS for the new one " +
      'is seen (docs/dnssec.md, Rollovers). Waits until DNS serves the new DNSKEY set (startRotateZoneDnssec runs it ' +
      'in the background instead).',
  })
  async rotateZoneDnssec(
    @Arg('zone', () => String) zone: string,
    @Arg('keyType', () => DnssecKeyType, { nullable: true }) keyType: DnssecKeyType | null | undefined,
    @Ctx() ctx: DnsApiContext,
  ): Promise<DnssecRollover> {
    const caller = await allowed(ctx, 'write');
    return rolloverOf(await ctx.api.dnssec.rotate(zone, caller.username, keyType));
  }

  @Mutation(() => DnssecStatus, {
    description:
      "The parent zone's DS for the new KSK of the KSK rollover in progress is there (confirmed by hand, like Knot's " +
      'zone-ksk-submitted): the old KSK leaves after the DS TTL + Dprp + retire safety. keyTag, when given, must be ' +
      "the new KSK's. Fails (CONFLICT) when no KSK rollover is ready and waits for a DS.",
  })
  async confirmZoneDsSeen(
    @Arg('zone', () => String) zone: string,
    @Arg('keyTag', () => Int, { nullable: true }) keyTag: number | null | undefined,
    @Ctx() ctx: DnsApiContext,
  ): Promise<DnssecStatus> {
    const caller = await allowed(ctx, 'write');
    return dnssecOf(await ctx.api.dnssec.dsSeen(zone, caller.username, keyTag));
  }
}

/** Users (admin only), each with a role. */
@Resolver()
export class UserResolver {
  // Not paged: users are made one at a time by admins only, each one small row (the seed's GET /users lists all).
  @Directive('@listSize(assumedSize: 100)')
  @Query(() => [User])
  async users(@Ctx() ctx: DnsApiContext): Promise<User[]> {
    await allowed(ctx, 'users');
    return (await asApi(() => ctx.api.identity.listUsers())).map(userOf);
  }

  @Query(() => User, { nullable: true })
  async user(@Arg('id', () => ID) id: string, @Ctx() ctx: DnsApiContext): Promise<User | null> {
    await allowed(ctx, 'users');
    try {
      return userOf(await asApi(() => ctx.api.identity.getUser(id)));
    } catch (err) {
      if ((err as { extensions?: { code?: unknown } }).extensions?.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  @Mutation(() => User)
  async createUser(@Arg('input', () => CreateUserInput) input: CreateUserInput, @Ctx() ctx: DnsApiContext) {
    await allowed(ctx, 'users');
    return userOf(await asApi(() => ctx.api.identity.createUser(input)));
  }

  @Mutation(() => User, { description: 'The last enabled admin cannot be demoted or disabled.' })
  async updateUser(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateUserInput) input: UpdateUserInput,
    @Ctx() ctx: DnsApiContext,
  ) {
    await allowed(ctx, 'users');
    const patch = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
    return userOf(await asApi(() => ctx.api.identity.updateUser(id, patch)));
  }

  @Mutation(() => DeleteResult, { description: 'The last enabled admin cannot be deleted.' })
  async deleteUser(@Arg('id', () => ID) id: string, @Ctx() ctx: DnsApiContext): Promise<DeleteResult> {
    await allowed(ctx, 'users');
    await asApi(() => ctx.api.identity.deleteUser(id));
    return { success: true, message: `user ${id} deleted` };
  }
}

const secondaryOf = (zone: SecondaryZoneView): SecondaryZone => ({
  ...zone,
  origin: zone.origin as SecondaryZoneOrigin,
});

/** Zones served as a secondary of another server (read: any role; add and remove: operator, admin). */
@Resolver()
export class SecondaryZoneResolver {
  @Directive('@listSize(assumedSize: 100)')
  @Query(() => [SecondaryZone], { description: 'Every secondary zone, with how its transfers go on this server.' })
  async secondaryZones(@Ctx() ctx: DnsApiContext): Promise<SecondaryZone[]> {
    await allowed(ctx, 'read');
    return (await ctx.api.secondaryZones.list()).map(secondaryOf);
  }

  @Query(() => SecondaryZone, { nullable: true })
  async secondaryZone(
    @Arg('name', () => String) name: string,
    @Ctx() ctx: DnsApiContext,
  ): Promise<SecondaryZone | null> {
    await allowed(ctx, 'read');
    const zone = await ctx.api.secondaryZones.get(name);
    return zone ? secondaryOf(zone) : null;
  }

  @Mutation(() => SecondaryZone, {
    description:
      'Serves a zone as a secondary of `primary` on every replica (kept in the store); the first transfer starts at ' +
      'once. A name that is a zone of the store is a CONFLICT.',
  })
  async createSecondaryZone(
    @Arg('input', () => CreateSecondaryZoneInput) input: CreateSecondaryZoneInput,
    @Ctx() ctx: DnsApiContext,
  ): Promise<SecondaryZone> {
    await allowed(ctx, 'write');
    return secondaryOf(await ctx.api.secondaryZones.create(input));
  }

  @Mutation(() => DeleteResult, { description: 'Stops serving a secondary zone added through the API.' })
  async deleteSecondaryZone(@Arg('name', () => String) name: string, @Ctx() ctx: DnsApiContext): Promise<DeleteResult> {
    await allowed(ctx, 'write');
    await ctx.api.secondaryZones.delete(name);
    return { success: true, message: `secondary zone ${name} deleted` };
  }
}

interface ZonesArgs {
  args: { zones?: string[] | null };
  context: DnsApiContext;
}

/** Committed changes as they happen. */
@Resolver()
export class ChangeResolver {
  @Subscription(() => ZoneChange, {
    description: 'Every committed change of the given zones (all zones without the argument), as it happens.',
    subscribe: async ({ args, context }: ZonesArgs) => {
      await allowed(context, 'read');
      const zones = args.zones?.length ? args.zones.map((z, i) => zoneNameArg(z.toLowerCase(), `zones[${i}]`)) : null;
      return context.api.feed.subscribe(zones);
    },
  })
  zoneChanges(
    @Root() change: FeedChange,
    @Arg('zones', () => [String], { nullable: true }) _zones?: string[] | null,
  ): ZoneChange {
    return { ...change, kind: change.kind as ZoneChangeKind };
  }
}
