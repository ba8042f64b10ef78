import { graphql, startSystem, type RunningSystem } from '../support/system';
import { keysMashup } from './audit/keys-mashup';
import { nonResolvableInterfaceObject } from './audit/non-resolvable-interface-object';
import { requiresWithArgument } from './audit/requires-with-argument';
import { requiresWithArgumentConflict } from './audit/requires-with-argument-conflict';
import type { AuditCase, AuditTest } from './audit/types';
import { startSubgraphs, type Fixture } from './fixture';

/**
 * Cases of The Guild's federation-gateway-audit (see audit/), each run against our gateway serving the case's
 * supergraph as a general Federation 2 gateway (`SUPERGRAPH_FILE`) over the case's own subgraphs on ephemeral ports.
 * Each test compares the response the way the audit does: `data` exactly, `errors` by presence.
 */
const CASES: AuditCase[] = [
  keysMashup,
  nonResolvableInterfaceObject,
  requiresWithArgument,
  requiresWithArgumentConflict,
];

/** The response body a test expects, in jest's terms: with errors, any non-empty array of GraphQL errors. */
function expectedBody({ expected }: AuditTest) {
  return expected.errors
    ? {
        data: expected.data,
        errors: expect.arrayContaining([expect.objectContaining({ message: expect.any(String) })]),
      }
    : { data: expected.data };
}

describe.each(CASES)('audit $name', (auditCase) => {
  let fixture: Fixture<string> | undefined;
  let gateway: RunningSystem | undefined;

  beforeAll(async () => {
    fixture = await startSubgraphs(Object.fromEntries(auditCase.subgraphs.map((s) => [s.name, s])));
    gateway = await startSystem({ SUPERGRAPH_FILE: fixture.supergraphFile });
  });

  afterAll(async () => {
    await gateway?.close();
    await fixture?.close();
  });

  test.each(auditCase.tests)('$name', async (t) => {
    const { body } = await graphql(gateway!.url, t.query, t.variables);
    // as in the audit: an absent `data` counts as null, an empty `errors` as none, and nothing else is compared
    expect({ data: body.data ?? null, errors: body.errors?.length ? body.errors : undefined }).toEqual(expectedBody(t));
  });
});
