import {
  Arg,
  createUnionType,
  Ctx,
  Field,
  ID,
  Int,
  Mutation,
  ObjectType,
  Query,
  registerEnumType,
  Resolver,
} from 'type-graphql';
import { allowed, type DnsApiContext } from '../context';
import type { LongOperation } from '../service/operations';
import { dnssecOf, rolloverOf } from './resolvers';
import { CreateZoneInput, DnssecInput, DnssecKeyType, DnssecRollover, DnssecStatus, Zone } from './types';

/**
 * Long writes in the background (docs/dns-api.md, "Long operations"): `start…` mutations check the request, start
 * the write and return at once with an Operation; `operation(id)` tells how it goes and, once done, its result or its
 * error. The synchronous mutations (createZone, setZoneDnssec, rotateZoneDnssec) stay as they are and wait.
 */

export enum OperationKind {
  CREATE_ZONE = 'create_zone',
  IMPORT_ZONE = 'import_zone',
  ENABLE_DNSSEC = 'enable_dnssec',
  DISABLE_DNSSEC = 'disable_dnssec',
  ROTATE_DNSSEC = 'rotate_dnssec',
}
registerEnumType(OperationKind, {
  name: 'OperationKind',
  description: 'What a background operation does.',
  valuesConfig: {
    CREATE_ZONE: { description: 'startCreateZone without a zone file.' },
    IMPORT_ZONE: { description: 'startCreateZone with a zone file.' },
    ENABLE_DNSSEC: { description: 'startSetZoneDnssec with enable true.' },
    DISABLE_DNSSEC: { description: 'startSetZoneDnssec with enable false.' },
    ROTATE_DNSSEC: { description: 'startRotateZoneDnssec.' },
  },
});

export enum OperationState {
  RUNNING = 'running',
  SUCCEEDED = 'succeeded',
  FAILED = 'failed',
}
registerEnumType(OperationState, {
  name: 'OperationState',
  valuesConfig: {
    RUNNING: { description: 'Still working; result and error are null.' },
    SUCCEEDED: { description: 'Done, and DNS serves it: result holds what the synchronous mutation returns.' },
    FAILED: { description: 'Stopped by an error (nothing of it applied): error holds it.' },
  },
});

@ObjectType({ description: 'How far an operation is.' })
export class OperationProgress {
  @Field(() => Int, { description: 'Steps done (e.g. records signed).' }) done!: number;
  @Field(() => Int, { nullable: true, description: 'Steps in all; null when not known.' }) total!: number | null;
}

@ObjectType({ description: 'An invalid field of a failed operation’s request.' })
export class OperationFieldError {
  @Field(() => String) field!: string;
  @Field(() => String) message!: string;
}

@ObjectType({ description: 'Why an operation failed: the error its synchronous mutation would have raised.' })
export class OperationError {
  @Field(() => String, {
    description: 'The error’s extensions.code: NOT_FOUND, CONFLICT, BAD_USER_INPUT, … (INTERNAL_SERVER_ERROR: a bug).',
  })
  code!: string;
  @Field(() => String) message!: string;
  @Field(() => [OperationFieldError], { nullable: true, description: 'For BAD_USER_INPUT: each invalid field.' })
  errors!: OperationFieldError[] | null;
}

/** A result is told apart by its own fields (each type has one the others lack). */
export const OperationResult = createUnionType({
  name: 'OperationResult',
  description: 'What the synchronous mutation returns: a Zone, a DnssecStatus or a DnssecRollover.',
  types: () => [Zone, DnssecStatus, DnssecRollover] as const,
  resolveType: (value: object) =>
    'dsRecords' in value ? DnssecStatus : 'rolloverCompletionDate' in value ? DnssecRollover : Zone,
});

