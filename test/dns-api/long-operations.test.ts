import { DnsClient } from '../../dns/client';
import type { ZoneStore } from '../../dns/store/types';
import { call, gql, startDnsApiSystem, userWithRole, type DnsApiSystem, type Reply } from './api';
import { holdPast, holdStore } from './store-holds';

/**
 * The asynchronous form of the long writes (RFC 7240 `Prefer: respond-async`): 202 Accepted with where to poll, the
 * operation's state until it has succeeded with the synchronous form's body or failed with its error. The system runs
 * with a short subgraph timeout, and the held writes outlast it: a background operation is not bound by it.
 */
const TIMEOUT_MS = 1500; // room for a login's password hash on a busy machine
const ASYNC = { prefer: 'respond-async' };

interface OperationBody {
  id: string;
  kind: string;
  zone: string;
  state: 'running' | 'succeeded' | 'failed';
  progress: { done: number; total: number | null } | null;
  result: Record<string, unknown> | null;
  error: { status: number; error: string; errors?: Array<{ field: string; message: string }> } | null;
  created_at: string;
  finished_at: string | null;
}

let api: DnsApiSystem;
let store: ZoneStore;
let operator: { id: string; token: string };
let other: { id: string; token: string };
let viewer: { id: string; token: string };

beforeAll(async () => {
  api = await startDnsApiSystem({ SUBGRAPH_TIMEOUT_MS: String(TIMEOUT_MS) });
  const dns = api.sys.system.dns;
  if (!dns) throw new Error('the test system has no DNS part');
  store = dns.store;
  operator = await userWithRole(api, 'op-one', 'operator');
  other = await userWithRole(api, 'op-two', 'operator');
  viewer = await userWithRole(api, 'looker', 'viewer');
}, 60_000);
afterAll(() => api?.close());

const dns = () => new DnsClient({ server: api.dns });

function zoneFile(zone: string, address: string): string {
  return [
    `$ORIGIN ${zone}.`,
    `@ 3600 IN SOA ns1.${zone}. hostmaster.${zone}. 2024010101 10800 3600 604800 3600`,
    `@ 3600 IN NS ns1.${zone}.`,
    `www 300 IN A ${address}`,
    '',
  ].join('\n');
}

async function createZone(name: string): Promise<void> {
  expect((await call(api.gateway, 'POST', '/zones', { token: api.adminToken, body: { name } })).status).toBe(201);
}

/** The 202 of a long route, checked: Location, Preference-Applied, the operation running. */
function acceptedOperation(res: Reply<OperationBody>): OperationBody {
  expect({ status: res.status, text: res.text }).toEqual({ status: 202, text: expect.any(String) });
  expect(res.headers.get('location')).toBe(`/api/v1/operations/${res.body.id}`);
  expect(res.headers.get('preference-applied')).toBe('respond-async');
  return res.body;
}

