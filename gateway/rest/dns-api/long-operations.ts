import type { FastifyReply } from 'fastify';
import { prepareOperation } from '../../graph';
import { statusOfCode } from '../../../platform/errors';
import { DNSSEC_STATUS, ROLLOVER, ZONE_SUMMARY } from './operations';
import {
  dnssecRollover,
  dnssecStatus,
  snakeCase,
  zoneSummary,
  type GqlDnssecRollover,
  type GqlDnssecStatus,
  type GqlZone,
} from './render';

/**
 * The asynchronous form of the long writes (docs/dns-api.md, "Long operations"): with `Prefer: respond-async` the
 * route starts the write as a background operation of the dns-api subgraph and answers 202 with where to poll;
 * `GET /operations/{id}` shows it, its result rendered as the synchronous form's body.
 */
const OPERATION =
  'id kind zone state progress { done total } error { code message errors { field message } } createdAt finishedAt ' +
  `result { __typename ... on Zone { ${ZONE_SUMMARY} } ... on DnssecStatus { ${DNSSEC_STATUS} } ` +
  `... on DnssecRollover { ${ROLLOVER} } }`;

export const LongOps = {
  startCreateZone: prepareOperation(
    'RestDnsStartCreateZone',
    `mutation RestDnsStartCreateZone($input: CreateZoneInput!) { startCreateZone(input: $input) { ${OPERATION} } }`,
  ),
  startSetDnssec: prepareOperation(
    'RestDnsStartSetDnssec',
    `mutation RestDnsStartSetDnssec($zone: String!, $input: DnssecInput!) { startSetZoneDnssec(zone: $zone, input: $input) { ${OPERATION} } }`,
  ),
  startRotateDnssec: prepareOperation(
    'RestDnsStartRotateDnssec',
    `mutation RestDnsStartRotateDnssec($zone: String!, $keyType: DnssecKeyType) { startRotateZoneDnssec(zone: $zone, keyType: $keyType) { ${OPERATION} } }`,
  ),
  operation: prepareOperation(
    'RestDnsOperation',
    `query RestDnsOperation($id: ID!) { operation(id: $id) { ${OPERATION} } }`,
  ),
};

type GqlResult =
  | ({ __typename: 'Zone' } & GqlZone)
  | ({ __typename: 'DnssecStatus' } & GqlDnssecStatus)
  | ({ __typename: 'DnssecRollover' } & GqlDnssecRollover);

export interface GqlOperation {
  id: string;
  kind: string;
  zone: string;
  state: string;
  progress: { done: number; total: number | null } | null;
  result: GqlResult | null;
  error: { code: string; message: string; errors: Array<{ field: string; message: string }> | null } | null;
  createdAt: string;
  finishedAt: string | null;
}

/** The result as the synchronous form answers it. */
function resultOf(result: GqlResult | null): unknown {
  if (!result) return null;
  switch (result.__typename) {
    case 'Zone':
      return zoneSummary(result);
    case 'DnssecStatus':
      return dnssecStatus(result);
    case 'DnssecRollover':
      return dnssecRollover(result);
  }
}

/** The error as the synchronous form answers it: its status and this interface's error body. */
function errorOf(error: GqlOperation['error']): Record<string, unknown> | null {
  if (!error) return null;
  const status = statusOfCode(error.code, 'dnsApi') ?? 500;
  if (status === 500) return { status, error: 'internal error' };
  const fields = error.errors?.map((e) => ({ field: snakeCase(e.field), message: snakeCase(e.message) }));
  return { status, error: snakeCase(error.message), ...(fields?.length ? { errors: fields } : {}) };
}

export function renderOperation(o: GqlOperation) {
  return {
    id: o.id,
    kind: o.kind.toLowerCase(),
    zone: o.zone,
    state: o.state.toLowerCase(),
    progress: o.progress,
    result: resultOf(o.result),
    error: errorOf(o.error),
    created_at: o.createdAt,
    finished_at: o.finishedAt,
  };
}

/** The path of an operation's status resource. */
export const operationPath = (id: string): string => `/api/v1/operations/${encodeURIComponent(id)}`;

/** 202 Accepted: the operation as it started, where to poll it, and that the preference was honoured. */
export function accepted(reply: FastifyReply, operation: GqlOperation): FastifyReply {
  return reply
    .status(202)
    .header('location', operationPath(operation.id))
    .header('preference-applied', 'respond-async')
    .type('application/json; charset=utf-8')
    .send(renderOperation(operation));
}
