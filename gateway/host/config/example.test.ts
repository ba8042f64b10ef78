import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { settingEntries } from '../../../platform/settings';
import { EXAMPLE_CONFIG, exampleConfigProblem, renderExampleConfig, uncommentSettings } from './example';
import { ConfigError, loadConfig } from './load';
import { CONFIG_SECTIONS } from './schema';

const committed = (): string | undefined =>
  existsSync(EXAMPLE_CONFIG) ? readFileSync(EXAMPLE_CONFIG, 'utf8') : undefined;

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'example-config-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `text` through the real loader as the CONFIG file, with no environment. */
function load(text: string, env: NodeJS.ProcessEnv = {}) {
  const file = join(dir, 'onegraph.yaml');
  writeFileSync(file, text);
  return loadConfig({ file, env });
}

const defaults = loadConfig({ env: {} });

test('deploy/onegraph.example.yaml matches what `npm run docs` writes now (run it after changing a setting)', () => {
  expect(exampleConfigProblem(committed())).toBeUndefined();
});

test('a stale or missing example is detected, naming the first line that differs', () => {
  const text = renderExampleConfig();
  expect(exampleConfigProblem(undefined)).toMatch(/missing: run npm run docs/);
  expect(exampleConfigProblem(text.replace(/^#port: 4000$/m, '#port: 80'))).toMatch(
    /stale from line \d+ \("#port: 4000"\): run npm run docs/,
  );
  expect(exampleConfigProblem(text.split('\n').slice(0, -5).join('\n'))).toMatch(/stale/);
});

test('the committed example loads through the real config loader, every key taking its default', () => {
  expect(load(committed() ?? '')).toEqual(defaults);
});

test('every setting line uncommented (the first `#` deleted) writes out exactly the defaults', () => {
  const active = uncommentSettings(committed() ?? '');
  const keys = Object.keys(parseYaml(active) as Record<string, unknown>);
  // the defaults are really there, sections included; keys without a default (and secrets) stay comments
  expect(keys).toEqual(expect.arrayContaining(['port', 'dataDir', 'dnsPort', 'marketCacheTtl', 'dnsTool', 'workers']));
  expect(keys).not.toEqual(expect.arrayContaining(['databaseUrl']));
  expect(keys).not.toContain('masterKey');
  expect(keys).not.toContain('dnsAccess');
  expect(keys.length).toBeGreaterThan(60);
  expect(load(active)).toEqual(defaults);
});

test('every key, nested ones included, is in the example with its meaning', () => {
  const text = committed() ?? '';
  for (const section of CONFIG_SECTIONS) {
    expect(text).toContain(`# ${section.title} (${section.source})`);
    for (const entry of settingEntries(section.schema.shape)) {
      const key = entry.path.split('.').pop() ?? '';
      expect({ path: entry.path, line: new RegExp(`^#[ #]*${key}:`, 'm').test(text) }).toEqual({
        path: entry.path,
        line: true,
      });
      const firstWords = (entry.meta?.help ?? '').split(/\s+/).slice(0, 4).join(' ');
      expect({ path: entry.path, help: text.includes(firstWords) }).toEqual({ path: entry.path, help: true });
    }
  }
  expect(text).toMatch(
    /^# Environment: MARKET_PROVIDER\. Flag: --market-provider <name>\. Allowed: one of: simulated, google\.$/m,
  );
  expect(text).toMatch(/^# Environment: MASTER_KEY\. Allowed: text\. Default: unset\. Secret: never logged\.$/m);
});

test('a value set as the example says reaches the configuration; the environment still wins over the file', () => {
  const text = (committed() ?? '')
    .replace(/^#port: 4000$/m, 'port: 4100')
    .replace(/^# databaseUrl:$/m, 'databaseUrl: postgres://onegraph@db.example/onegraph')
    .replace(/^#marketCacheTtl:$/m, 'marketCacheTtl:')
    .replace(/^# {2}quote: 10$/m, '  quote: 20')
    .replace(/^#dnsTool:$/m, 'dnsTool:')
    .replace(/^# {2}sessionIdleS: 3600$/m, '  sessionIdleS: 7200');
  const config = load(text);
  expect(config.port).toBe(4100);
  expect(config.databaseUrl).toBe('postgres://onegraph@db.example/onegraph');
  expect(config.marketCacheTtl).toEqual({ ...defaults.marketCacheTtl, quote: 20 });
  expect(config.dnsTool).toEqual({ ...defaults.dnsTool, sessionIdleS: 7200 });
  expect(load(text, { PORT: '4200' }).port).toBe(4200);
  // a bad value in it stops the start naming the key, as any CONFIG file does
  expect(() => load(text.replace('port: 4100', 'port: 70000'))).toThrow(ConfigError);
  expect(() => load(text.replace('port: 4100', 'port: 70000'))).toThrow(/PORT \(port\)/);
});
