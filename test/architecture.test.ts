import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../gateway/host/paths';

/**
 * The direction of imports (docs/design.md, "Layout"), checked with dependency-cruiser against the rules of
 * .dependency-cruiser.cjs: first on the project itself, then on a small tree that breaks each rule once, so a rule
 * that stopped matching would show here.
 */

const run = promisify(execFile);
const DEPCRUISE = join(PROJECT_ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(PROJECT_ROOT, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

async function violations(cwd: string, folders: string[]): Promise<Violation[]> {
  const { stdout } = await run(DEPCRUISE, [...folders, '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => {
    // depcruise exits non-zero when it finds violations; the JSON is still on stdout
    if (error.stdout) return { stdout: error.stdout };
    throw error;
  });
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const show = (v: Violation) =>
  `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

test('the project has no back-arrow, no cycle and no deep import into another module', async () => {
  const found = await violations(PROJECT_ROOT, ['gateway', 'subgraphs', 'dns', 'platform', 'scripts', 'test']);
  expect(found.map(show)).toEqual([]);
}, 120_000);

describe('each rule catches what it forbids', () => {
  let root: string;
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'architecture-'));
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true } }));
    // a lawful tree: host → graph (face) → nothing; subgraph → engine face → platform face
    write('platform/async/index.ts', "export { turn } from './turn';\n");
    write('platform/async/turn.ts', 'export const turn = 1;\n');
    write('dns/model/index.ts', "export { name } from './name';\n");
    write('dns/model/name.ts', "import { turn } from '../../platform/async';\nexport const name = turn;\n");
    write('gateway/graph/index.ts', "export { graph } from './graph';\n");
    write('gateway/graph/graph.ts', 'export const graph = 1;\n');
    write('gateway/host/main.ts', "import { graph } from '../graph';\nexport const main = graph;\n");
    write('subgraphs/one/a.ts', "import { name } from '../../dns/model';\nexport const a = name;\n");
    // one breach of each rule
    write('platform/log/index.ts', "import { name } from '../../dns/model';\nexport const log = name;\n");
    write('dns/zone/index.ts', "import { a } from '../../subgraphs/one/a';\nexport const zone = a;\n");
    write('subgraphs/two/b.ts', "import { main } from '../../gateway/host/main';\nexport const b = main;\n");
    write('subgraphs/two/c.ts', "import { a } from '../one/a';\nexport const c = a;\n");
    write('gateway/rest/r.ts', "import { main } from '../host/main';\nexport const r = main;\n");
    write('gateway/graph/g.ts', "import { r } from '../rest/r';\nexport const g = r;\n");
    write('gateway/rest/s.ts', "import { name } from '../../dns/model';\nexport const s = name;\n");
    write('gateway/host/deep.ts', "import { graph } from '../graph/graph';\nexport const deep = graph;\n");
    write('subgraphs/one/deep.ts', "import { name } from '../../dns/model/name';\nexport const d = name;\n");
    write('dns/store/deep.ts', "import { turn } from '../../platform/async/turn';\nexport const e = turn;\n");
    write('dns/store/x.ts', "import { y } from './y';\nexport const x = y;\n");
    write('dns/store/y.ts', "import { x } from './x';\nexport const y = () => x;\n");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('every breach is reported under its rule, and nothing lawful is', async () => {
    const all = await violations(root, ['gateway', 'subgraphs', 'dns', 'platform']);
    // a cycle is reported from one of its members, whichever dependency-cruiser reaches first
    const cycles = all.filter((v) => v.rule.name === 'no-cycle').map((v) => [v.from, v.to].sort().join(' ↔ '));
    expect(new Set(cycles)).toEqual(new Set(['dns/store/x.ts ↔ dns/store/y.ts']));
    const found = all.filter((v) => v.rule.name !== 'no-cycle').map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found.sort()).toEqual(
      [
        'platform-imports-nothing-of-the-project: platform/log/index.ts → dns/model/index.ts',
        'engines-import-no-graphql-layer: dns/zone/index.ts → subgraphs/one/a.ts',
        'subgraphs-import-no-gateway: subgraphs/two/b.ts → gateway/host/main.ts',
        'a-subgraph-imports-no-other-subgraph: subgraphs/two/c.ts → subgraphs/one/a.ts',
        'graph-and-rest-import-no-host: gateway/rest/r.ts → gateway/host/main.ts',
        'graph-imports-no-rest: gateway/graph/g.ts → gateway/rest/r.ts',
        'graph-and-rest-reach-engines-through-subgraphs: gateway/rest/s.ts → dns/model/index.ts',
        'graph-is-imported-through-its-face: gateway/host/deep.ts → gateway/graph/graph.ts',
        'engine-modules-are-imported-through-their-face: subgraphs/one/deep.ts → dns/model/name.ts',
        'engine-modules-import-each-other-through-faces: dns/store/deep.ts → platform/async/turn.ts',
      ].sort(),
    );
  }, 120_000);
});
