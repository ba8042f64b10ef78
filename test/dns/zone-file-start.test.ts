import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../gateway/host/config/load';
import { startDns } from '../../gateway/host/dns';
import { createLogger } from '../../platform/log';

/** A bad `--zone` file stops the start with a message naming the file, the line and the problem — never a crash. */
function startWith(zoneText: string | null): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'zone-start-'));
  const file = join(dir, 'shop.zone');
  if (zoneText !== null) writeFileSync(file, zoneText);
  const config = loadConfig({ env: { DATA_DIR: dir, DNS_PORT: '0', LOG_LEVEL: 'silent' } });
  return startDns({ ...config, zoneFiles: { 'shop.test': file } }, createLogger('silent')).then((dns) => dns.close());
}

test.each([
  ['a bad line', '$ORIGIN shop.test.\n$TTL 60\n@ IN SOA ns1 host 1 2 3 4 5\nwww IN A 300.1.2.3\n', /line 4/],
  ['no SOA', '$ORIGIN shop.test.\n$TTL 60\nwww IN A 192.0.2.1\n', /has no SOA record/],
  ['a missing file', null, /ENOENT|no such file/],
])('%s: ConfigError naming the file', async (_what, text, problem) => {
  const err = await startWith(text).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as Error).message).toMatch(/^zone file \S+shop\.zone \(zone shop\.test\): /);
  expect((err as Error).message).toMatch(problem);
});
