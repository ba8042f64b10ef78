import { createClient, type Client } from 'graphql-sse';
import { waitFor } from '../support/sse';
import { call, gql, startDnsApiSystem, userWithRole, type DnsApiSystem, type Reply } from './api';

/**
 * DNSSEC through the DNS API (docs/dnssec.md): the status of a zone, turning signing on
 * with each algorithm and off, ZSK rollovers by pre-publication, and every way of asking wrongly — over REST and
 * over GraphQL. Whether the DNS server's answers are signed is tested with the engine (test/dnssec), not here.
 * One system for the whole file; RSA keys are 1024 bits long to keep key generation quick.
 */
interface Key {
  id: string;
  algorithm: string;
  key_type: 'KSK' | 'ZSK';
  bits: number;
  created_at: string;
  expires_at: string;
  key_tag: number;
  state: 'published' | 'active' | 'retired';
  publish_at: string;
  activate_at: string;
  inactive_at: string | null;
  delete_at: string | null;
}
interface Ds {
  key_tag: string;
  algorithm: string;
  digest_type: string;
  digest: string;
}
interface Status {
  enabled: boolean;
  keys: Key[];
  ds_records: Ds[];
  denial: 'NSEC' | 'NSEC3' | null;
  nsec3param: { algorithm: number; flags: number; iterations: number; salt: string; opt_out: boolean } | null;
}
/** What an unsigned zone's status is. */
const UNSIGNED = { enabled: false, keys: [], ds_records: [], denial: null, nsec3param: null };
interface Rollover {
  success: boolean;
  message: string;
  old_key_id: string;
  new_key_id: string;
  rollover_completion_date: string;
}
interface ErrorBody {
  error: string;
  errors?: Array<{ field: string; message: string }>;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_FIELDS = [
  'activate_at',
  'algorithm',
  'bits',
  'cds_at',
  'cds_until',
  'created_at',
  'delete_at',
  'ds_seen_at',
  'expires_at',
  'id',
  'inactive_at',
  'key_tag',
  'key_type',
  'publish_at',
  'state',
];

let api: DnsApiSystem;
let operator: string;
let viewer: string;
const clients: Client[] = [];

const rest = <T = Status>(method: string, path: string, token: string | undefined, body?: unknown) =>
  call<T>(api.gateway, method, path, { token, body });
const dnssecOf = (zone: string, token = viewer) => rest('GET', `/zones/${zone}/dnssec`, token);
const setDnssec = (zone: string, body: unknown, token = operator) => rest('POST', `/zones/${zone}/dnssec`, token, body);
const rotate = (zone: string, token = operator) => rest<Rollover>('POST', `/zones/${zone}/dnssec/rotate`, token);

/** A new zone (as admin) for one test. */
async function zone(name: string): Promise<string> {
  const res = await call(api.gateway, 'POST', '/zones', { token: api.adminToken, body: { name } });
  if (res.status !== 201) throw new Error(`creating ${name} answered ${res.status}: ${res.text}`);
  return name;
}

/** The status of a zone just signed, checked for what is true of every algorithm; the KSK and the ZSK. */
function signedStatus(
  status: Status,
  algorithm: { name: string; number: string; bits: number },
): { ksk: Key; zsk: Key } {
  expect(status.enabled).toBe(true);
  expect(status.keys).toHaveLength(2);
  for (const key of status.keys) {
    expect(Object.keys(key).sort()).toEqual(KEY_FIELDS);
    expect(key).toMatchObject({ algorithm: algorithm.name, bits: algorithm.bits, state: 'active' });
    expect(key.id).toMatch(UUID);
    for (const at of [key.created_at, key.expires_at, key.publish_at, key.activate_at]) expect(at).toMatch(ISO);
    expect(Date.parse(key.expires_at)).toBeGreaterThan(Date.parse(key.created_at));
    expect(key).toMatchObject({ inactive_at: null, delete_at: null });
    expect(Number.isInteger(key.key_tag) && key.key_tag >= 0 && key.key_tag <= 65_535).toBe(true);
  }
  const ksk = status.keys.find((k) => k.key_type === 'KSK');
  const zsk = status.keys.find((k) => k.key_type === 'ZSK');
  if (!ksk || !zsk) throw new Error(`expected a KSK and a ZSK: ${JSON.stringify(status.keys)}`);
  expect(ksk.id).not.toBe(zsk.id);
  // A KSK lives longer than a ZSK (policy: a year against 90 days).
  expect(Date.parse(ksk.expires_at)).toBeGreaterThan(Date.parse(zsk.expires_at));
  // DS records point at the KSK only (flags 257, the secure entry point): SHA-256 and SHA-384.
  expect(status.ds_records.map((d) => d.digest_type)).toEqual(['2', '4']);
  for (const ds of status.ds_records) {
    expect(Object.keys(ds).sort()).toEqual(['algorithm', 'digest', 'digest_type', 'key_tag']);
    expect(ds.key_tag).toBe(String(ksk.key_tag));
    expect(ds.key_tag).toMatch(/^\d+$/);
    expect(ds.algorithm).toBe(algorithm.number);
    expect(ds.digest).toMatch(ds.digest_type === '2' ? /^[0-9A-F]{64}$/ : /^[0-9A-F]{96}$/);
  }
  return { ksk, zsk };
}

/** A 422 naming `field` first, with a message (in `error` and in `errors`) that matches `message`. */
function expectInvalid(res: Reply<unknown>, field: string, message: RegExp): void {
  expect({ status: res.status, text: res.text }).toMatchObject({ status: 422 });
  const body = res.body as ErrorBody;
  expect(body.error).toMatch(message);
  expect(body.errors?.[0]).toEqual({ field, message: body.error });
}

beforeAll(async () => {
  api = await startDnsApiSystem({ DNS_PORT: '0' });
  operator = (await userWithRole(api, 'signer', 'operator')).token;
  viewer = (await userWithRole(api, 'reader', 'viewer')).token;
}, 60_000);
afterAll(async () => {
  for (const c of clients) c.dispose();
  await api?.close();
});

describe('GET /zones/{zone}/dnssec', () => {
  it('a new zone: not signed, no keys, no DS records; its details say dnssec_enabled false', async () => {
    const name = await zone('fresh.dnssec.test');
    const res = await dnssecOf(name);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(UNSIGNED);
    expect((await rest('GET', `/zones/${name}`, viewer)).body).toMatchObject({ dnssec_enabled: false });
  });

  it('unknown zone 404, no token 401', async () => {
    const missing = await dnssecOf('nothing.dnssec.test');
    expect(missing.status).toBe(404);
    expect((missing.body as unknown as ErrorBody).error).toMatch(/nothing\.dnssec\.test/);
    const anonymous = await call(api.gateway, 'GET', '/zones/fresh.dnssec.test/dnssec');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('POST /zones/{zone}/dnssec: enable', () => {
  it('with defaults: ECDSAP256SHA256, a KSK and a ZSK of 256 bits, two DS records; the zone says it is signed', async () => {
    const name = await zone('default.dnssec.test');
    const res = await setDnssec(name, { enable: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['denial', 'ds_records', 'enabled', 'keys', 'nsec3param']); // rollovers: only during one
    signedStatus(res.body, { name: 'ECDSAP256SHA256', number: '13', bits: 256 });
    // The status read back is the one the change answered with.
    expect((await dnssecOf(name)).body).toEqual(res.body);
    const details = await rest('GET', `/zones/${name}`, viewer);
    expect(details.body).toMatchObject({ name, dnssec_enabled: true });
  });

  it.each([
    ['RSASHA256', { key_size: 1024 }, '8', 1024],
    ['ECDSAP384SHA384', {}, '14', 384],
    ['ECDSAP384SHA384', { key_size: 384 }, '14', 384],
    ['ED25519', {}, '15', 256],
  ])('%s %j: algorithm %s, %i bits', async (algorithm, extra, number, bits) => {
    const name = await zone(`${algorithm.toLowerCase()}-${Object.keys(extra).length}.dnssec.test`);
    const res = await setDnssec(name, { enable: true, algorithm, ...extra });
    expect({ status: res.status, text: res.text }).toMatchObject({ status: 200 });
    signedStatus(res.body, { name: algorithm, number, bits });
  });

  it('twice: 409 saying it is on already, keys unchanged', async () => {
    const name = await zone('twice.dnssec.test');
    const first = await setDnssec(name, { enable: true, algorithm: 'ED25519' });
    expect(first.status).toBe(200);
    const again = await setDnssec(name, { enable: true, algorithm: 'ED25519' });
    expect(again.status).toBe(409);
    expect((again.body as unknown as ErrorBody).error).toMatch(/already enabled/);
    expect((await dnssecOf(name)).body).toEqual(first.body);
  });
});

describe('POST /zones/{zone}/dnssec: disable', () => {
  it('on a signed zone without a rollover: 200, enabled false and no keys; the zone says unsigned; again 409', async () => {
    const name = await zone('off.dnssec.test');
    expect((await setDnssec(name, { enable: true })).status).toBe(200);
    const off = await setDnssec(name, { enable: false });
    expect(off.status).toBe(200);
    expect(off.body).toEqual(UNSIGNED);
    expect((await dnssecOf(name)).body).toEqual(UNSIGNED);
    expect((await rest('GET', `/zones/${name}`, viewer)).body).toMatchObject({ dnssec_enabled: false });
    const again = await setDnssec(name, { enable: false });
    expect(again.status).toBe(409);
    expect((again.body as unknown as ErrorBody).error).toMatch(/not enabled/);
    // And on again, with new keys.
    const on = await setDnssec(name, { enable: true, algorithm: 'ED25519' });
    expect(on.status).toBe(200);
    expect(on.body.keys.map((k) => k.algorithm)).toEqual(['ED25519', 'ED25519']);
  });
});

describe('POST /zones/{zone}/dnssec/rotate', () => {
  const name = 'rotate.dnssec.test';
  let before: { ksk: Key; zsk: Key };
  let rollover: Rollover;

  beforeAll(async () => {
    await zone(name);
    const on = await setDnssec(name, { enable: true });
    expect(on.status).toBe(200);
    before = signedStatus(on.body, { name: 'ECDSAP256SHA256', number: '13', bits: 256 });
  });

  it('starts a ZSK rollover: the old key is the active ZSK, a new key id, a completion date in the future', async () => {
    const startedAt = Date.now();
    const res = await rotate(name);
    expect({ status: res.status, text: res.text }).toMatchObject({ status: 200 });
    rollover = res.body;
    expect(Object.keys(rollover).sort()).toEqual([
      'message',
      'new_key_id',
      'old_key_id',
      'rollover_completion_date',
      'success',
    ]);
    expect(rollover.success).toBe(true);
    expect(rollover.old_key_id).toBe(before.zsk.id);
    expect(rollover.new_key_id).toMatch(UUID);
    expect([before.ksk.id, before.zsk.id]).not.toContain(rollover.new_key_id);
    expect(rollover.rollover_completion_date).toMatch(ISO);
    expect(Date.parse(rollover.rollover_completion_date)).toBeGreaterThan(startedAt);
    expect(rollover.message).toContain(rollover.new_key_id);
  });

  it('then three keys: the new ZSK published, the old one signing until the new one does, removed at completion', async () => {
    const status = (await dnssecOf(name)).body;
    expect(status.enabled).toBe(true);
    expect(status.keys).toHaveLength(3);
    const byId = new Map(status.keys.map((k) => [k.id, k]));
    const fresh = byId.get(rollover.new_key_id);
    const old = byId.get(rollover.old_key_id);
    expect(byId.get(before.ksk.id)).toEqual(before.ksk);
    expect(fresh).toMatchObject({ key_type: 'ZSK', state: 'published', algorithm: 'ECDSAP256SHA256', bits: 256 });
    expect(old).toMatchObject({ key_type: 'ZSK', state: 'active' });
    // Pre-publication (RFC 7583 §3.3.1): the new key signs from the moment the old one stops; the old one leaves
    // the DNSKEY RRset when the rollover completes.
    expect(Date.parse(fresh?.activate_at ?? '')).toBeGreaterThan(Date.now());
    expect(old?.inactive_at).toBe(fresh?.activate_at);
    expect(old?.delete_at).toBe(rollover.rollover_completion_date);
    expect(Date.parse(rollover.rollover_completion_date)).toBeGreaterThan(Date.parse(fresh?.activate_at ?? ''));
    // The KSK did not change: neither did the DS records.
    expect(status.ds_records.map((d) => d.key_tag)).toEqual([String(before.ksk.key_tag), String(before.ksk.key_tag)]);
  });

  it('during the rollover: rotate 409 and disable 409, each saying what the rollover waits for', async () => {
    const again = await rotate(name);
    expect(again.status).toBe(409);
    const rotateError = (again.body as unknown as ErrorBody).error;
    expect(rotateError).toMatch(/rollover is already in progress/);
    expect(rotateError).toContain(`${rollover.new_key_id} is published and starts signing at`);
    expect(rotateError).toContain(`removed at ${rollover.rollover_completion_date}`);
    const off = await setDnssec(name, { enable: false });
    expect(off.status).toBe(409);
    const offError = (off.body as unknown as ErrorBody).error;
    expect(offError).toMatch(/cannot turn DNSSEC off during a ZSK rollover/);
    expect(offError).toContain(rollover.rollover_completion_date);
    expect((await dnssecOf(name)).body.keys).toHaveLength(3);
  });

  it('an unsigned zone: 409 saying to enable DNSSEC first; unknown zone 404', async () => {
    const unsigned = await zone('unsigned.dnssec.test');
    const res = await rotate(unsigned);
    expect(res.status).toBe(409);
    expect((res.body as unknown as ErrorBody).error).toMatch(/not enabled.*enable it first/);
    expect((await rotate('nothing.dnssec.test')).status).toBe(404);
  });

  it('with a field in a body: 422 naming it (it takes none); an empty object is fine', async () => {
    const name2 = await zone('rotate-body.dnssec.test');
    expect((await setDnssec(name2, { enable: true, algorithm: 'ED25519' })).status).toBe(200);
    expectInvalid(await rest('POST', `/zones/${name2}/dnssec/rotate`, operator, { key: 'x' }), 'key', /unknown field/);
    expect((await rest('POST', `/zones/${name2}/dnssec/rotate`, operator, {})).status).toBe(200);
  });

  it('key_type: ZSK as without a body, KSK a KSK rollover; anything else 422 naming key_type and the values', async () => {
    const name3 = await zone('rotate-kind.dnssec.test');
    expect((await setDnssec(name3, { enable: true })).status).toBe(200);
    for (const bad of ['XSK', 'ksk', 5, true])
      expectInvalid(
        await rest('POST', `/zones/${name3}/dnssec/rotate`, operator, { key_type: bad }),
        'key_type',
        /key_type must be one of "KSK", "ZSK"/,
      );
    expect((await dnssecOf(name3)).body.keys).toHaveLength(2); // nothing started
    const zsk = await rest<Rollover>('POST', `/zones/${name3}/dnssec/rotate`, operator, { key_type: 'ZSK' });
    expect(zsk.status).toBe(200);
    const ksk = await rest<Rollover>('POST', `/zones/${name3}/dnssec/rotate`, operator, { key_type: 'KSK' });
    expect(ksk.status).toBe(200);
    const status = (await dnssecOf(name3)).body as unknown as {
      rollovers: Array<{ key_type: string; new_key_id: string }>;
    };
    expect(status.rollovers.map((r) => [r.key_type, r.new_key_id])).toEqual([
      ['KSK', ksk.body.new_key_id],
      ['ZSK', zsk.body.new_key_id],
    ]);
    const again = await rest('POST', `/zones/${name3}/dnssec/rotate`, operator, { key_type: 'KSK' });
    expect(again.status).toBe(409);
    expect((again.body as unknown as ErrorBody).error).toMatch(
      /a KSK rollover is already in progress: the new KSK .* is published/,
    );
    const seen = await rest('POST', `/zones/${name3}/dnssec/ds-seen`, operator, { key_tag: 'x' });
    expectInvalid(seen, 'key_tag', /key_tag must be an integer/);
    const early = await rest('POST', `/zones/${name3}/dnssec/ds-seen`, operator);
    expect(early.status).toBe(409);
    expect((early.body as unknown as ErrorBody).error).toMatch(/its CDS\/CDNSKEY come at/);
  });
});

describe('bad input: the status, and the field named in snake_case', () => {
  const name = 'bad.dnssec.test';
  beforeAll(() => zone(name));
  afterEach(async () => {
    // Nothing bad ever signs the zone halfway.
    expect((await dnssecOf(name)).body).toEqual(UNSIGNED);
  });

  it('an unknown algorithm: 422 on algorithm, listing the allowed names', async () => {
    const res = await setDnssec(name, { enable: true, algorithm: 'DSA' });
    expectInvalid(res, 'algorithm', /^algorithm must be one of RSASHA256, ECDSAP256SHA256, ECDSAP384SHA384, ED25519/);
    expectInvalid(await setDnssec(name, { enable: true, algorithm: 13 }), 'algorithm', /algorithm must be a string/);
  });

  it.each([
    ['RSASHA256', 512, /^key_size must be from 1024 to 4096 for RSASHA256 \(got 512\)/],
    ['RSASHA256', 8192, /^key_size must be from 1024 to 4096 for RSASHA256/],
    ['RSASHA256', -1, /^key_size must be from 1024 to 4096/],
    ['ECDSAP384SHA384', 256, /^key_size must be 384 for ECDSAP384SHA384/],
    ['ECDSAP256SHA256', 2048, /^key_size must be 256 for ECDSAP256SHA256/],
    ['ED25519', 512, /^key_size must be 256 for ED25519/],
  ])('%s with key_size %i: 422 on key_size', async (algorithm, size, message) => {
    expectInvalid(await setDnssec(name, { enable: true, algorithm, key_size: size }), 'key_size', message);
  });

  it('key_size not an integer: 422 on key_size', async () => {
    const fraction = await setDnssec(name, { enable: true, algorithm: 'RSASHA256', key_size: 1536.5 });
    expectInvalid(fraction, 'key_size', /^key_size must be an integer/);
    const text = await setDnssec(name, { enable: true, algorithm: 'RSASHA256', key_size: '2048' });
    expectInvalid(text, 'key_size', /^key_size must be an integer/);
  });

  it('enable missing or not a boolean: 422 on enable', async () => {
    expectInvalid(await setDnssec(name, { algorithm: 'ED25519' }), 'enable', /^enable is required/);
    expectInvalid(await setDnssec(name, { enable: 'true' }), 'enable', /^enable must be true or false/);
    expectInvalid(await setDnssec(name, { enable: 1 }), 'enable', /^enable must be true or false/);
    expectInvalid(await setDnssec(name, { enable: null }), 'enable', /^enable must be true or false/);
  });

  it('algorithm or key_size with enable false: 422 on each', async () => {
    expectInvalid(
      await setDnssec(name, { enable: false, algorithm: 'ED25519' }),
      'algorithm',
      /^algorithm only goes with enable: true/,
    );
    const both = await setDnssec(name, { enable: false, algorithm: 'RSASHA256', key_size: 2048 });
    expectInvalid(both, 'algorithm', /only goes with enable: true/);
    expect((both.body as unknown as ErrorBody).errors?.map((e) => e.field)).toEqual(['algorithm', 'key_size']);
    expect(both.text).not.toMatch(/keySize/);
  });

  it('an unknown field: 422 naming it, as on every route', async () => {
    expectInvalid(await setDnssec(name, { enable: true, keySize: 256 }), 'keySize', /^unknown field "keySize"/);
  });

  it('malformed JSON, an empty body, not an object: 400', async () => {
    for (const body of ['{"enable": tru', '', '[true]', 'true']) {
      const res = await call<ErrorBody>(api.gateway, 'POST', `/zones/${name}/dnssec`, { token: operator, body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('unknown zone: 404', async () => {
    expect((await setDnssec('nothing.dnssec.test', { enable: true })).status).toBe(404);
    expect((await setDnssec('nothing.dnssec.test', { enable: false })).status).toBe(404);
  });
});

describe('denial: NSEC (default) or NSEC3, and switching a signed zone', () => {
  const NSEC3 = (optOut: boolean) => ({ algorithm: 1, flags: 0, iterations: 0, salt: '-', opt_out: optOut });

  it('enable with defaults gives NSEC; with denial NSEC3 (and opt_out) the status shows nsec3param', async () => {
    const plain = await zone('nsec.denial.test');
    const on = await setDnssec(plain, { enable: true });
    expect(on.body).toMatchObject({ enabled: true, denial: 'NSEC', nsec3param: null });
    expect((await dnssecOf(plain)).body).toMatchObject({ denial: 'NSEC', nsec3param: null });
    const hashed = await zone('nsec3.denial.test');
    const on3 = await setDnssec(hashed, { enable: true, denial: 'NSEC3', opt_out: true });
    expect(on3.status).toBe(200);
    expect(on3.body).toMatchObject({ enabled: true, denial: 'NSEC3', nsec3param: NSEC3(true) });
    expect((await dnssecOf(hashed)).body).toMatchObject({ denial: 'NSEC3', nsec3param: NSEC3(true) });
  });

  it('switches a signed zone NSEC → NSEC3 → NSEC3 with Opt-Out → NSEC, keys kept; the same denial again: 409', async () => {
    const name = await zone('switch.denial.test');
    const on = await setDnssec(name, { enable: true });
    const keys = on.body.keys.map((k) => k.id);
    const same = await setDnssec(name, { enable: true, denial: 'NSEC' });
    expect(same.status).toBe(409);
    expect((same.body as unknown as ErrorBody).error).toMatch(/already enabled .* with NSEC$/);
    expect((await setDnssec(name, { enable: true })).status).toBe(409); // no denial: as it always was

    const to3 = await setDnssec(name, { enable: true, denial: 'NSEC3', algorithm: 'ECDSAP256SHA256' });
    expect(to3.status).toBe(200);
    expect(to3.body).toMatchObject({ denial: 'NSEC3', nsec3param: NSEC3(false) });
    expect(to3.body.keys.map((k) => k.id)).toEqual(keys);
    expect((await setDnssec(name, { enable: true, denial: 'NSEC3' })).status).toBe(409);
    const optOut = await setDnssec(name, { enable: true, denial: 'NSEC3', opt_out: true });
    expect(optOut.body).toMatchObject({ denial: 'NSEC3', nsec3param: NSEC3(true) });
    const back = await setDnssec(name, { enable: true, denial: 'NSEC' });
    expect(back.body).toMatchObject({ denial: 'NSEC', nsec3param: null });
    expect((await dnssecOf(name)).body).toMatchObject({ denial: 'NSEC', nsec3param: null });
    // another algorithm is not a switch: 409 as before, nothing changed
    const other = await setDnssec(name, { enable: true, denial: 'NSEC3', algorithm: 'ED25519' });
    expect(other.status).toBe(409);
    expect((await dnssecOf(name)).body).toMatchObject({ denial: 'NSEC' });
  });

  it('enable false clears the choice: enabled again without denial is NSEC', async () => {
    const name = await zone('off.denial.test');
    await setDnssec(name, { enable: true, denial: 'NSEC3' });
    expect((await setDnssec(name, { enable: false })).body).toEqual(UNSIGNED);
    expect((await setDnssec(name, { enable: true })).body).toMatchObject({ denial: 'NSEC', nsec3param: null });
  });

  describe('bad values: 422 naming the field, nothing written', () => {
    const name = 'bad.denial.test';
    beforeAll(() => zone(name));
    afterEach(async () => expect((await dnssecOf(name)).body).toEqual(UNSIGNED));

    it('denial not NSEC or NSEC3', async () => {
      for (const denial of ['NSEC5', 'nsec3', 3, null])
        expectInvalid(
          await setDnssec(name, { enable: true, denial }),
          'denial',
          /^denial must be one of "NSEC", "NSEC3"/,
        );
    });
    it('opt_out not a boolean', async () => {
      for (const opt of ['yes', 1, null])
        expectInvalid(
          await setDnssec(name, { enable: true, denial: 'NSEC3', opt_out: opt }),
          'opt_out',
          /^opt_out must be true or false/,
        );
    });
    it('opt_out with NSEC (or without a denial)', async () => {
      for (const body of [{ denial: 'NSEC', opt_out: true }, { opt_out: true }])
        expectInvalid(
          await setDnssec(name, { enable: true, ...body }),
          'opt_out',
          /^opt_out goes only with denial NSEC3/,
        );
    });
    it('denial or opt_out with enable false', async () => {
      const res = await setDnssec(name, { enable: false, denial: 'NSEC3', opt_out: false });
      expectInvalid(res, 'denial', /^denial only goes with enable: true/);
      expect((res.body as unknown as ErrorBody).errors?.map((e) => e.field)).toEqual(['denial', 'opt_out']);
    });
    it('iterations and salt are not settable (RFC 9276): 422 unknown field', async () => {
      expectInvalid(
        await setDnssec(name, { enable: true, denial: 'NSEC3', iterations: 10 }),
        'iterations',
        /^unknown field "iterations"/,
      );
      expectInvalid(
        await setDnssec(name, { enable: true, denial: 'NSEC3', salt: 'aabb' }),
        'salt',
        /^unknown field "salt"/,
      );
    });
  });

  it('GraphQL: denial and optOut in, denial and nsec3param out; bad values BAD_USER_INPUT; same denial CONFLICT', async () => {
    const url = api.sys.url;
    const name = await zone('graphql.denial.test');
    const SET = `mutation S($z: String!, $in: DnssecInput!) { setZoneDnssec(zone: $z, input: $in) { enabled denial nsec3param { algorithm flags iterations salt optOut } } }`;
    const on = await gql(url, SET, { z: name, in: { enable: true, denial: 'NSEC3', optOut: true } }, operator);
    expect(on.body).toEqual({
      data: {
        setZoneDnssec: {
          enabled: true,
          denial: 'NSEC3',
          nsec3param: { algorithm: 1, flags: 0, iterations: 0, salt: '-', optOut: true },
        },
      },
    });
    const read = await gql(
      url,
      `query Z($z: String!) { zone(name: $z) { dnssec { denial nsec3param { optOut } } } }`,
      { z: name },
      viewer,
    );
    expect(read.body.data).toEqual({ zone: { dnssec: { denial: 'NSEC3', nsec3param: { optOut: true } } } });
    const again = await gql(url, SET, { z: name, in: { enable: true, denial: 'NSEC3', optOut: true } }, operator);
    expect(again.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const badEnum = await gql(url, SET, { z: name, in: { enable: true, denial: 'NSEC5' } }, operator);
    expect(badEnum.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(badEnum.body.errors?.[0]?.message).toMatch(/NSEC5/);
    const badOpt = await gql(url, SET, { z: name, in: { enable: true, denial: 'NSEC', optOut: true } }, operator);
    expect(badOpt.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'optOut' });
    const offWith = await gql(url, SET, { z: name, in: { enable: false, denial: 'NSEC' } }, operator);
    expect(offWith.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'denial' });
  });
});

describe('roles', () => {
  const name = 'roles.dnssec.test';
  beforeAll(() => zone(name));

  it('a viewer reads the status but may not change it (403); without a token 401 everywhere', async () => {
    const denied = await setDnssec(name, { enable: true }, viewer);
    expect(denied.status).toBe(403);
    expect((denied.body as unknown as ErrorBody).error).toMatch(/viewer may not change zones, records or DNSSEC/);
    expect((await rotate(name, viewer)).status).toBe(403);
    expect((await dnssecOf(name, viewer)).status).toBe(200);
    for (const res of [await setDnssec(name, { enable: true }, ''), await rotate(name, ''), await dnssecOf(name, '')]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    expect((await dnssecOf(name)).body.enabled).toBe(false);
  });

  it('admin and operator may both change it', async () => {
    expect((await setDnssec(name, { enable: true, algorithm: 'ED25519' }, operator)).status).toBe(200);
    expect((await rotate(name, api.adminToken)).status).toBe(200);
  });
});

describe('GraphQL', () => {
  const name = 'graphql.dnssec.test';
  beforeAll(() => zone(name));
  const ZONE = `query Z($z: String!) { zone(name: $z) { dnssecEnabled dnssec { enabled keys { id keyType state } dsRecords { digestType } } } }`;
  const SET = `mutation S($z: String!, $in: DnssecInput!) { setZoneDnssec(zone: $z, input: $in) { enabled keys { keyType algorithm bits keyTag } dsRecords { keyTag algorithm digestType } } }`;
  const ROTATE = `mutation R($z: String!) { rotateZoneDnssec(zone: $z) { success message oldKeyId newKeyId rolloverCompletionDate } }`;
  interface ZoneData {
    zone: {
      dnssecEnabled: boolean;
      dnssec: {
        enabled: boolean;
        keys: Array<{ id: string; keyType: string; state: string }>;
        dsRecords: Array<{ digestType: string }>;
      };
    };
  }

  it('Zone.dnssec, setZoneDnssec and rotateZoneDnssec through the gateway', async () => {
    const url = api.sys.url;
    const unsigned = await gql<ZoneData>(url, ZONE, { z: name }, viewer);
    expect(unsigned.body).toEqual({
      data: { zone: { dnssecEnabled: false, dnssec: { enabled: false, keys: [], dsRecords: [] } } },
    });

    const set = await gql<{
      setZoneDnssec: {
        enabled: boolean;
        keys: Array<{ keyType: string; algorithm: string; bits: number; keyTag: number }>;
        dsRecords: Array<{ keyTag: string; algorithm: string; digestType: string }>;
      };
    }>(url, SET, { z: name, in: { enable: true, algorithm: 'RSASHA256', keySize: 1024 } }, operator);
    expect(set.body.errors).toBeUndefined();
    const status = set.body.data?.setZoneDnssec;
    expect(status?.enabled).toBe(true);
    expect(status?.keys.map((k) => [k.keyType, k.algorithm, k.bits])).toEqual([
      ['KSK', 'RSASHA256', 1024],
      ['ZSK', 'RSASHA256', 1024],
    ]);
    const kskTag = String(status?.keys[0]?.keyTag);
    expect(status?.dsRecords).toEqual([
      { keyTag: kskTag, algorithm: '8', digestType: '2' },
      { keyTag: kskTag, algorithm: '8', digestType: '4' },
    ]);

    const signed = await gql<ZoneData>(url, ZONE, { z: name }, viewer);
    expect(signed.body.data?.zone.dnssecEnabled).toBe(true);
    expect(signed.body.data?.zone.dnssec.keys.map((k) => [k.keyType, k.state])).toEqual([
      ['KSK', 'ACTIVE'],
      ['ZSK', 'ACTIVE'],
    ]);
    expect(signed.body.data?.zone.dnssec.dsRecords).toEqual([{ digestType: '2' }, { digestType: '4' }]);
    // In a listing too (there the zone is read without its details).
    const listed = await gql<{ zones: Array<{ name: string; dnssecEnabled: boolean }> }>(
      url,
      '{ zones { name dnssecEnabled } }',
      {},
      viewer,
    );
    expect(listed.body.data?.zones.find((z) => z.name === name)?.dnssecEnabled).toBe(true);

    const rotated = await gql<{
      rotateZoneDnssec: { success: boolean; oldKeyId: string; newKeyId: string; rolloverCompletionDate: string };
    }>(url, ROTATE, { z: name }, api.adminToken);
    expect(rotated.body.errors).toBeUndefined();
    const zsk = signed.body.data?.zone.dnssec.keys.find((k) => k.keyType === 'ZSK');
    expect(rotated.body.data?.rotateZoneDnssec).toMatchObject({ success: true, oldKeyId: zsk?.id });
    const after = await gql<ZoneData>(url, ZONE, { z: name }, viewer);
    expect(after.body.data?.zone.dnssec.keys.map((k) => [k.keyType, k.state])).toEqual([
      ['KSK', 'ACTIVE'],
      ['ZSK', 'ACTIVE'],
      ['ZSK', 'PUBLISHED'],
    ]);
  });

  it('errors carry their codes: FORBIDDEN, BAD_USER_INPUT naming keySize, CONFLICT; null means not given', async () => {
    const url = api.sys.url;
    const other = await zone('graphql2.dnssec.test');
    const forbidden = await gql(url, SET, { z: other, in: { enable: true } }, viewer);
    expect(forbidden.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const anonymous = await gql(url, ROTATE, { z: other });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const bad = await gql(url, SET, { z: other, in: { enable: true, algorithm: 'ED25519', keySize: 255 } }, operator);
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'keySize' });
    expect(bad.body.errors?.[0]?.message).toMatch(/^keySize must be 256 for ED25519/);
    const unsigned = await gql(url, ROTATE, { z: other }, operator);
    expect(unsigned.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const missing = await gql(url, SET, { z: 'nothing.dnssec.test', in: { enable: true } }, operator);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // An optional field sent as null is one not given, with enable false as with enable true.
    const on = await gql(url, SET, { z: other, in: { enable: true, algorithm: null, keySize: null } }, operator);
    expect(on.body.errors).toBeUndefined();
    const off = await gql<{ setZoneDnssec: { enabled: boolean; keys: unknown[] } }>(
      url,
      SET,
      { z: other, in: { enable: false, algorithm: null, keySize: null } },
      operator,
    );
    expect(off.body.errors).toBeUndefined();
    expect(off.body.data?.setZoneDnssec).toMatchObject({ enabled: false, keys: [] });
  });

  it('KSK rollovers as over REST: rotateZoneDnssec(keyType: KSK), rollovers in the status, confirmZoneDsSeen', async () => {
    const url = api.sys.url;
    const name = await zone('graphql-ksk.dnssec.test');
    expect((await gql(url, SET, { z: name, in: { enable: true } }, operator)).body.errors).toBeUndefined();
    const KSK = `mutation K($z: String!, $t: DnssecKeyType) { rotateZoneDnssec(zone: $z, keyType: $t) { success oldKeyId newKeyId rolloverCompletionDate keyType } }`;
    const SEEN = `mutation D($z: String!, $tag: Int) { confirmZoneDsSeen(zone: $z, keyTag: $tag) { enabled } }`;
    const STATUS = `query Q($z: String!) { zone(name: $z) { dnssec { keys { id keyType cdsAt cdsUntil dsSeenAt } rollovers { keyType step startedAt oldKeyId newKeyId completesAt steps { step at done } } } } }`;
    const started = await gql<{ rotateZoneDnssec: { newKeyId: string; oldKeyId: string; keyType: string } }>(
      url,
      KSK,
      { z: name, t: 'KSK' },
      operator,
    );
    expect(started.body.errors).toBeUndefined();
    expect(started.body.data?.rotateZoneDnssec.keyType).toBe('KSK');
    const status = await gql<{
      zone: { dnssec: { rollovers: Array<{ keyType: string; step: string; newKeyId: string; completesAt: null }> } };
    }>(url, STATUS, { z: name }, viewer);
    expect(status.body.data?.zone.dnssec.rollovers).toEqual([
      expect.objectContaining({
        keyType: 'KSK',
        step: 'published',
        newKeyId: started.body.data?.rotateZoneDnssec.newKeyId,
        completesAt: null,
      }),
    ]);
    // the same refusals as REST: a second KSK rollover, a DS confirmed before the key is ready, a tag that is none
    const again = await gql(url, KSK, { z: name, t: 'KSK' }, operator);
    expect(again.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(again.body.errors?.[0]?.message).toMatch(/a KSK rollover is already in progress/);
    const early = await gql(url, SEEN, { z: name }, operator);
    expect(early.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(early.body.errors?.[0]?.message).toMatch(/not published long enough/);
    const badTag = await gql(url, SEEN, { z: name, tag: 70_000 }, operator);
    expect(badTag.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'keyTag' });
    const viewerSeen = await gql(url, SEEN, { z: name }, viewer);
    expect(viewerSeen.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('zoneChanges tells of a DNSSEC change, and who made it', async () => {
    const watched = await zone('feed.dnssec.test');
    const client = createClient({
      url: `${api.sys.url}/graphql/stream`,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${viewer}` },
    });
    clients.push(client);
    const changes: Array<{ kind: string; by: string | null }> = [];
    const errors: unknown[] = [];
    const stop = client.subscribe<{ zoneChanges: { kind: string; by: string | null } }>(
      { query: 'subscription C($z: [String!]) { zoneChanges(zones: $z) { kind by } }', variables: { z: [watched] } },
      {
        next: (result) => {
          if (result.errors) errors.push(...result.errors);
          if (result.data) changes.push(result.data.zoneChanges);
        },
        error: (err) => errors.push(err),
        complete: () => undefined,
      },
    );
    try {
      // The subscription is set up some time after the request: zone settings are written until it sees one.
      for (let attempt = 0; attempt < 100 && changes.length === 0; attempt++) {
        await call(api.gateway, 'PUT', `/zones/${watched}`, { token: operator, body: { refresh: 3600 + attempt } });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(changes.length).toBeGreaterThan(0);
      expect((await setDnssec(watched, { enable: true, algorithm: 'ED25519' })).status).toBe(200);
      await waitFor(() => changes.some((c) => c.kind === 'DNSSEC_CHANGED'), 5_000, 'a DNSSEC_CHANGED event');
      expect(changes.find((c) => c.kind === 'DNSSEC_CHANGED')).toEqual({ kind: 'DNSSEC_CHANGED', by: 'signer' });
      expect(errors).toEqual([]);
    } finally {
      stop();
    }
  });
});