/** Polls the operation (as `token`) until it is no longer running. */
async function finished(id: string, token: string): Promise<OperationBody> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await call<OperationBody>(api.gateway, 'GET', `/operations/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.state !== 'running') return res.body;
    if (Date.now() > deadline) throw new Error(`operation ${id} still runs: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('202 Accepted, then the operation until it has succeeded', () => {
  test('an import held past the subgraph timeout: running, then succeeded with the 201 body; DNS serves it', async () => {
    const held = holdStore(store, 'createZone');
    const res = await call<OperationBody>(api.gateway, 'POST', '/zones', {
      token: operator.token,
      headers: ASYNC,
      body: { name: 'async-import.test', zone_file: zoneFile('async-import.test', '192.0.2.51') },
    });
    const started = acceptedOperation(res);
    expect(started).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      kind: 'import_zone',
      zone: 'async-import.test',
      state: 'running',
      progress: null,
      result: null,
      error: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      finished_at: null,
    });
    await held.entered;
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS + 200));
    const polled = await call<OperationBody>(api.gateway, 'GET', `/operations/${started.id}`, {
      token: operator.token,
    });
    expect({ status: polled.status, state: polled.body.state }).toEqual({ status: 200, state: 'running' });
    await held.release();
    const done = await finished(started.id, operator.token);
    const zones = await call<{ zones: Array<Record<string, unknown>> }>(api.gateway, 'GET', '/zones', {
      token: operator.token,
    });
    expect(done).toEqual({
      ...started,
      state: 'succeeded',
      result: zones.body.zones.find((z) => z.name === 'async-import.test'),
      finished_at: expect.stringMatching(/Z$/),
    });
    expect(done.result).toMatchObject({ name: 'async-import.test', records_count: 2 });
    expect((await dns().query('www.async-import.test', 'A')).answers.map((r) => r.value)).toEqual(['192.0.2.51']);
  });

  test('DNSSEC on held past the timeout: succeeded with the 200 body (the keys); DNS answers the DNSKEYs', async () => {
    await createZone('async-sign.test');
    const answer = call<OperationBody>(api.gateway, 'POST', '/zones/async-sign.test/dnssec', {
      token: operator.token,
      headers: ASYNC,
      body: { enable: true, algorithm: 'ECDSAP256SHA256' },
    });
    const holding = holdPast(store, 'changeDnssecKeys', TIMEOUT_MS);
    const started = acceptedOperation(await answer);
    expect(started).toMatchObject({ kind: 'enable_dnssec', zone: 'async-sign.test', state: 'running' });
    await holding;
    const done = await finished(started.id, operator.token);
    const status = await call(api.gateway, 'GET', '/zones/async-sign.test/dnssec', { token: operator.token });
    expect({ state: done.state, error: done.error, result: done.result }).toEqual({
      state: 'succeeded',
      error: null,
      result: status.body,
    });
    expect((await dns().query('async-sign.test', 'TYPE48')).answers).toHaveLength(2);
  });

  test('a rollover, then DNSSEC off during it: the rollover succeeds, the off fails with the 409 it waits for', async () => {
    await createZone('async-roll.test');
    const on = await call(api.gateway, 'POST', '/zones/async-roll.test/dnssec', {
      token: operator.token,
      body: { enable: true },
    });
    expect(on.status).toBe(200);
    const rotate = acceptedOperation(
      await call<OperationBody>(api.gateway, 'POST', '/zones/async-roll.test/dnssec/rotate', {
        token: operator.token,
        headers: ASYNC,
      }),
    );
    expect(rotate.kind).toBe('rotate_dnssec');
    const rotated = await finished(rotate.id, operator.token);
    expect(rotated.state).toBe('succeeded');
    expect(rotated.result).toEqual({
      success: true,
      message: expect.stringContaining('ZSK rollover started'),
      old_key_id: expect.any(String),
      new_key_id: expect.any(String),
      rollover_completion_date: expect.stringMatching(/Z$/),
    });
    const off = acceptedOperation(
      await call<OperationBody>(api.gateway, 'POST', '/zones/async-roll.test/dnssec', {
        token: operator.token,
        headers: ASYNC,
        body: { enable: false },
      }),
    );
    expect(off.kind).toBe('disable_dnssec');
    const refused = await finished(off.id, operator.token);
    expect(refused).toMatchObject({ state: 'failed', result: null, finished_at: expect.stringMatching(/Z$/) });
    expect(refused.error).toEqual({
      status: 409,
      error: expect.stringMatching(/^cannot turn DNSSEC off during a ZSK rollover: the new ZSK .* is published/),
    });
  });

  test('GraphQL: startSetZoneDnssec returns the operation; operation(id) gives its result once done', async () => {
    await createZone('async-gql.test');
    const started = await gql<{ startSetZoneDnssec: { id: string; kind: string; state: string; result: null } }>(
      api.sys.url,
      'mutation { startSetZoneDnssec(zone: "async-gql.test", input: { enable: true }) { id kind state result { __typename } } }',
      {},
      operator.token,
    );
    expect(started.body.errors).toBeUndefined();
    const op = started.body.data?.startSetZoneDnssec;
    expect(op).toEqual({ id: expect.any(String), kind: 'ENABLE_DNSSEC', state: 'RUNNING', result: null });
    await finished(op?.id ?? '', operator.token);
    const read = await gql(
      api.sys.url,
      `query { operation(id: "${op?.id ?? ''}") { state progress { done } error { code } result { __typename ... on DnssecStatus { enabled } } } }`,
      {},
      operator.token,
    );
    expect(read.body).toEqual({
      data: {
        operation: {
          state: 'SUCCEEDED',
          progress: null,
          error: null,
          result: { __typename: 'DnssecStatus', enabled: true },
        },
      },
    });
  });
});

