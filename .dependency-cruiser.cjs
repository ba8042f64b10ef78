/**
 * The direction of imports (docs/design.md, "Layout"): host → graph / REST → subgraphs → engines → platform,
 * no cycle, and outside a module only its face (`index.ts`) is imported. `npm run lint` runs this check; so does
 * test/architecture.test.ts, which also shows that each rule catches a violation.
 *
 * Tests and test support may reach into the module they test; production code may not.
 */
const TEST = '(\\.test\\.ts$|\\.contract\\.ts$|\\.stress\\.test\\.ts$|/testing/|^test/)';

/** Engine and platform modules: folders whose files are imported from outside only through index.ts. */
const MODULE = '^(dns|platform)/([^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment:
        'Modules form a tree of dependencies: a cycle means two modules are one, or one holds what belongs lower.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-imports-nothing-of-the-project',
      severity: 'error',
      comment: 'platform/ is the kit every part shares: it imports only npm packages and other platform modules.',
      from: { path: '^platform/', pathNot: TEST },
      to: { path: '^(gateway|subgraphs|dns|scripts|test)/' },
    },
    {
      name: 'engines-import-no-graphql-layer',
      severity: 'error',
      comment: 'dns/ is an engine: it knows neither the gateway nor the subgraphs.',
      from: { path: '^dns/', pathNot: TEST },
      to: { path: '^(gateway|subgraphs|scripts|test)/' },
    },
    {
      name: 'subgraphs-import-no-gateway',
      severity: 'error',
      comment: 'Subgraphs sit below the gateway: each gets its configuration and dependencies handed in.',
      from: { path: '^subgraphs/', pathNot: TEST },
      to: { path: '^(gateway|scripts|test)/' },
    },
    {
      name: 'a-subgraph-imports-no-other-subgraph',
      severity: 'error',
      comment: 'A subgraph knows no other: what two share lives in subgraphs/ itself, an engine or platform/.',
      from: { path: '^subgraphs/([^/]+)/', pathNot: TEST },
      to: { path: '^subgraphs/[^/]+/', pathNot: '^subgraphs/$1/' },
    },
    {
      name: 'graph-and-rest-import-no-host',
      severity: 'error',
      comment: 'The host composes the graph and the REST interfaces, not the other way round.',
      from: { path: '^gateway/(graph|rest)/', pathNot: TEST },
      to: { path: '^gateway/(host/|main\\.ts|subgraph-main\\.ts)' },
    },
    {
      name: 'graph-imports-no-rest',
      severity: 'error',
      comment: 'The REST interfaces run operations through the graph; the graph knows none of them.',
      from: { path: '^gateway/graph/', pathNot: TEST },
      to: { path: '^gateway/rest/' },
    },
    {
      name: 'graph-and-rest-reach-engines-through-subgraphs',
      severity: 'error',
      comment: 'The graph and the REST interfaces see data only through GraphQL operations, never an engine directly.',
      from: { path: '^gateway/(graph|rest)/', pathNot: TEST },
      to: { path: '^dns/' },
    },
    {
      name: 'graph-is-imported-through-its-face',
      severity: 'error',
      comment: 'Outside gateway/graph/, import gateway/graph/index.ts only.',
      from: { path: '^gateway/', pathNot: `(^gateway/graph/|${TEST})` },
      to: { path: '^gateway/graph/', pathNot: '^gateway/graph/index\\.ts$' },
    },
    {
      name: 'engine-modules-are-imported-through-their-face',
      severity: 'error',
      comment: 'Outside an engine or platform module, import its index.ts only.',
      from: { path: '^(gateway|subgraphs|scripts)/', pathNot: TEST },
      to: { path: MODULE, pathNot: '^(dns|platform)/[^/]+/index\\.ts$' },
    },
    {
      name: 'engine-modules-import-each-other-through-faces',
      severity: 'error',
      comment: 'One engine or platform module imports another only through its index.ts.',
      from: { path: MODULE, pathNot: TEST },
      to: { path: MODULE, pathNot: '^($1/$2/|(dns|platform)/[^/]+/index\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
