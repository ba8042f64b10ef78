/** The GraphQL shapes the DNS API's operations read, and their REST renderings (the seed's snake_case fields). */
export interface GqlZone {
  name: string;
  recordsCount: number;
  createdAt: string;
  updatedAt: string;
  adminEmail: string;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  defaultTtl: number;
  nameservers: string[];
  dnssecEnabled: boolean;
  etag: string;
}

/** A record as a listing asks for it. */
export interface GqlRecordSummary {
  id: string;
  name: string;
  type: string;
  value: string;
  ttl: number;
}

export interface GqlRecord extends GqlRecordSummary {
  createdAt: string;
  updatedAt: string;
  etag: string;
}

export interface GqlUser {
  id: string;
  username: string;
  email: string;
  role: string;
  disabled: boolean;
  createdAt: string;
  lastLogin: string | null;
}

export interface GqlDnssecKey {
  id: string;
  algorithm: string;
  keyType: string;
  bits: number;
  createdAt: string;
  expiresAt: string;
  keyTag: number;
  state: string;
  publishAt: string;
  activateAt: string;
  inactiveAt: string | null;
  deleteAt: string | null;
  cdsAt: string | null;
  cdsUntil: string | null;
  dsSeenAt: string | null;
}

export interface GqlRolloverProgress {
  keyType: string;
  step: string;
  startedAt: string;
  oldKeyId: string;
  newKeyId: string;
  completesAt: string | null;
  steps: Array<{ step: string; at: string | null; done: boolean }>;
}

export interface GqlDnssecStatus {
  enabled: boolean;
  keys: GqlDnssecKey[];
  dsRecords: Array<{ keyTag: string; algorithm: string; digestType: string; digest: string }>;
  rollovers: GqlRolloverProgress[];
  denial: string | null;
  nsec3param: { algorithm: number; flags: number; iterations: number; salt: string; optOut: boolean } | null;
}

export interface GqlDnssecRollover {
  success: boolean;
  message: string;
  oldKeyId: string;
  newKeyId: string;
  rolloverCompletionDate: string;
  keyType: string;
}

/** GraphQL's camelCase field names as the seed spells them, in field paths and messages alike. */
const SNAKE: Record<string, string> = {
  adminEmail: 'admin_email',
  defaultTtl: 'default_ttl',
  zoneFile: 'zone_file',
  recordsCount: 'records_count',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  lastLogin: 'last_login',
  nextCursor: 'next_cursor',
  currentPassword: 'current_password',
  newPassword: 'new_password',
  dnssecEnabled: 'dnssec_enabled',
  keySize: 'key_size',
  keyType: 'key_type',
  keyTag: 'key_tag',
  optOut: 'opt_out',
};
const CAMEL = new RegExp(`\\b(${Object.keys(SNAKE).join('|')})\\b`, 'g');

export function snakeCase(text: string): string {
  return text.replace(CAMEL, (word) => SNAKE[word] ?? word);
}

export const zoneSummary = (z: GqlZone) => ({
  name: z.name,
  records_count: z.recordsCount,
  created_at: z.createdAt,
  updated_at: z.updatedAt,
});

export const zoneDetails = (z: GqlZone) => ({
  name: z.name,
  admin_email: z.adminEmail,
  refresh: z.refresh,
  retry: z.retry,
  expire: z.expire,
  minimum: z.minimum,
  default_ttl: z.defaultTtl,
  records_count: z.recordsCount,
  created_at: z.createdAt,
  updated_at: z.updatedAt,
  nameservers: z.nameservers,
  dnssec_enabled: z.dnssecEnabled,
});

/** PUT /zones/{zone}: the name, the fields the request changed, and updated_at (as the seed says). */
export function zoneUpdated(z: GqlZone, changed: readonly string[]): Record<string, unknown> {
  const details: Record<string, unknown> = zoneDetails(z);
  const out: Record<string, unknown> = { name: z.name };
  for (const field of changed) if (field in details) out[field] = details[field];
  out.updated_at = z.updatedAt;
  return out;
}

export const recordSummary = (r: GqlRecordSummary) => ({
  id: r.id,
  name: r.name,
  type: r.type,
  value: r.value,
  ttl: r.ttl,
});
export const recordCreated = (r: GqlRecord) => ({ ...recordSummary(r), created_at: r.createdAt });
export const record = (r: GqlRecord) => ({ ...recordSummary(r), created_at: r.createdAt, updated_at: r.updatedAt });
export const recordUpdated = (r: GqlRecord) => ({ ...recordSummary(r), updated_at: r.updatedAt });

