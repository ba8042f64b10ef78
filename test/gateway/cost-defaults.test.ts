import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Supergraph } from '@apollo/federation-internals';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { loadConfig } from '../../gateway/host/config/load';
import { costDirectives } from '../../gateway/graph/cost-directives';
import { CostEstimator } from '../../gateway/graph/cost';
import { OperationCostLimit } from '../../gateway/graph/limits';
import { SUPERGRAPH_FILE } from '../../gateway/host/paths';
import { DnsApiOps, RECORDS_PAGE_MAX } from '../../gateway/rest/dns-api/operations';
import { DnsToolOps } from '../../gateway/rest/dns-tool/operations';
import { MarketOperations } from '../../gateway/rest/market/operations';

/**
 * The default maxQueryCost over the composed supergraph: every fixed operation of the REST interfaces (at their
 * largest variables) and every playground example stays under it; the costly documents below are over it.
 */
const sdl = readFileSync(SUPERGRAPH_FILE, 'utf8');
const limit = new OperationCostLimit(
  new CostEstimator(Supergraph.build(sdl).apiSchema().toGraphQLJSSchema(), costDirectives(sdl)),
  loadConfig({ env: {} }).maxQueryCost,
);

function operations(query: string): Array<{ document: ReturnType<typeof parse>; operation: OperationDefinitionNode }> {
  const document = parse(query);
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => ({ document, operation }));
}

const refusal = (query: string, variables: Record<string, unknown> = {}) =>
  operations(query).map(({ document, operation }) => limit.check(document, operation, variables)?.message ?? null);

const fixed = [...Object.values(DnsApiOps), ...Object.values(DnsToolOps), ...Object.values(MarketOperations)];

test.each(fixed.map((op) => [op.name, op.query]))('REST operation %s is within the default cost', (_name, query) => {
  // the largest page a REST listing may ask for
  expect(refusal(query, { limit: RECORDS_PAGE_MAX })).toEqual([null]);
});

const examples = join(__dirname, '..', '..', 'gateway', 'playground', 'examples');
test.each(readdirSync(examples).filter((f) => f.endsWith('.graphql')))(
  'playground example %s is within the default cost',
  (file) => {
    const variablesFile = join(examples, file.replace(/\.graphql$/, '.variables.json'));
    const variables = existsSync(variablesFile)
      ? (JSON.parse(readFileSync(variablesFile, 'utf8')) as Record<string, unknown>)
      : {};
    const refused = refusal(readFileSync(join(examples, file), 'utf8'), variables);
    expect(refused.every((r) => r === null)).toBe(true);
  },
);

test('fifty aliased pages of the largest size, and several zone transfers, are over it', () => {
  const pages = Array.from(
    { length: 50 },
    (_, i) =>
      `z${i}: zone(name: "big.test") { records(limit: ${RECORDS_PAGE_MAX}) { records { id name type value ttl } } }`,
  );
  expect(refusal(`{ ${pages.join(' ')} }`)[0]).toMatch(
    /^estimated cost \d+ exceeds the limit of 100000 \(maxQueryCost\)$/,
  );
  const transfers = ['a', 'b', 'c'].map((z) => `${z}: toolRecords(zone: "${z}.test") { name ttl class type value }`);
  expect(refusal(`{ ${transfers.join(' ')} }`)[0]).toMatch(/exceeds the limit of 100000 \(maxQueryCost\)/);
  // fifty pages at the default size of five fields each: over too
  const small = Array.from(
    { length: 50 },
    (_, i) => `z${i}: zone(name: "big.test") { records { records { id name type value ttl } } }`,
  );
  expect(refusal(`{ ${small.join(' ')} }`)[0]).toMatch(/exceeds the limit/);
  // a transfer for every zone listed
  expect(refusal('{ zones { name transferRecords { name type value } } }')[0]).toMatch(/exceeds the limit/);
});
