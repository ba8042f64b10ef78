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
  DNSSEC_CHANGED = 'dnssec-changed',
}
registerEnumType(ZoneChangeKind, {
  name: 'ZoneChangeKind',
  valuesConfig: {
    DNSSEC_CHANGED: { description: 'Its DNSSEC keys or their timings changed (or it was signed afresh).' },
  },
});

export enum DnssecKeyType {
  KSK = 'KSK',
  ZSK = 'ZSK',
}
registerEnumType(DnssecKeyType, {
  name: 'DnssecKeyType',
  description: 'KSK: key-signing key (DNSKEY flags 257, the one DS records point at); ZSK: zone-signing key (256).',
});

export enum DnssecKeyState {
  PUBLISHED = 'published',
  ACTIVE = 'active',
  RETIRED = 'retired',
}
registerEnumType(DnssecKeyState, {
  name: 'DnssecKeyState',
  description: 'Where a key is in its life (RFC 7583).',
  valuesConfig: {
    PUBLISHED: { description: 'In the DNSKEY RRset, not signing yet (a new ZSK of a rollover).' },
    ACTIVE: { description: 'Signing.' },
    RETIRED: { description: 'No longer signing, still published until its deleteAt (an old ZSK of a rollover).' },
  },
});

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

@ObjectType({ description: 'A page of a zone’s master file: its lines, whole owner names, in the file’s order.' })
export class ZoneFilePage {
  @Field(() => String, {
    description:
      'The lines of this page, each ending with a newline (the first page starts with $ORIGIN, $TTL and the SOA).',
  })
  text!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Pass as cursor for the next page; null on the last one. Pages joined are the zoneFile text.',
  })
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

@ObjectType({ description: 'A DNSSEC key of a zone (the private key never leaves the server).' })
export class DnssecKey {
  @Field(() => ID, { description: 'The key’s id (UUID).' }) id!: string;
  @Field(() => String, { description: 'Algorithm mnemonic: RSASHA256, ECDSAP256SHA256, ECDSAP384SHA384 or ED25519.' })
  algorithm!: string;
  @Field(() => DnssecKeyType, { description: 'KSK or ZSK.' }) keyType!: DnssecKeyType;
  @Field(() => Int, { description: 'Key size in bits: the RSA modulus length, or the curve’s size.' }) bits!: number;
  @Field(() => String, { description: 'When the key was made (ISO 8601 UTC).' }) createdAt!: string;
  @Field(() => String, { description: 'End of its lifetime by the key policy (ISO 8601 UTC).' }) expiresAt!: string;
  @Field(() => Int, { description: 'Key tag (RFC 4034 Appendix B), as RRSIG and DS records name the key.' })
  keyTag!: number;
  @Field(() => DnssecKeyState, { description: 'Where the key is in its life now.' }) state!: DnssecKeyState;
  @Field(() => String, { description: 'When it entered the DNSKEY RRset (ISO 8601 UTC).' }) publishAt!: string;
  @Field(() => String, { description: 'When it starts (or started) signing (ISO 8601 UTC).' }) activateAt!: string;
  @Field(() => String, { nullable: true, description: 'When it stops signing (ISO 8601 UTC); null: until replaced.' })
  inactiveAt!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'When it leaves the DNSKEY RRset (ISO 8601 UTC); null: it stays.',
  })
  deleteAt!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'A KSK: when its CDS/CDNSKEY are (or were) first published at the apex (ISO 8601 UTC); null: never.',
  })
  cdsAt!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'A KSK: when its CDS/CDNSKEY leave the apex (ISO 8601 UTC); null: not planned.',
  })
  cdsUntil!: string | null;
  @Field(() => String, {
    nullable: true,
    description: "A KSK: when the parent zone's DS for it was seen in a KSK rollover (ISO 8601 UTC); null: not (yet).",
  })
  dsSeenAt!: string | null;
}

@ObjectType({ description: 'One step of a rollover in progress, done or planned.' })
export class DnssecRolloverStep {
  @Field(() => String, {
    description: 'published, ready (KSK: CDS/CDNSKEY published), ds-seen (KSK), active (ZSK: the new key signs), done.',
  })
  step!: string;
  @Field(() => String, { nullable: true, description: "When (ISO 8601 UTC); null: it waits for the parent's DS." })
  at!: string | null;
  @Field(() => Boolean, { description: 'Whether it is done.' }) done!: boolean;
}