export interface GqlSecondaryZone {
  name: string;
  primary: string;
  tsigKey: string | null;
  origin: string;
  createdAt: string | null;
  serial: number | null;
  refreshedAt: string | null;
  expired: boolean;
  error: string | null;
  errorAt: string | null;
}

export const secondaryZone = (z: GqlSecondaryZone) => ({
  name: z.name,
  primary: z.primary,
  tsig_key: z.tsigKey,
  origin: z.origin.toLowerCase(),
  created_at: z.createdAt,
  serial: z.serial,
  refreshed_at: z.refreshedAt,
  expired: z.expired,
  error: z.error,
  error_at: z.errorAt,
});

export const userCreated = (u: GqlUser) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  role: u.role.toLowerCase(),
  created_at: u.createdAt,
});

export const user = (u: GqlUser, options: { lastLogin: boolean }) => ({
  ...userCreated(u),
  disabled: u.disabled,
  ...(options.lastLogin ? { last_login: u.lastLogin } : {}),
});

/** GET and POST /zones/{zone}/dnssec: the seed's key and DS fields, and the key's life beyond the seed. */
export const dnssecStatus = (s: GqlDnssecStatus) => ({
  enabled: s.enabled,
  keys: s.keys.map((k) => ({
    id: k.id,
    algorithm: k.algorithm,
    key_type: k.keyType,
    bits: k.bits,
    created_at: k.createdAt,
    expires_at: k.expiresAt,
    key_tag: k.keyTag,
    state: k.state.toLowerCase(),
    publish_at: k.publishAt,
    activate_at: k.activateAt,
    inactive_at: k.inactiveAt,
    delete_at: k.deleteAt,
    cds_at: k.cdsAt,
    cds_until: k.cdsUntil,
    ds_seen_at: k.dsSeenAt,
  })),
  ds_records: s.dsRecords.map((d) => ({
    key_tag: d.keyTag,
    algorithm: d.algorithm,
    digest_type: d.digestType,
    digest: d.digest,
  })),
  // only while a rollover is in progress: otherwise the seed's shape, as it was
  ...(s.rollovers.length
    ? {
        rollovers: s.rollovers.map((r) => ({
          key_type: r.keyType,
          step: r.step,
          started_at: r.startedAt,
          old_key_id: r.oldKeyId,
          new_key_id: r.newKeyId,
          completes_at: r.completesAt,
          steps: r.steps,
        })),
      }
    : {}),
  denial: s.denial,
  nsec3param: s.nsec3param && {
    algorithm: s.nsec3param.algorithm,
    flags: s.nsec3param.flags,
    iterations: s.nsec3param.iterations,
    salt: s.nsec3param.salt,
    opt_out: s.nsec3param.optOut,
  },
});

export const dnssecRollover = (r: GqlDnssecRollover) => ({
  success: r.success,
  message: r.message,
  old_key_id: r.oldKeyId,
  new_key_id: r.newKeyId,
  rollover_completion_date: r.rolloverCompletionDate,
});

export interface GqlSigningKey {
  kid: string;
  algorithm: string;
  createdAt: string;
  retiredAt: string | null;
  verifiesUntil: string | null;
  signing: boolean;
}

export const signingKey = (k: GqlSigningKey) => ({
  kid: k.kid,
  algorithm: k.algorithm,
  created_at: k.createdAt,
  retired_at: k.retiredAt,
  verifies_until: k.verifiesUntil,
  signing: k.signing,
});

/** A signing key rotation as the DNSSEC rotate answers: what happened, the old and new key ids and the end date. */
export function signingKeyRotation(r: { key: GqlSigningKey; previous: GqlSigningKey | null }) {
  const until = r.previous?.verifiesUntil ?? null;
  return {
    success: true,
    message: r.previous
      ? `key ${r.key.kid} signs new tokens; ${r.previous.kid} verifies the tokens it signed until ${until ?? 'they expire'}, then it is deleted`
      : `key ${r.key.kid} signs new tokens`,
    old_key_id: r.previous?.kid ?? null,
    new_key_id: r.key.kid,
    old_key_verifies_until: until,
  };
}