@ObjectType({
  description:
    'A long write run in the background, kept in the memory of the process that runs it: while it runs and for an ' +
    'hour after it ends (at most 1 000 finished ones, the oldest forgotten first), forgotten on restart and not ' +
    'shared between replicas. Only the user who started it and admins see it.',
})
export class Operation {
  @Field(() => ID) id!: string;
  @Field(() => OperationKind) kind!: OperationKind;
  @Field(() => String, { description: 'The zone it works on (lower case, without the trailing dot).' }) zone!: string;
  @Field(() => OperationState) state!: OperationState;
  @Field(() => OperationProgress, {
    nullable: true,
    description:
      'How far it is: while DNSSEC signs the zone whole, names signed of how many; null when the work does not tell (imports).',
  })
  progress!: OperationProgress | null;
  @Field(() => OperationResult, { nullable: true, description: 'Once succeeded: what the mutation returns.' })
  result!: Zone | DnssecStatus | DnssecRollover | null;
  @Field(() => OperationError, { nullable: true, description: 'Once failed: why.' }) error!: OperationError | null;
  @Field(() => String, { description: 'When it started (ISO 8601 UTC).' }) createdAt!: string;
  @Field(() => String, { nullable: true, description: 'When it ended (ISO 8601 UTC); null while it runs.' })
  finishedAt!: string | null;
}

/** The service's operation in the schema's types (its kinds and states are the enums' values). */
const operationOf = (operation: LongOperation): Operation => ({
  ...operation,
  kind: operation.kind as OperationKind,
  state: operation.state as OperationState,
  result: operation.result as Operation['result'],
});

@Resolver(() => Operation)
export class OperationResolver {
  @Mutation(() => Operation, {
    description:
      'createZone in the background: the input is checked now (BAD_USER_INPUT, PAYLOAD_TOO_LARGE), the rest — the ' +
      'zone existing already, a zone file that does not read — ends the operation FAILED. Poll operation(id).',
  })
  async startCreateZone(
    @Arg('input', () => CreateZoneInput) input: CreateZoneInput,
    @Ctx() ctx: DnsApiContext,
  ): Promise<Operation> {
    const caller = await allowed(ctx, 'write');
    const write = ctx.api.zones.prepareCreate(input, caller.username);
    const kind = input.zoneFile ? 'import_zone' : 'create_zone';
    return operationOf(ctx.api.operations.start(kind, write.zone, caller.id, () => write.run()));
  }

  @Mutation(() => Operation, {
    description:
      'setZoneDnssec in the background: the input is checked now (BAD_USER_INPUT), the rest — no such zone, on or off ' +
      'already, a rollover in progress — ends the operation FAILED. Poll operation(id).',
  })
  async startSetZoneDnssec(
    @Arg('zone', () => String) zone: string,
    @Arg('input', () => DnssecInput) input: DnssecInput,
    @Ctx() ctx: DnsApiContext,
  ): Promise<Operation> {
    const caller = await allowed(ctx, 'write');
    const { enable, algorithm, keySize, denial, optOut } = input;
    const write = ctx.api.dnssec.prepareSet(zone, { enable, algorithm, keySize, denial, optOut }, caller.username);
    const kind = enable ? 'enable_dnssec' : 'disable_dnssec';
    return operationOf(
      ctx.api.operations.start(kind, write.zone, caller.id, async (progress) => dnssecOf(await write.run(progress))),
    );
  }

  @Mutation(() => Operation, {
    description:
      'rotateZoneDnssec in the background: no such zone, DNSSEC off or a rollover in progress ends the operation ' +
      'FAILED. Poll operation(id).',
  })
  async startRotateZoneDnssec(
    @Arg('zone', () => String) zone: string,
    @Arg('keyType', () => DnssecKeyType, { nullable: true }) keyType: DnssecKeyType | null | undefined,
    @Ctx() ctx: DnsApiContext,
  ): Promise<Operation> {
    const caller = await allowed(ctx, 'write');
    const write = ctx.api.dnssec.prepareRotate(zone, caller.username, keyType);
    return operationOf(
      ctx.api.operations.start('rotate_dnssec', write.zone, caller.id, async (p) => rolloverOf(await write.run(p))),
    );
  }

  @Query(() => Operation, {
    nullable: true,
    description:
      'A background operation by id: null when there is none, it was forgotten, or another user started it (admins ' +
      'see every one).',
  })
  async operation(@Arg('id', () => ID) id: string, @Ctx() ctx: DnsApiContext): Promise<Operation | null> {
    const caller = await allowed(ctx, 'read');
    const operation = await ctx.api.operations.find(id);
    if (!operation || (operation.owner !== caller.id && caller.role !== 'admin')) return null;
    return operationOf(operation);
  }
}