@ObjectType({ description: 'A rollover in progress: its kind, the step it is at, and the date of each step.' })
export class DnssecRolloverProgress {
  @Field(() => DnssecKeyType, { description: 'KSK (double-KSK) or ZSK (pre-publication).' }) keyType!: DnssecKeyType;
  @Field(() => String, {
    description:
      "published (the new key is in the DNSKEY RRset), ready (KSK: CDS/CDNSKEY published, waiting for the parent's " +
      'DS), retiring (the old key leaves at completesAt).',
  })
  step!: string;
  @Field(() => String, { description: 'When it started (ISO 8601 UTC).' }) startedAt!: string;
  @Field(() => ID) oldKeyId!: string;
  @Field(() => ID) newKeyId!: string;
  @Field(() => String, { nullable: true, description: "When it completes; null: it waits for the parent's DS." })
  completesAt!: string | null;
  @Field(() => [DnssecRolloverStep]) steps!: DnssecRolloverStep[];
}

@ObjectType({ description: 'A DS record for the parent zone, pointing at a KSK (ready to paste at a registrar).' })
export class DsRecord {
  @Field(() => String, { description: 'Key tag of the KSK, in decimal.' }) keyTag!: string;
  @Field(() => String, { description: 'Algorithm number of the KSK, in decimal ("13").' }) algorithm!: string;
  @Field(() => String, { description: 'Digest type: "2" (SHA-256) or "4" (SHA-384).' }) digestType!: string;
  @Field(() => String, { description: 'The digest, upper-case hex.' }) digest!: string;
}

export enum DnssecDenial {
  NSEC = 'NSEC',
  NSEC3 = 'NSEC3',
}
registerEnumType(DnssecDenial, {
  name: 'DnssecDenial',
  description: 'How a signed zone proves that a name or type does not exist.',
  valuesConfig: {
    NSEC: { description: 'NSEC records (RFC 4034): the default.' },
    NSEC3: { description: 'NSEC3 records (RFC 5155) with RFC 9276 parameters: SHA-1, no extra iterations, no salt.' },
  },
});

@ObjectType({ description: "An NSEC3 chain's parameters (RFC 5155 §4; fixed as RFC 9276 asks)." })
export class Nsec3Param {
  @Field(() => Int, { description: 'Hash algorithm: 1 (SHA-1).' }) algorithm!: number;
  @Field(() => Int, { description: 'NSEC3PARAM flags: 0 (Opt-Out is a flag of the NSEC3 records).' }) flags!: number;
  @Field(() => Int, { description: 'Extra iterations of the hash: 0.' }) iterations!: number;
  @Field(() => String, { description: 'The salt in hex: "-", none.' }) salt!: string;
  @Field(() => Boolean, { description: 'Whether unsigned delegations are left out of the chain (Opt-Out).' })
  optOut!: boolean;
}

@ObjectType({ description: 'The DNSSEC state of a zone: its keys and the DS records for its parent.' })
export class DnssecStatus {
  @Field(() => Boolean, { description: 'Whether the zone is signed (it has keys).' }) enabled!: boolean;
  // Bounded lists: a KSK and a ZSK, one more ZSK during a rollover; two DS records per KSK.
  @Field(() => [DnssecKey], { description: 'Its keys still published, oldest first; empty when not signed.' })
  keys!: DnssecKey[];
  @Field(() => [DsRecord], { description: 'Two per KSK: SHA-256 and SHA-384 digests.' })
  dsRecords!: DsRecord[];
  @Field(() => [DnssecRolloverProgress], { description: 'The rollovers in progress (a KSK one, a ZSK one, or none).' })
  rollovers!: DnssecRolloverProgress[];
  @Field(() => DnssecDenial, { nullable: true, description: 'NSEC or NSEC3 while signed; null when not.' })
  denial!: DnssecDenial | null;
  @Field(() => Nsec3Param, { nullable: true, description: "NSEC3's parameters; null unless the denial is NSEC3." })
  nsec3param!: Nsec3Param | null;
}

