// @needs postgres
/**
 * Dynamic updates over UDP, signed with TSIG, against the engine on SQLite and on PostgreSQL: the answer to an
 * UPDATE comes once the index shows the change (no stale answer, cached or not, after it), concurrent updates of
 * different names all land, and the patched index equals one built afresh from the store.
 */
import { randomBytes } from 'node:crypto';
import { DnsClient, type DecodedResponse, type UpdateOperation } from '../../dns/client';
import { DnsEngine } from '../../dns/engine/engine';
import type { ZoneData } from '../../dns/zone/zone-index';
import { openPostgresStore, openSqliteStore } from '../../dns/store';
import type { ZoneStore } from '../../dns/store/types';
import { answersOf, questionsFor, transferOf, zoneView } from '../../dns/testing/zone-compare';
import { parseKeySpec } from '../../dns/tsig/keyfile';
import { buildZone } from '../../dns/engine/zone-loader';
import { dropSchemas } from '../../dns/testing/postgres';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `iu_${process.pid}_${randomBytes(4).toString('hex')}`;
const ZONE = 'upd.test';
const KEY = parseKeySpec('hmac-sha256:upd:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=');

afterAll(async () => {
  await dropSchemas(url, [schema]);
});

const addA = (label: string, ip: string): UpdateOperation => ({
  op: 'add',
  name: `${label}.${ZONE}`,
  type: 'A',
  ttl: 300,
  value: ip,
});
/** Deletes every RRset at the name (class ANY, type ANY: RFC 2136 §2.5.3). */
const deleteName = (label: string): UpdateOperation => ({ op: 'deleteName', name: `${label}.${ZONE}` });
const NXDOMAIN = 3;
const firstA = (m: DecodedResponse): string | undefined => m.answers.find((a) => a.type === 'A')?.value;
/** The serial of an SOA value in presentation form (mname rname serial refresh retry expire minimum). */
const serialOf = (m: DecodedResponse): number | undefined => {
  const soa = m.answers.find((a) => a.type === 'SOA');
  return soa && Number(soa.value.split(' ')[2]);
};

describe.each([
  { kind: 'sqlite', open: () => openSqliteStore({ file: ':memory:' }) },
  { kind: 'postgres', open: () => openPostgresStore({ url, schema }) },
])('DNS UPDATE on $kind', ({ open }) => {
  let store: ZoneStore;
  let engine: DnsEngine;
  let client: DnsClient;
  let updater: DnsClient;

  beforeAll(async () => {
    store = await open();
    await store.createZone(
      ZONE,
      {
        adminEmail: `hostmaster@${ZONE}`,
        primaryNs: `ns1.${ZONE}`,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 60,
        defaultTtl: 300,
      },
      [
        { name: ZONE, type: 'NS', ttl: 300, value: `ns1.${ZONE}.` },
        { name: `ns1.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.53' },
        { name: `www.${ZONE}`, type: 'A', ttl: 300, value: '192.0.2.1' },
      ],
    );
    engine = await DnsEngine.start({ store, host: '127.0.0.1', port: 0, keys: [KEY] });
    const server = { host: '127.0.0.1', port: engine.server?.port as number };
    // queries unsigned (signed ones never come from the answer cache); updates signed with the key, their answers
    // verified, and an UPDATE not answered NOERROR throws
    client = new DnsClient({ server });
    updater = new DnsClient({ server, key: KEY });
  });
  afterAll(async () => {
    await engine.close();
    await store.close();
  });

  async function expectFresh(): Promise<void> {
    const current = engine.index.get(ZONE) as ZoneData;
    const fresh = (await buildZone(store, ZONE)) as ZoneData;
    expect(zoneView(current)).toEqual(zoneView(fresh));
    const questions = questionsFor([current, fresh], [`n0.${ZONE}`, `x.deep.${ZONE}`, `deep.${ZONE}`]);
    expect(answersOf(current, questions)).toEqual(answersOf(fresh, questions));
    expect(transferOf(current)).toEqual(transferOf(fresh));
  }

  test('an answer cached before an update is not served after it; the SOA shows the new serial at once', async () => {
    expect((await client.query(`n0.${ZONE}`, 'A')).rcode).toBe(NXDOMAIN);
    expect((await client.query(`n0.${ZONE}`, 'A')).rcode).toBe(NXDOMAIN); // now from the answer cache
    expect((await client.query(`deep.${ZONE}`, 'A')).rcode).toBe(NXDOMAIN);
    await updater.update(ZONE, [addA('n0', '192.0.2.10'), addA('x.deep', '192.0.2.11')]); // throws unless NOERROR
    const answer = await client.query(`n0.${ZONE}`, 'A');
    expect(firstA(answer)).toBe('192.0.2.10');
    const ent = await client.query(`deep.${ZONE}`, 'A');
    expect([ent.rcode, ent.answers.length]).toEqual([0, 0]); // an empty non-terminal now
    expect(serialOf(await client.query(ZONE, 'SOA'))).toBe((await store.getZone(ZONE))?.serial);
    await expectFresh();

    await updater.update(ZONE, [deleteName('n0'), deleteName('x.deep')]);
    expect((await client.query(`n0.${ZONE}`, 'A')).rcode).toBe(NXDOMAIN);
    expect((await client.query(`deep.${ZONE}`, 'A')).rcode).toBe(NXDOMAIN);
    await expectFresh();
  });

  test('concurrent updates of different names all land and answer at once', async () => {
    const labels = Array.from({ length: 12 }, (_, i) => `c${i}`);
    // each UPDATE resolves only on a NOERROR answer
    await Promise.all(labels.map((l, i) => updater.update(ZONE, [addA(l, `192.0.2.${100 + i}`)])));
    const answers = await Promise.all(labels.map((l) => client.query(`${l}.${ZONE}`, 'A')));
    expect(answers.map(firstA)).toEqual(labels.map((_, i) => `192.0.2.${100 + i}`));
    await expectFresh();
    await Promise.all(labels.filter((_, i) => i % 2 === 0).map((l) => updater.update(ZONE, [deleteName(l)])));
    await expectFresh();
    expect(await store.listRecords(ZONE, { names: labels.map((l) => `${l}.${ZONE}`) })).toHaveLength(6);
  });
});
