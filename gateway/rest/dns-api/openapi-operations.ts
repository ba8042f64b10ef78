import { ref, response, type Json } from './openapi-components';

/**
 * The OpenAPI parts of the long writes' asynchronous form (docs/dns-api.md, "Long operations"): the Prefer header,
 * the 202 answer, the operation resource and its schema. Kept apart from the shared components: only the long routes
 * and GET /operations/{id} use them.
 */

const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC' };

/** The Prefer request header of a long route. */
export const preferParam: Json = {
  name: 'Prefer',
  in: 'header',
  description:
    'RFC 7240. `respond-async`: start the write in the background and answer 202 with its operation at once ' +
    '(Location: /api/v1/operations/{id}). Without it the answer waits for the write, however long. Other ' +
    'preferences, and what does not parse, are ignored',
  schema: { type: 'string', examples: ['respond-async'] },
};

export const operationSchemas: Record<string, Json> = {
  Operation: {
    type: 'object',
    description:
      'A long write run in the background. Kept while it runs and for an hour after it ends (at most 1 000 finished, ' +
      'the oldest forgotten first), in the memory of the process that runs it: forgotten on restart, not shared ' +
      'between replicas. Only the user who started it and admins see it',
    properties: {
      id: { type: 'string', format: 'uuid' },
      kind: {
        type: 'string',
        enum: ['create_zone', 'import_zone', 'enable_dnssec', 'disable_dnssec', 'rotate_dnssec'],
      },
      zone: { type: 'string', description: 'The zone it works on, lower case, without the trailing dot' },
      state: {
        type: 'string',
        enum: ['running', 'succeeded', 'failed'],
        description: 'succeeded: done and served over DNS; failed: nothing of it applied',
      },
      progress: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            properties: {
              done: { type: 'integer', minimum: 0 },
              total: { type: ['integer', 'null'], minimum: 0 },
            },
            required: ['done', 'total'],
            additionalProperties: false,
          },
        ],
        description: 'How far it is (e.g. records signed); null when not known (imports and signing do not tell yet)',
      },
      result: {
        oneOf: [{ type: 'null' }, ref('ZoneSummary'), ref('DnssecStatus'), ref('DnssecRollover')],
        description:
          'Once succeeded: the body the synchronous form answers (POST /zones: the zone summary; /dnssec: the ' +
          'DNSSEC status; /dnssec/rotate: the rollover); null before',
      },
      error: {
        oneOf: [
          { type: 'null' },
          {
            type: 'object',
            properties: {
              status: {
                type: 'integer',
                description: 'The status the synchronous form answers with (404, 409, 422, …)',
              },
              error: { type: 'string', description: 'One sentence saying what went wrong' },
              errors: {
                type: 'array',
                description: 'Each invalid field (422)',
                items: {
                  type: 'object',
                  properties: { field: { type: 'string' }, message: { type: 'string' } },
                  required: ['field', 'message'],
                  additionalProperties: false,
                },
              },
            },
            required: ['status', 'error'],
            additionalProperties: false,
          },
        ],
        description: 'Once failed: its error as the synchronous form answers it; null otherwise',
      },
      created_at: timestamp,
      finished_at: { ...timestamp, type: ['string', 'null'], description: 'When it ended; null while it runs' },
    },
    required: ['id', 'kind', 'zone', 'state', 'progress', 'result', 'error', 'created_at', 'finished_at'],
    additionalProperties: false,
  },
};

export const operationResponses: Record<string, Json> = {
  NoOperation: {
    description:
      'No such operation: an unknown or malformed id, one forgotten (an hour after it ended, or on restart), or one ' +
      'another user started',
    content: { 'application/json': { schema: ref('Error') } },
  },
  Accepted: {
    description: 'With `Prefer: respond-async`: the write started in the background; poll the Location',
    headers: {
      Location: {
        required: true,
        description: 'Its status resource, /api/v1/operations/{id}',
        schema: { type: 'string' },
      },
      'Preference-Applied': { required: true, schema: { type: 'string', const: 'respond-async' } },
    },
    content: { 'application/json': { schema: ref('Operation') } },
  },
  TooManyOperations: {
    description: 'With `Prefer: respond-async`: 100 long operations are running already; wait, or send it without',
    headers: {
      'Retry-After': { required: true, description: 'Seconds to wait', schema: { type: 'string', pattern: '^\\d+$' } },
    },
    content: { 'application/json': { schema: ref('Error') } },
  },
};

/** What a long route answers besides its synchronous answers. */
export const asyncAnswers = { 202: response('Accepted'), 429: response('TooManyOperations') };

/** The operation's id in the path. */
export const operationIdParam: Json = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The operation id (the end of the 202 answer’s Location)',
  schema: { type: 'string' },
};
