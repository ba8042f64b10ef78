// @needs build
/**
 * A large zone is signed by the signing pool's threads (the compiled thread script from `npm run build`): every
 * RRSIG they make verifies, and the zone is the one signZone makes on this thread alone.
 */
import type { SoaAnswer } from 'dns-packet';
import { ZoneBuilder } from '../zone/zone-index';
import { algorithmByNumber, verifyData } from './algorithms';
import { signedData } from './canonical';
import { pack, unpack } from './sign-batch';
import { SignPool } from './sign-pool';
import { freshKeys } from './zone-keys';
import { DEFAULT_SIGNING_POLICY, signZone, signZoneInSteps } from './zone-signer';

const NOW = 1_790_000_000;
const SOA: SoaAnswer = {
  name: 'pool.test',
  type: 'SOA',
  class: 'IN',
  ttl: 3600,
  data: {
    mname: 'ns1.pool.test',
    rname: 'hostmaster.pool.test',
    serial: 1,
    refresh: 1,
    retry: 2,
    expire: 3,
    minimum: 300,
  },
};

test('the pool exists on a machine of several cores once the thread script is built', () => {
  expect(SignPool.shared()).toBeDefined();
});

test('a zone of 2 500 names signed by the threads: every signature verifies, the chain is signZone’s', async () => {
  const builder = new ZoneBuilder('pool.test', SOA);
  const names = Array.from({ length: 2500 }, (_, i) => `h${String(i).padStart(4, '0')}.pool.test`).sort();
  for (const name of names) builder.add({ name, type: 'A', ttl: 300, value: '192.0.2.1' });
  const zone = builder.finish();
  const keys = freshKeys('pool.test', 13, NOW - 10);
  const signed = await signZoneInSteps(zone, keys, DEFAULT_SIGNING_POLICY, NOW);
  const algorithm = algorithmByNumber(13);
  if (!algorithm) throw new Error('algorithm 13');
  let checked = 0;
  for (const node of signed.nodes.values()) {
    for (const rrsig of node.get('RRSIG') ?? []) {
      const sig = rrsig.data as unknown as Parameters<typeof signedData>[0] & { keyTag: number; signature: Buffer };
      const key = keys.find((k) => k.tag === sig.keyTag);
      const publicKey = (key?.dnskey.data as unknown as { key: Buffer }).key;
      const data = signedData(sig, rrsig.name, node.get(sig.typeCovered) ?? []);
      expect(verifyData(algorithm, publicKey, data, sig.signature)).toBe(true);
      checked++;
    }
  }
  expect(checked).toBe(2 * 2500 + 3); // A and NSEC per name; the apex's SOA, NSEC and DNSKEY (by the KSK)
  expect(signed.signing?.chain).toEqual(signZone(zone, keys, DEFAULT_SIGNING_POLICY, NOW).signing?.chain);
}, 60_000);

test('threads without work end after a while; the next signing starts new ones, and a caller of the ended pool is refused', async () => {
  const saved = SignPool.idleMs;
  SignPool.idleMs = 50;
  try {
    const pool = SignPool.shared();
    if (!pool) throw new Error('no pool');
    const keys = freshKeys('pool.test', 13, NOW - 10);
    const pkcs8 = keys[1]?.privateKey.export({ type: 'pkcs8', format: 'der' }) as Buffer;
    const job = { keyId: 'k', algorithm: 13, pkcs8, items: [Buffer.from('data')] };
    expect(await pool.sign(job)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    await expect(pool.sign(job)).rejects.toThrow(/ended/);
    const fresh = SignPool.shared();
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(pool);
    expect(await fresh?.sign(job)).toHaveLength(1);
  } finally {
    SignPool.idleMs = saved;
  }
});

test('batches to and from the threads: items packed back to back read back as they were, empty ones too', () => {
  const items = [Buffer.from('first'), Buffer.alloc(0), Buffer.from([0, 255, 7])];
  const { data, lengths, transfer } = pack(items);
  expect(transfer).toEqual([data.buffer, lengths.buffer]);
  expect(unpack(data, lengths)).toEqual(items);
  expect(unpack(pack([]).data, pack([]).lengths)).toEqual([]);
});
