// @needs bind
/**
 * Our catalog zone (RFC 9432) with BIND 9 as a secondary that reads catalogs (`catalog-zones`): named learns the
 * member zones from the catalog it transfers from us, transfers each of them, and after a zone is created or deleted
 * (our NOTIFY of the catalog) adds or drops it by itself.
 */
import { DnsEngine } from '../../dns/engine/engine';
import { memberLabel, syncCatalog } from '../../dns/engine/catalog';
import { openSqliteStore, type ZoneStore } from '../../dns/store';
import type { NotifyTarget } from '../../dns/server';
import { dig, requireTool, startNamed, type Named } from '../support/dns-peers';

const CATALOG = 'catalog.test';
const SETTINGS = {
  adminEmail: 'hostmaster@example.test',
  primaryNs: 'ns1.example',
  refresh: 3600,
  retry: 600,
  expire: 86400,
  minimum: 60,
  defaultTtl: 300,
};

let store: ZoneStore;
let engine: DnsEngine;
let named: Named;
let namedLog = '';
/** NOTIFY targets: named's port is known only once it runs, after our engine (whose port named needs). */
const notify: NotifyTarget[] = [];

const addZone = (name: string) =>
  store.createZone(name, SETTINGS, [
    { name, type: 'NS', ttl: 300, value: 'ns1.example.test' },
    { name: `www.${name}`, type: 'A', ttl: 300, value: '192.0.2.80' },
  ]);

/** named's answer status for `zone` SOA, polled until it is `status` (at most `ms`); the last one seen. */
async function namedSays(zone: string, status: string, ms = 20_000): Promise<string> {
  const deadline = Date.now() + ms;
  let seen = '';
  while (Date.now() < deadline) {
    seen = (await dig(named, [zone, 'SOA'])).status;
    if (seen === status) return seen;
    await new Promise((r) => setTimeout(r, 200));
  }
  return seen;
}

beforeAll(async () => {
  requireTool('dig');
  store = await openSqliteStore({ file: ':memory:' });
  await addZone('one.test');
  engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, notify, catalog: CATALOG });
  const port = engine.server?.port as number;
  named = await startNamed(
    [],
    `zone "${CATALOG}" { type secondary; primaries { 127.0.0.1 port ${port}; }; allow-notify { 127.0.0.1; }; };`,
    `minimal-responses no-auth; allow-new-zones yes;
     catalog-zones { zone "${CATALOG}" default-primaries { 127.0.0.1 port ${port}; } in-memory yes min-update-interval 1; };`,
  );
  named.process.stderr?.on('data', (d: Buffer) => (namedLog += d.toString()));
  notify.push({ host: '127.0.0.1', port: named.port });
}, 30_000);

afterAll(async () => {
  await engine?.close();
  await store?.close();
  await named?.stop();
});

it('serves a catalog of every other zone, as RFC 9432 lays it out', async () => {
  const soa = await dig(engine.server as { host: string; port: number }, [CATALOG, 'SOA']);
  expect(soa.status).toBe('NOERROR');
  const ns = await dig(engine.server as { host: string; port: number }, [CATALOG, 'NS']);
  expect(ns.answer.join('\n')).toMatch(/\sNS\s+invalid\.$/m);
  const version = await dig(engine.server as { host: string; port: number }, [`version.${CATALOG}`, 'TXT']);
  expect(version.answer.join('\n')).toMatch(/TXT\s+"2"/);
  const member = await dig(engine.server as { host: string; port: number }, [
    `${memberLabel('one.test')}.zones.${CATALOG}`,
    'PTR',
  ]);
  expect(member.answer.join('\n')).toMatch(/PTR\s+one\.test\.$/m);
});

it('BIND 9 adds the member zones from our catalog and transfers them', async () => {
  expect(await namedSays('one.test', 'NOERROR')).toBe('NOERROR');
  const www = await dig(named, ['www.one.test', 'A']);
  expect(www.answer.join('\n')).toMatch(/192\.0\.2\.80/);
});

it('a zone created is added by BIND by itself, and a zone deleted is dropped', async () => {
  expect(await namedSays('one.test', 'NOERROR')).toBe('NOERROR');
  expect((await dig(named, ['two.test', 'SOA'])).status).not.toBe('NOERROR');
  await addZone('two.test');
  expect(await namedSays('two.test', 'NOERROR')).toBe('NOERROR');
  await store.deleteZone('one.test');
  // a zone named no longer serves: REFUSED (not authoritative, recursion off)
  expect(await namedSays('one.test', 'REFUSED')).toBe('REFUSED');
  expect(await namedSays('two.test', 'NOERROR')).toBe('NOERROR');
  if (!/catz/i.test(namedLog)) throw new Error(`named's log says nothing of the catalog:\n${namedLog.slice(-3000)}`);
}, 60_000);

it('syncing again changes nothing, and puts back what was taken out of the catalog by hand', async () => {
  expect(await syncCatalog(store, CATALOG)).toBe(0);
  const [ptr] = await store.listRecords(CATALOG, { type: 'PTR' });
  await store.change(CATALOG, [{ op: 'delete', id: ptr?.id as string }]);
  await store.change(CATALOG, [
    { op: 'add', record: { name: `stale.zones.${CATALOG}`, type: 'PTR', ttl: 0, value: 'gone.test' } },
  ]);
  expect(await syncCatalog(store, CATALOG)).toBe(2);
  const names = (await store.listRecords(CATALOG, { type: 'PTR' })).map((r) => r.value).sort();
  expect(names).toEqual(
    (await store.listZones())
      .map((z) => z.name)
      .filter((n) => n !== CATALOG)
      .sort(),
  );
});
