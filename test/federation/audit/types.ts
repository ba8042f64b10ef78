import type { SubgraphModule } from '../fixture';

/**
 * One case of The Guild's federation-gateway-audit (github.com/graphql-hive/federation-gateway-audit,
 * src/test-suites/<name>), re-expressed as a fixture of ours: the suite's subgraphs (SDL and data as the audit has
 * them, resolvers written anew) and every test of its test.ts.
 */
export interface AuditCase {
  /** The audit's test-suite name. */
  name: string;
  subgraphs: AuditSubgraph[];
  tests: AuditTest[];
}

export interface AuditSubgraph extends SubgraphModule {
  name: string;
}

export interface AuditTest {
  /** What the test asks and, where Apollo's query planner answers it wrongly, what Apollo gets wrong. */
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  /**
   * The response the audit expects. Like the audit's runner, `data` is compared exactly (an absent `data` counts as
   * null) and `errors` only by presence: `true` means a non-empty `errors` array, absent means no `errors` at all.
   */
  expected: { data: unknown; errors?: true };
}