describe('an operation that fails ends failed with the synchronous form’s error', () => {
  test('DNSSEC on for a zone signed already: 409', async () => {
    await createZone('async-twice.test');
    const body = { enable: true };
    expect(
      (await call(api.gateway, 'POST', '/zones/async-twice.test/dnssec', { token: operator.token, body })).status,
    ).toBe(200);
    const started = acceptedOperation(
      await call<OperationBody>(api.gateway, 'POST', '/zones/async-twice.test/dnssec', {
        token: operator.token,
        headers: ASYNC,
        body,
      }),
    );
    const done = await finished(started.id, operator.token);
    expect({ state: done.state, result: done.result, error: done.error }).toEqual({
      state: 'failed',
      result: null,
      error: {
        status: 409,
        error: 'DNSSEC is already enabled for zone async-twice.test; turn it off first to change the algorithm',
      },
    });
  });

  test('an import of a file that does not read: 422 naming zone_file', async () => {
    const started = acceptedOperation(
      await call<OperationBody>(api.gateway, 'POST', '/zones', {
        token: operator.token,
        headers: ASYNC,
        body: { name: 'async-broken.test', zone_file: '$ORIGIN async-broken.test.\n@ IN SOA oops\n' },
      }),
    );
    const done = await finished(started.id, operator.token);
    expect(done.state).toBe('failed');
    expect(done.error).toEqual({
      status: 422,
      error: expect.stringMatching(/^zone_file could not be read: /),
      errors: [{ field: 'zone_file', message: expect.stringMatching(/^zone_file could not be read: /) }],
    });
    expect((await call(api.gateway, 'GET', '/zones/async-broken.test', { token: operator.token })).status).toBe(404);
  });

  test('a zone that exists already: 409; DNSSEC of a zone that does not exist: 404', async () => {
    await createZone('async-exists.test');
    const again = acceptedOperation(
      await call<OperationBody>(api.gateway, 'POST', '/zones', {
        token: operator.token,
        headers: ASYNC,
        body: { name: 'async-exists.test' },
      }),
    );
    expect(again.kind).toBe('create_zone');
    expect((await finished(again.id, operator.token)).error).toEqual({
      status: 409,
      error: 'zone async-exists.test already exists',
    });
    const nowhere = acceptedOperation(
      await call<OperationBody>(api.gateway, 'POST', '/zones/nowhere.test/dnssec/rotate', {
        token: operator.token,
        headers: ASYNC,
      }),
    );
    expect((await finished(nowhere.id, operator.token)).error).toMatchObject({ status: 404 });
  });
});

describe('what is checked before anything starts: the same errors as the synchronous form, no operation', () => {
  test.each([
    ['a value that does not validate', '/zones', { name: 'bad..name' }, 'operator', 422],
    ['a field of the wrong type', '/zones/async-sign.test/dnssec', { enable: 'yes' }, 'operator', 422],
    ['an algorithm that is none', '/zones/async-sign.test/dnssec', { enable: true, algorithm: 'DSA' }, 'operator', 422],
    ['an unknown field', '/zones', { name: 'x.test', extra: 1 }, 'operator', 422],
    ['a viewer', '/zones', { name: 'viewer-async.test' }, 'viewer', 403],
    ['no token', '/zones', { name: 'anonymous-async.test' }, 'none', 401],
  ])('%s: %s', async (_what, path, body, who, status) => {
    const token = who === 'operator' ? operator.token : who === 'viewer' ? viewer.token : undefined;
    const res = await call(api.gateway, 'POST', path, { token, headers: ASYNC, body });
    expect(res.status).toBe(status);
    expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('preference-applied')).toBeNull();
  });

  test('GraphQL: startCreateZone with a bad name is BAD_USER_INPUT, no operation', async () => {
    const res = await gql(
      api.sys.url,
      'mutation { startCreateZone(input: { name: "Bad..Name" }) { id } }',
      {},
      operator.token,
    );
    expect(res.body.data).toBeNull();
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name' });
  });
});

