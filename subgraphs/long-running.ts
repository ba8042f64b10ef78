/**
 * `@longRunning`: a root field whose work may take longer than the gateway's subgraph timeout (an import of a big
 * master file, a big zone signed). A subgraph marks it with `@Directive(LONG_RUNNING)`; composition carries it into
 * the supergraph (`@composeDirective`), where the gateway finds it by its spec and bounds fetches of such a field by
 * SUBGRAPH_LONG_TIMEOUT_MS instead of SUBGRAPH_TIMEOUT_MS (docs/gateway.md, "Limits").
 */
export const LONG_RUNNING = '@longRunning';

/** The spec `@longRunning` belongs to: a name only (nothing is fetched from it), what `@link` imports it by. */
export const LONG_RUNNING_SPEC = 'https://onegraph.example/timing/v0.1';
