import { GraphQLSafeInt } from 'graphql-scalars';
import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum UserRole {
  ADMIN = 'admin',
  OPERATOR = 'operator',
  VIEWER = 'viewer',
}
registerEnumType(UserRole, {
  name: 'UserRole',
  description: 'admin: everything, users included; operator: zones, records and DNSSEC; viewer: read only.',
});

export enum BatchOperationKind {
  CREATE = 'create',
  UPDATE = 'update',
  DELETE = 'delete',
}
registerEnumType(BatchOperationKind, { name: 'BatchOperationKind' });

export enum ZoneChangeKind {
  ZONE_CREATED = 'zone-created',
  ZONE_UPDATED = 'zone-updated',
  ZONE_DELETED = 'zone-deleted',
  RECORDS_CHANGED = 'records-changed',
}
registerEnumType(ZoneChangeKind, { name: 'ZoneChangeKind' });

// simpleResolvers: plain properties, no middleware per field (a 10 000-record listing resolves 50 000 of them).
@ObjectType('DnsRecord', {
  simpleResolvers: true,
  description: 'One resource record of a zone, with its own id (records of one name and type are separate rows).',
})
export class DnsRecordType {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'The zone it belongs to.' }) zone!: string;
  @Field(() => String, { description: 'Owner name, fully qualified without the trailing dot.' }) name!: string;
  @Field(() => String, { description: 'Record type: A, AAAA, CNAME, MX, TXT, …' }) type!: string;
  @Field(() => String, {
    description: 'The data in zone-file presentation form; names inside it fully qualified with a trailing dot.',
  })
  value!: string;
  @Field(() => Int) ttl!: number;
  @Field(() => String, { description: 'ISO 8601 UTC.' }) createdAt!: string;
  @Field(() => String, { description: 'ISO 8601 UTC.' }) updatedAt!: string;
  @Field(() => String, { description: 'Entity tag: pass it as ifMatch to change the record only if it is unchanged.' })
  etag!: string;
}

@ObjectType({ description: 'A page of a zone’s records (ordered by name, type, value).' })
export class RecordPage {
  @Field(() => String) zone!: string;
  @Field(() => [DnsRecordType]) records!: DnsRecordType[];
  @Field(() => String, { nullable: true, description: 'Pass as cursor for the next page; null on the last one.' })
  nextCursor!: string | null;
}

@Directive('@key(fields: "name")')
@ObjectType({ description: 'A DNS zone served by the embedded authoritative server.' })
export class Zone {
  @Field(() => String, { description: 'Zone name, lower case, without the trailing dot.' }) name!: string;
  @Field(() => String) adminEmail!: string;
  @Field(() => Int) refresh!: number;
  @Field(() => Int) retry!: number;
  @Field(() => Int) expire!: number;
  @Field(() => Int) minimum!: number;
  @Field(() => Int) defaultTtl!: number;
  @Field(() => GraphQLSafeInt, { description: 'SOA serial, YYYYMMDDnn, raised by every change.' }) serial!: number;
  @Field(() => Int, { description: 'Records the API shows (SOA and DNSSEC records not counted).' })
  recordsCount!: number;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
}

@ObjectType({ description: 'A user of the DNS API.' })
export class User {
  @Field(() => ID) id!: string;
  @Field(() => String) username!: string;
  @Field(() => String) email!: string;
  @Field(() => UserRole) role!: UserRole;
  @Field(() => Boolean) disabled!: boolean;
  @Field(() => String) createdAt!: string;
  @Field(() => String, { nullable: true, description: 'Null until the first login.' }) lastLogin!: string | null;
}

@ObjectType({ description: 'A bearer token for the DNS API (and, in the all-in-one process, the DNS tool).' })
export class LoginResult {
  @Field(() => String, { description: 'An EdDSA-signed JWT: send it as `Authorization: Bearer <token>`.' })
  token!: string;
  @Field(() => String, { description: 'ISO 8601 UTC.' }) expiresAt!: string;
}

@ObjectType({ description: 'The outcome of a deletion.' })
export class DeleteResult {
  @Field(() => Boolean) success!: boolean;
  @Field(() => String) message!: string;
}

@ObjectType({ description: 'What one operation of a batch did.' })
export class BatchOperationResult {
  @Field(() => BatchOperationKind) operation!: BatchOperationKind;
  @Field(() => ID) id!: string;
  @Field(() => String, { description: '`success` (a batch either applies every operation or none).' })
  status!: string;
  @Field(() => DnsRecordType, { nullable: true, description: 'The record after a create or update.' })
  record!: DnsRecordType | null;
}