@ObjectType({ description: 'A rollover just started: ZSK by pre-publication, or KSK by double-KSK.' })
export class DnssecRollover {
  @Field(() => Boolean, { description: 'True: the rollover started.' }) success!: boolean;
  @Field(() => String, { description: 'What happens when, in words.' }) message!: string;
  @Field(() => ID, { description: 'The key being replaced: it signs until the new one does (KSK: until it leaves).' })
  oldKeyId!: string;
  @Field(() => ID, { description: 'The new key: published now, signing once published long enough (KSK: at once).' })
  newKeyId!: string;
  @Field(() => String, {
    description:
      "When the old key leaves the DNSKEY RRset and the rollover is complete (ISO 8601 UTC); a KSK's waits for the " +
      "parent's DS: the earliest it can be (the DS seen as soon as the new key is ready).",
  })
  rolloverCompletionDate!: string;
  @Field(() => DnssecKeyType, { description: 'The kind of key rolled.' }) keyType!: DnssecKeyType;
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

@ObjectType({
  description:
    'A key DNS API tokens are signed with (its public facts; the private key never leaves the store sealed).',
})
export class SigningKeyInfo {
  @Field(() => String, { description: 'The key id (`kid`), its RFC 7638 thumbprint.' }) kid!: string;
  @Field(() => String) algorithm!: string;
  @Field(() => String, { description: 'ISO 8601 UTC.' }) createdAt!: string;
  @Field(() => String, { nullable: true, description: 'When a newer key took over signing; null for the key in use.' })
  retiredAt!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Until when it still verifies the tokens it signed (then it is deleted); null for the key in use.',
  })
  verifiesUntil!: string | null;
  @Field(() => Boolean, { description: 'Whether it signs new tokens.' }) signing!: boolean;
}

@ObjectType({
  description: 'A signing key rotation: the new key signs, the old one verifies its tokens until they expire.',
})
export class SigningKeyRotation {
  @Field(() => SigningKeyInfo) key!: SigningKeyInfo;
  @Field(() => SigningKeyInfo, { nullable: true }) previous!: SigningKeyInfo | null;
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

@InputType({ description: 'DNSSEC on (with an algorithm and key size) or off.' })
export class DnssecInput {
  @Field(() => Boolean, {
    description: 'true: sign the zone (a new KSK and ZSK); false: stop signing and remove its keys.',
  })
  enable!: boolean;
  @Field(() => String, {
    nullable: true,
    description: 'With enable true: RSASHA256, ECDSAP256SHA256 (default), ECDSAP384SHA384 or ED25519.',
  })
  algorithm?: string | null;
  @Field(() => Int, {
    nullable: true,
    description: 'With enable true: RSA 1024 to 4096 (default 2048); for the curves their size or nothing.',
  })
  keySize?: number | null;
  @Field(() => DnssecDenial, {
    nullable: true,
    description:
      'With enable true: NSEC (default) or NSEC3. On a zone already signed, another denial than it has switches it ' +
      '(algorithm and keySize left out or as they are); the same one is a conflict.',
  })
  denial?: DnssecDenial | null;
  @Field(() => Boolean, {
    nullable: true,
    description:
      'With denial NSEC3: leave unsigned delegations out of the chain (Opt-Out, RFC 5155 §6). Default false.',
  })
  optOut?: boolean | null;
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

export enum SecondaryZoneOrigin {
  API = 'api',
  CONFIGURATION = 'configuration',
}
registerEnumType(SecondaryZoneOrigin, {
  name: 'SecondaryZoneOrigin',
  description:
    'api: added through the API, held in the store (every replica serves it); configuration: DNS_SECONDARY_ZONES.',
});

@ObjectType({
  description:
    'A zone this server serves as a secondary of another server: transferred (IXFR, else AXFR) from its primary on ' +
    'NOTIFY and on the SOA timers. The transfer fields tell how it goes on the server that answers.',
})
export class SecondaryZone {
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'address:port (an IPv6 address in brackets).' }) primary!: string;
  @Field(() => String, { nullable: true, description: 'The TSIG key transfers are signed with.' })
  tsigKey!: string | null;
  @Field(() => SecondaryZoneOrigin) origin!: SecondaryZoneOrigin;
  @Field(() => String, { nullable: true }) createdAt!: string | null;
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'The serial served; null: none transferred yet.' })
  serial!: number | null;
  @Field(() => String, { nullable: true, description: 'When the copy was last known current.' })
  refreshedAt!: string | null;
  @Field(() => Boolean, { description: 'Not answered (SERVFAIL): never transferred, or past its SOA expire time.' })
  expired!: boolean;
  @Field(() => String, { nullable: true, description: 'Why the last refresh failed, or why it is not served.' })
  error!: string | null;
  @Field(() => String, { nullable: true }) errorAt!: string | null;
}

@InputType()
export class CreateSecondaryZoneInput {
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'The primary: address:port, e.g. 192.0.2.1:53 or [2001:db8::1]:53.' })
  primary!: string;
  @Field(() => String, { nullable: true, description: 'Name of a configured TSIG key (TSIG_KEYFILE).' })
  tsigKey?: string | null;
}
