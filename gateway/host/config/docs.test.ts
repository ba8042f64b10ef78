import { existsSync, readFileSync } from 'node:fs';
import { settingEntries, type SettingsShape } from '../../../platform/settings';
import { CONFIGURATION_DOC, configurationDocProblem, renderConfigurationDoc } from './docs';
import { CONFIG_SECTIONS, ConfigSchema } from './schema';

test('docs/configuration.md matches what `npm run docs` writes now (run it after changing a setting)', () => {
  const current = existsSync(CONFIGURATION_DOC) ? readFileSync(CONFIGURATION_DOC, 'utf8') : undefined;
  expect(configurationDocProblem(current)).toBeUndefined();
});

test('a stale or missing document is detected, naming the first line that differs', () => {
  const doc = renderConfigurationDoc();
  expect(configurationDocProblem(doc)).toBeUndefined();
  expect(configurationDocProblem(undefined)).toMatch(/missing: run npm run docs/);
  const edited = doc.replace(/\| `port` \| `PORT` \|[^\n]*/, '| `port` | `PORT` | — | integer | `80` | old |');
  expect(configurationDocProblem(edited)).toMatch(/stale from line \d+ \(".*`port`.*"\): run npm run docs/);
  expect(configurationDocProblem(`${doc}\n| \`gone\` |`)).toMatch(/stale/);
  expect(configurationDocProblem(doc.split('\n').slice(0, -3).join('\n'))).toMatch(/stale/);
});

test('every key, nested ones included, has a meaning, and the document lists it with its env name and default', () => {
  const doc = renderConfigurationDoc();
  for (const section of CONFIG_SECTIONS) {
    expect(doc).toContain(`## ${section.title}`);
    for (const entry of settingEntries(section.schema.shape)) {
      expect({ path: entry.path, help: Boolean(entry.meta?.help) }).toEqual({ path: entry.path, help: true });
      expect(doc).toContain(`| \`${entry.path}\` | ${entry.meta?.env ? `\`${entry.meta.env}\`` : '—'} |`);
    }
  }
  expect(doc).toMatch(/\| `responseCacheEntries` \| `RESPONSE_CACHE_ENTRIES` \| — \| integer 0–1000000 \| `10000` \|/);
  expect(doc).toMatch(/\| `dnsWorkers` \| `DNS_WORKERS` \| — \| auto or integer 0–64 \| `auto` \|/);
});

test('the sections compose the schema: no key is declared twice, none is left out', () => {
  const keys = CONFIG_SECTIONS.flatMap((s) => Object.keys(s.schema.shape));
  expect(new Set(keys).size).toBe(keys.length);
  expect([...keys].sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
});

test('environment names are unique', () => {
  const names = CONFIG_SECTIONS.flatMap((s) =>
    settingEntries(s.schema.shape as SettingsShape).flatMap((e) => (e.meta?.env ? [e.meta.env] : [])),
  );
  expect(new Set(names).size).toBe(names.length);
});