@ObjectType({ description: 'The outcome of a batch: all operations applied, in one transaction.' })
export class BatchResult {
  @Field(() => Boolean) success!: boolean;
  @Field(() => [BatchOperationResult]) results!: BatchOperationResult[];
}

@ObjectType({ description: 'A committed change of a zone.' })
export class ZoneChange {
  @Field(() => String) zone!: string;
  @Field(() => GraphQLSafeInt, { description: 'The zone’s serial after the change (its last one for a deletion).' })
  serial!: number;
  @Field(() => ZoneChangeKind) kind!: ZoneChangeKind;
  @Field(() => String, {
    nullable: true,
    description: 'Who made it through the API; null for changes made otherwise (DNS UPDATE, another process).',
  })
  by!: string | null;
  @Field(() => String, { description: 'When the change was seen (ISO 8601 UTC).' }) at!: string;
  @Field(() => [String], { nullable: true, description: 'Owner names whose records changed, when known.' })
  names!: string[] | null;
}

@ObjectType({ description: 'A public key that signs DNS API tokens (JWK, RFC 7517).' })
export class JsonWebKey {
  @Field(() => String) kty!: string;
  @Field(() => String) crv!: string;
  @Field(() => String) x!: string;
  @Field(() => String) kid!: string;
  @Field(() => String) alg!: string;
  @Field(() => String) use!: string;
}

@ObjectType({ description: 'The public keys tokens are signed with (a JWK set, RFC 7517).' })
export class JsonWebKeySet {
  @Field(() => [JsonWebKey]) keys!: JsonWebKey[];
}

@InputType({ description: 'A new zone: defaults apply to the settings not given.' })
export class CreateZoneInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) adminEmail?: string | null;
  @Field(() => Int, { nullable: true }) refresh?: number | null;
  @Field(() => Int, { nullable: true }) retry?: number | null;
  @Field(() => Int, { nullable: true }) expire?: number | null;
  @Field(() => Int, { nullable: true }) minimum?: number | null;
  @Field(() => Int, { nullable: true }) defaultTtl?: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'An RFC 1035 master file to import (its SOA settings and records) instead of the defaults.',
  })
  zoneFile?: string | null;
}

@InputType({ description: 'Zone settings to change (at least one).' })
export class UpdateZoneInput {
  @Field(() => String, { nullable: true }) adminEmail?: string | null;
  @Field(() => Int, { nullable: true }) refresh?: number | null;
  @Field(() => Int, { nullable: true }) retry?: number | null;
  @Field(() => Int, { nullable: true }) expire?: number | null;
  @Field(() => Int, { nullable: true }) minimum?: number | null;
  @Field(() => Int, { nullable: true }) defaultTtl?: number | null;
}

@InputType()
export class CreateRecordInput {
  @Field(() => String, { description: '`@`, a name relative to the zone, or a fully qualified name.' }) name!: string;
  @Field(() => String) type!: string;
  @Field(() => String, {
    description: 'Zone-file presentation form (`10 mail.example.com.` for MX); TXT: plain text too.',
  })
  value!: string;
  @Field(() => Int, { nullable: true, description: 'Default: the zone’s default TTL.' }) ttl?: number | null;
}

@InputType({ description: 'What to change of a record (at least one).' })
export class UpdateRecordInput {
  @Field(() => String, { nullable: true }) value?: string | null;
  @Field(() => Int, { nullable: true }) ttl?: number | null;
}

@InputType({
  description: 'One operation of a batch: create (name, type, value, ttl), update (id, value, ttl) or delete (id).',
})
export class BatchOperationInput {
  @Field(() => BatchOperationKind) operation!: BatchOperationKind;
  @Field(() => ID, { nullable: true }) id?: string | null;
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true }) type?: string | null;
  @Field(() => String, { nullable: true }) value?: string | null;
  @Field(() => Int, { nullable: true }) ttl?: number | null;
}

@InputType()
export class CreateUserInput {
  @Field(() => String) username!: string;
  @Field(() => String) email!: string;
  @Field(() => String) password!: string;
  @Field(() => UserRole) role!: UserRole;
}

@InputType({ description: 'What to change of a user (at least one).' })
export class UpdateUserInput {
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => UserRole, { nullable: true }) role?: UserRole | null;
  @Field(() => String, { nullable: true }) password?: string | null;
  @Field(() => Boolean, { nullable: true }) disabled?: boolean | null;
}
