import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../gateway/host/paths';

// The markers `npm run test:unit` goes by (scripts/jest-unit-filter.js): a test file that uses a real peer, a service
// or the built program must say so on its first lines, or the inner loop would fail on a machine without them.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the filter is a CommonJS module jest loads itself
const { needsOf } = require('../scripts/jest-unit-filter.js') as { needsOf: (path: string) => string[] };

/** What a test file's text shows it needs. */
const SIGNS: Array<[need: string, sign: RegExp]> = [
  ['bind', /helpers\/dns-peers|named-checkzone/],
  ['postgres', /testing\/postgres|openPostgresStore/],
  ['redis', /helpers\/redis-server|@redis\/client|redis:\/\/127/],
  ['chromium', /playwright/],
  ['php', /execFileSync\('php'/],
  ['ldap', /helpers\/slapd/],
  ['build', /PROJECT_ROOT, 'dist'/],
  ['systemd', /spawnSync\('systemd-analyze'/],
  ['sqlite', /spawnSync\('sqlite3'/],
];

const testFiles = execFileSync('git', ['ls-files', '*.test.ts'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && f !== 'test/needs-markers.test.ts');

test.each(testFiles)('%s declares what it needs (// @needs …)', (file) => {
  const path = join(PROJECT_ROOT, file);
  const text = readFileSync(path, 'utf8');
  const shown = SIGNS.filter(([, sign]) => sign.test(text)).map(([need]) => need);
  expect(needsOf(path)).toEqual(expect.arrayContaining(shown));
});

test('the unit filter reads the markers', () => {
  expect(needsOf(join(PROJECT_ROOT, 'test/dns/main-process.test.ts'))).toEqual(['bind', 'build']);
  expect(needsOf(join(PROJECT_ROOT, 'gateway/graph/limits.ts'))).toEqual([]);
});
