import { z, type ZodType } from 'zod';
import { RestError } from '../errors';

/**
 * The request bodies of the DNS API, as the seed names their fields (snake_case). Unknown fields, wrong types and
 * missing fields are 422s naming each field and what it must be; a body that is not a JSON object is a 400.
 */
const MAX_INT = 2_147_483_647;
const text = (max: number) => z.string().max(max);
const int = z.number().int().min(0).max(MAX_INT);

export const LoginBody = z.strictObject({ username: text(256), password: text(1024) });

const zoneSettings = {
  admin_email: text(254).optional(),
  refresh: int.optional(),
  retry: int.optional(),
  expire: int.optional(),
  minimum: int.optional(),
  default_ttl: int.optional(),
};
export const CreateZoneBody = z.strictObject({ name: text(254), ...zoneSettings, zone_file: z.string().optional() });
export const UpdateZoneBody = z.strictObject(zoneSettings);

export const CreateRecordBody = z.strictObject({
  name: text(1024),
  type: text(16),
  value: text(65_535),
  ttl: int.optional(),
});
export const UpdateRecordBody = z.strictObject({ value: text(65_535).optional(), ttl: int.optional() });

const batchOperation = z.discriminatedUnion('operation', [
  z.strictObject({ operation: z.literal('create'), ...CreateRecordBody.shape }),
  z.strictObject({ operation: z.literal('update'), id: text(64), ...UpdateRecordBody.shape }),
  z.strictObject({ operation: z.literal('delete'), id: text(64) }),
]);
/** Arrays are bounded here only loosely (the service names the configured batch limit, 413, past it). */
export const BatchBody = z.strictObject({ operations: z.array(batchOperation).max(100_000) });

export const CreateSecondaryZoneBody = z.strictObject({
  name: text(254),
  primary: text(64),
  tsig_key: text(254).nullable().optional(),
});

const roles = z.enum(['admin', 'operator', 'viewer']);
export const CreateUserBody = z.strictObject({
  username: text(256),
  email: text(254),
  password: text(1024),
  role: roles,
});
export const UpdateUserBody = z.strictObject({
  email: text(254).optional(),
  role: roles.optional(),
  password: text(1024).optional(),
  disabled: z.boolean().optional(),
});
export const PasswordBody = z.strictObject({ current_password: text(1024), new_password: text(1024) });

/**
 * DNSSEC on or off. The algorithm's name and the key size's range per algorithm are checked by the service (its
 * messages list the names and ranges); here only their types, with key_size bounded to what GraphQL's Int carries.
 */
export const DnssecBody = z.strictObject({
  enable: z.boolean(),
  algorithm: text(64)
    .optional()
    .describe('With enable true: RSASHA256, ECDSAP256SHA256 (default), ECDSAP384SHA384 or ED25519'),
  key_size: z
    .number()
    .int()
    .min(-MAX_INT - 1)
    .max(MAX_INT)
    .optional()
    .describe('With enable true: RSASHA256 1024 to 4096 (default 2048); the curves: their size, or left out'),
  denial: z
    .enum(['NSEC', 'NSEC3'])
    .optional()
    .describe(
      'With enable true: NSEC (default) or NSEC3 (RFC 9276: SHA-1, 0 extra iterations, no salt — not settable). On a ' +
        'zone already signed, another denial than it has switches it; the same one is a 409',
    ),
  opt_out: z.boolean().optional().describe('With denial NSEC3: Opt-Out, unsigned delegations left out (default false)'),
});
/** A signing key rotation takes no body: none, or an empty object. */
export const EmptyBody = z.strictObject({});
/** A rollover: no body, an empty object (a ZSK rollover, as the seed has it), or the kind of key to roll. */
export const RotateBody = z.strictObject({
  key_type: z
    .enum(['KSK', 'ZSK'])
    .nullable()
    .optional()
    .describe('ZSK (pre-publication; the default) or KSK (double-KSK, with CDS/CDNSKEY for the parent)'),
});
/** The parent's DS for the new KSK is there: optionally which key's (its tag). */
export const DsSeenBody = z.strictObject({
  key_tag: z
    .number()
    .int()
    .min(0)
    .max(65_535)
    .nullable()
    .optional()
    .describe("The new KSK's key tag, as the DS names it; left out: the KSK the rollover waits for"),
});

/** `operations[2].value` for a path of the body. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)),
    '',
  );
}

const typeName = (expected: string): string =>
  ({
    int: 'an integer',
    number: 'an integer',
    string: 'a string',
    boolean: 'true or false',
    array: 'an array',
    object: 'an object',
  })[expected] ?? expected;

/** One problem of a body, in words a client can act on. */
function problemsOf(issue: z.core.$ZodIssue, body: unknown): Array<{ field: string; message: string }> {
  const field = fieldOf(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: field ? `${field}.${key}` : key,
        message: `unknown field ${JSON.stringify(key)}`,
      }));
    case 'invalid_type': {
      const present = issue.path.reduce<unknown>(
        (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
        body,
      );
      return [
        {
          field,
          message: present === undefined ? `${field} is required` : `${field} must be ${typeName(issue.expected)}`,
        },
      ];
    }
    case 'too_small':
      return [
        {
          field,
          message:
            issue.origin === 'string'
              ? `${field} must not be empty`
              : `${field} must be at least ${String(issue.minimum)}`,
        },
      ];
    case 'too_big':
      return [
        {
          field,
          message:
            issue.origin === 'string'
              ? `${field} is longer than ${String(issue.maximum)} characters`
              : issue.origin === 'array'
                ? `${field} may hold at most ${String(issue.maximum)} items`
                : `${field} must be at most ${String(issue.maximum)}`,
        },
      ];
    case 'invalid_value':
      return [{ field, message: `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` }];
    case 'invalid_union': // the batch's operations: no option matched the discriminator
      return [{ field, message: `${field} must be "create", "update" or "delete"` }];
    default:
      return [{ field, message: `${field}: ${issue.message}` }];
  }
}

/** The body as `schema` describes it, or a 400 (none, or not a JSON object) / 422 (fields that do not validate). */
export function parseBody<T>(schema: ZodType<T>, body: unknown): T {
  // No body, or an empty one (json-body.ts leaves it to the route whether it takes one).
  if (body === undefined)
    throw new RestError(400, 'the request body is empty: send a JSON object (content-type application/json)');
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new RestError(400, 'the request body must be a JSON object');
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const errors = result.error.issues.flatMap((issue) => problemsOf(issue, body));
  const [first] = errors;
  const message =
    errors.length === 1 || !first
      ? (first?.message ?? 'the body does not validate')
      : `${first.message} (and ${errors.length - 1} more)`;
  throw new RestError(422, message, { errors });
}