describe('GET /operations/{id}: the user who started it and admins', () => {
  let id: string;

  beforeAll(async () => {
    const started = await call<OperationBody>(api.gateway, 'POST', '/zones', {
      token: operator.token,
      headers: ASYNC,
      body: { name: 'async-owned.test' },
    });
    id = acceptedOperation(started).id;
    await finished(id, operator.token);
  });

  test('its starter and an admin read it', async () => {
    for (const token of [operator.token, api.adminToken]) {
      const res = await call<OperationBody>(api.gateway, 'GET', `/operations/${id}`, { token });
      expect({ status: res.status, id: res.body.id, state: res.body.state }).toEqual({
        status: 200,
        id,
        state: 'succeeded',
      });
    }
  });

  test.each([
    ['another operator', () => other.token, () => id],
    ['a viewer', () => viewer.token, () => id],
    ['an unknown id', () => operator.token, () => '00000000-0000-4000-8000-000000000000'],
    ['a malformed id', () => operator.token, () => 'not-an-id'],
  ])('%s: 404, as for no operation at all', async (_who, token, which) => {
    const res = await call(api.gateway, 'GET', `/operations/${which()}`, { token: token() });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 404,
      body: { error: `no operation ${JSON.stringify(which())}` },
    });
  });

  test('no token: 401', async () => {
    const res = await call(api.gateway, 'GET', `/operations/${id}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="dns-api"');
  });

  test('GraphQL: operation(id) is null for another user and for an unknown id', async () => {
    const query = `query { operation(id: "${id}") { id } }`;
    expect((await gql(api.sys.url, query, {}, other.token)).body).toEqual({ data: { operation: null } });
    expect((await gql(api.sys.url, query, {}, api.adminToken)).body).toEqual({ data: { operation: { id } } });
    expect((await gql(api.sys.url, 'query { operation(id: "nope") { id } }', {}, operator.token)).body).toEqual({
      data: { operation: null },
    });
  });
});

describe('Prefer values (RFC 7240): respond-async asks for it; what is unknown or malformed is ignored', () => {
  let n = 0;
  const post = (prefer: string | undefined) =>
    call<OperationBody>(api.gateway, 'POST', '/zones', {
      token: operator.token,
      body: { name: `prefer-${++n}.test` },
      ...(prefer === undefined ? {} : { headers: { prefer } }),
    });

  test.each([
    ['RESPOND-ASYNC', 202],
    ['return=minimal, respond-async', 202],
    ['respond-async; foo=bar', 202],
    ['respond-async, wait=100', 202],
    ['wait=5', 201],
    ['respond-async=yes', 201],
    ['respond-asynchronously', 201],
    ['"respond-async"', 201],
    ['=; ,,', 201],
  ])('Prefer: %j → %d', async (prefer, status) => {
    const res = await post(prefer);
    expect(res.status).toBe(status);
    if (status === 202) await finished(res.body.id, operator.token);
    else expect(res.headers.get('preference-applied')).toBeNull();
  });

  test('on a route that is not a long one, respond-async is ignored: 201, nothing applied', async () => {
    await createZone('prefer-record.test');
    const res = await call(api.gateway, 'POST', '/zones/prefer-record.test/records', {
      token: operator.token,
      headers: ASYNC,
      body: { name: 'www', type: 'A', value: '192.0.2.9' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('preference-applied')).toBeNull();
  });
});

test('at most 100 operations run at once: one more is a 429 with Retry-After, and nothing of it starts', async () => {
  await createZone('crowd-base.test');
  const real = store.createZone.bind(store);
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const spy = jest.spyOn(store, 'createZone').mockImplementation(async (...args) => {
    await gate;
    return real(...args);
  });
  const ids: string[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      const res = await call<OperationBody>(api.gateway, 'POST', '/zones', {
        token: operator.token,
        headers: ASYNC,
        body: { name: `crowd-${i}.test` },
      });
      ids.push(acceptedOperation(res).id);
    }
    const refused = await call(api.gateway, 'POST', '/zones', {
      token: operator.token,
      headers: ASYNC,
      body: { name: 'crowd-too-many.test' },
    });
    expect({ status: refused.status, body: refused.body, retryAfter: refused.headers.get('retry-after') }).toEqual({
      status: 429,
      body: {
        error:
          '100 long operations are running already: wait for one to finish, or send the request without respond-async',
      },
      retryAfter: '5',
    });
    // The synchronous form is not counted: it still works.
    expect(
      (
        await call(api.gateway, 'POST', '/zones/crowd-base.test/records', {
          token: operator.token,
          body: { name: 'www', type: 'A', value: '192.0.2.10' },
        })
      ).status,
    ).toBe(201);
  } finally {
    open();
    spy.mockRestore();
  }
  for (const id of ids) expect((await finished(id, operator.token)).state).toBe('succeeded');
  expect((await call(api.gateway, 'GET', '/zones/crowd-too-many.test', { token: operator.token })).status).toBe(404);
});
