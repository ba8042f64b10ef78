import { execFile } from 'node:child_process';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPENAPI, type PathItem } from '../../gateway/rest/dns-api/openapi';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';
import { defined } from '../support/defined';

/**
 * The DNS API's OpenAPI document is a valid OpenAPI 3.1 document, and it tells the truth: every path is driven on
 * the live system (success and error cases) and each answer's status, content type, required headers and body must
 * be what the document says. An answer it does not describe fails the test.
 */
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}
interface MediaType {
  schema: Json;
}
interface Response {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, MediaType>;
}

const MAX_BATCH = 5;
const MAX_BODY = 4096;

let sys: RunningSystem;
let doc: { paths: Record<string, PathItem> };
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const compiled = new WeakMap<Json, ValidateFunction>();
/** `METHOD template status` of every answer checked, to prove every operation was driven. */
const seen = new Set<string>();

/**
 * swagger-parser's verdict on a document. It is run in a child Node process: it loads an ES module that Jest's
 * CommonJS runtime cannot require.
 */
function swaggerParserSays(document: unknown): Promise<string> {
  const script = `
    const SwaggerParser = require('@apidevtools/swagger-parser');
    let text = '';
    process.stdin.on('data', (d) => (text += d)).on('end', () =>
      SwaggerParser.validate(JSON.parse(text)).then(
        () => console.log('valid'),
        (e) => console.log('invalid: ' + e.message),
      ),
    );`;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['-e', script],
      { cwd: PROJECT_ROOT, timeout: 20_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim())),
    );
    child.stdin?.end(JSON.stringify(document));
  });
}

/** The document with every local `$ref` replaced by what it points at (one object per target, for the cache). */
function dereference<T>(root: T): T {
  const resolved = new Map<string, unknown>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string') {
      if (!resolved.has(ref)) {
        const target = ref
          .slice(2)
          .split('/')
          .reduce<unknown>((at, key) => (at as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
        if (target === undefined) throw new Error(`dangling $ref ${ref}`);
        resolved.set(ref, walk(target));
      }
      return resolved.get(ref);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  return walk(root) as T;
}

function validatorOf(schema: Json): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

/** The document's path template for a concrete path (concrete segments win over templated ones). */
function templateOf(path: string): string {
  const bare = path.split('?')[0] ?? path;
  const candidates = Object.keys(doc.paths)
    .filter((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(bare))
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  const [best] = candidates;
  if (!best) throw new Error(`the document has no path for ${bare}`);
  return best;
}

/** Calls the live API and checks the answer against the document; throws what the document does not describe. */
async function call(
  method: Method,
  path: string,
  options: {
    token?: string;
    body?: unknown;
    raw?: string;
    contentType?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (options.raw !== undefined || options.body !== undefined) {
    payload = options.raw ?? JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const res = await fetch(`${sys.url}/api/v1${path}`, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a master file: checked as text
  }

  const template = templateOf(path);
  const operation = defined(doc.paths[template], template)[method.toLowerCase() as 'get'];
  const where = `${method} ${path} → ${res.status} ${text.slice(0, 300)}`;
  if (!operation) throw new Error(`undescribed operation: ${where}`);
  const response = operation.responses[String(res.status)] as Response | undefined;
  if (!response) throw new Error(`undescribed status: ${where}`);
  const media = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const content = response.content?.[media];
  if (!content) throw new Error(`undescribed content-type ${JSON.stringify(media)}: ${where}`);
  const validate = validatorOf(content.schema);
  if (!validate(body)) throw new Error(`body does not match: ${where}\n${ajv.errorsText(validate.errors)}`);
  for (const [name, header] of Object.entries(response.headers ?? {}))
    if (header.required && res.headers.get(name) === null) throw new Error(`missing header ${name}: ${where}`);

  // What a route accepted, the document accepts too.
  if (res.ok && options.body !== undefined) {
    const requestSchema = (operation.requestBody as { content: Record<string, MediaType> } | undefined)?.content[
      'application/json'
    ]?.schema;
    if (!requestSchema) throw new Error(`undescribed request body: ${method} ${path}`);
    const validateRequest = validatorOf(requestSchema);
    if (!validateRequest(options.body))
      throw new Error(
        `accepted body the document refuses: ${method} ${path}\n${ajv.errorsText(validateRequest.errors)}`,
      );
  }
  seen.add(`${method} ${template} ${res.status}`);
  return { status: res.status, headers: res.headers, text, body };
}

const b = (answer: Answer): Json => answer.body as Json;

async function login(username: string, password: string): Promise<string> {
  const answer = await call('POST', '/auth/login', { body: { username, password } });
  expect(answer.status).toBe(200);
  return b(answer).token as string;
}

let admin: string;
let operator: string;
let viewer: string;

beforeAll(async () => {
  sys = await startSystem({
    DNS_API_MAX_BATCH: String(MAX_BATCH),
    MAX_BODY_BYTES: String(MAX_BODY),
    DNS_API_LOGIN_FAILURES_PER_USER: '3',
    // a new KSK is ready (its CDS published) a second after a KSK rollover starts
    DNSSEC_DNSKEY_TTL: '1',
    DNSSEC_PROPAGATION_DELAY_S: '0',
    DNSSEC_PUBLISH_SAFETY_S: '0',
  });
  doc = dereference(JSON.parse(JSON.stringify(OPENAPI)) as typeof doc);
  admin = await login('admin', TEST_ADMIN_PASSWORD);
  for (const role of ['operator', 'viewer']) {
    const created = await call('POST', '/users', {
      token: admin,
      body: { username: role, email: `${role}@example.com`, password: `${role}-password-1`, role },
    });
    expect(created.status).toBe(201);
  }
  operator = await login('operator', 'operator-password-1');
  viewer = await login('viewer', 'viewer-password-1');
});

afterAll(async () => {
  await sys?.close();
});

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(await swaggerParserSays(OPENAPI)).toBe('valid');
    expect(OPENAPI.openapi).toBe('3.1.0');
    // The validator does refuse a broken document: an operation whose response has no description.
    const broken = JSON.parse(JSON.stringify(OPENAPI)) as { paths: Record<string, Record<string, Json>> };
    (broken.paths['/zones']?.get as { responses: Json }).responses = { 200: {} };
    expect(await swaggerParserSays(broken)).toMatch(/^invalid: /);
  });

  it('is served at /api/v1/openapi.json as it is written', async () => {
    const answer = await call('GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(JSON.parse(JSON.stringify(OPENAPI)));
    expect(await swaggerParserSays(answer.body)).toBe('valid');
  });

  it("has request examples that its own schemas (the routes' zod schemas) accept", () => {
    const schemas = OPENAPI.components.schemas as Record<string, Json>;
    const withExamples = Object.entries(schemas).filter(([, schema]) => Array.isArray(schema.examples));
    expect(withExamples.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'LoginRequest',
        'CreateZoneRequest',
        'CreateRecordRequest',
        'BatchRequest',
        'CreateUserRequest',
        'DnssecRequest',
      ]),
    );
    for (const [name, schema] of withExamples) {
      const { examples, ...rest } = schema as { examples: unknown[] };
      const validate = ajv.compile(rest);
      for (const example of examples) expect([name, validate(example), validate.errors]).toEqual([name, true, null]);
    }
  });

  it('refuses, in its request schemas, what the routes refuse (unknown, missing and mistyped fields)', () => {
    const requestSchema = (template: string, method: 'post' | 'put'): Json =>
      defined(
        (defined(doc.paths[template], template)[method]?.requestBody as { content: Record<string, MediaType> }).content[
          'application/json'
        ]?.schema,
        `the request schema of ${method} ${template}`,
      );
    const createRecord = validatorOf(requestSchema('/zones/{zone}/records', 'post'));
    expect(createRecord({ name: 'www', type: 'A', value: '192.0.2.1', ttl: 300 })).toBe(true);
    expect(createRecord({ name: 'www', type: 'A', value: '192.0.2.1', extra: 1 })).toBe(false);
    expect(createRecord({ name: 'www', type: 'A' })).toBe(false);
    expect(createRecord({ name: 'www', type: 'A', value: '192.0.2.1', ttl: 1.5 })).toBe(false);
    const batch = validatorOf(requestSchema('/zones/{zone}/records/batch', 'post'));
    expect(batch({ operations: [{ operation: 'delete', id: 'x' }] })).toBe(true);
    expect(batch({ operations: [{ operation: 'rename', id: 'x' }] })).toBe(false);
    const createUser = validatorOf(requestSchema('/users', 'post'));
    expect(createUser({ username: 'u', email: 'u@example.com', password: 'p', role: 'root' })).toBe(false);
    const dnssec = validatorOf(requestSchema('/zones/{zone}/dnssec', 'post'));
    expect(dnssec({ enable: true, algorithm: 'RSASHA256', key_size: 2048 })).toBe(true);
    expect(dnssec({ enable: false })).toBe(true);
    expect(dnssec({ algorithm: 'ED25519' })).toBe(false);
    expect(dnssec({ enable: 'yes' })).toBe(false);
    expect(dnssec({ enable: true, key_size: 1.5 })).toBe(false);
    expect(dnssec({ enable: true, extra: 1 })).toBe(false);
  });
});

describe('auth', () => {
  it('login: a token; wrong password 401; bad bodies 400/415/422/413; throttled 429', async () => {
    expect(typeof (await login('admin', TEST_ADMIN_PASSWORD))).toBe('string');
    expect((await call('POST', '/auth/login', { body: { username: 'admin', password: 'wrong' } })).status).toBe(401);
    expect((await call('POST', '/auth/login', { raw: '{"username":' })).status).toBe(400);
    expect((await call('POST', '/auth/login', { body: ['admin'] })).status).toBe(400);
    expect((await call('POST', '/auth/login', { raw: '<admin/>', contentType: 'application/xml' })).status).toBe(415);
    expect((await call('POST', '/auth/login', { raw: 'admin', contentType: 'text/plain' })).status).toBe(415);
    const missing = await call('POST', '/auth/login', { body: { username: 'admin' } });
    expect(missing.status).toBe(422);
    expect(b(missing).errors).toEqual([{ field: 'password', message: 'password is required' }]);
    expect((await call('POST', '/auth/login', { body: { username: 'a', password: 'b', otp: 1 } })).status).toBe(422);
    const big = await call('POST', '/auth/login', { body: { username: 'a', password: 'x'.repeat(MAX_BODY) } });
    expect(big.status).toBe(413);
    let last: Answer | undefined;
    for (let i = 0; i < 4; i++)
      last = await call('POST', '/auth/login', { body: { username: 'throttled', password: 'wrong' } });
    expect(last?.status).toBe(429);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('JWKS: the Ed25519 key, without a token', async () => {
    const answer = await call('GET', '/.well-known/jwks.json');
    expect(answer.status).toBe(200);
    expect((b(answer).keys as unknown[]).length).toBeGreaterThan(0);
  });

  it('signing keys: an admin lists and rotates them (200); a viewer 403; a rotation with a body field 422', async () => {
    expect((await call('GET', '/auth/keys', { token: admin })).status).toBe(200);
    expect((await call('GET', '/auth/keys', { token: viewer })).status).toBe(403);
    expect((await call('POST', '/auth/keys/rotate', { token: viewer })).status).toBe(403);
    expect((await call('POST', '/auth/keys/rotate', { token: admin, body: { key_type: 'KSK' } })).status).toBe(422);
    expect((await call('POST', '/auth/keys/rotate', { token: admin })).status).toBe(200);
  });
});

describe('zones', () => {
  it('list: 200 with a token, 401 without or with a bad one', async () => {
    expect((await call('GET', '/zones', { token: viewer })).status).toBe(200);
    const anonymous = await call('GET', '/zones');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await call('GET', '/zones', { token: 'not.a.jwt' })).status).toBe(401);
  });

  it('create: 201, import 201, duplicate 409, viewer 403, invalid 422, not an object 400', async () => {
    const created = await call('POST', '/zones', { token: operator, body: { name: 'zones.test', default_ttl: 600 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/v1/zones/zones.test');
    const zoneFile = [
      '$ORIGIN imported.test.',
      '@ 3600 IN SOA ns1.imported.test. hostmaster.imported.test. 2024010107 10800 3600 604800 3600',
      '@ 3600 IN NS ns1.imported.test.',
      'www 300 IN A 192.0.2.7',
      '',
    ].join('\n');
    const imported = await call('POST', '/zones', {
      token: admin,
      body: { name: 'imported.test', zone_file: zoneFile },
    });
    expect(imported.status).toBe(201);
    expect((await call('POST', '/zones', { token: operator, body: { name: 'zones.test' } })).status).toBe(409);
    expect((await call('POST', '/zones', { token: viewer, body: { name: 'viewer.test' } })).status).toBe(403);
    expect((await call('POST', '/zones', { token: operator, body: { name: 'bad..name' } })).status).toBe(422);
    expect((await call('POST', '/zones', { token: operator, body: { name: 'x.test', refresh: 'soon' } })).status).toBe(
      422,
    );
    expect((await call('POST', '/zones', { token: operator, body: 'zones.test' })).status).toBe(400);
  });

  it('details and export: 200 with an ETag, unknown zone 404', async () => {
    await call('POST', '/zones', { token: admin, body: { name: 'details.test' } });
    const details = await call('GET', '/zones/details.test', { token: viewer });
    expect(details.status).toBe(200);
    expect(details.headers.get('etag')).toBeTruthy();
    expect((await call('GET', '/zones/nothing.test', { token: viewer })).status).toBe(404);
    const exported = await call('GET', '/zones/details.test/export', { token: viewer });
    expect(exported.status).toBe(200);
    expect(exported.text).toMatch(/\bSOA\b/);
    expect((await call('GET', '/zones/nothing.test/export', { token: viewer })).status).toBe(404);
    expect((await call('GET', '/zones/details.test/export')).status).toBe(401);
  });

  it('update: 200, stale If-Match 412, viewer 403, unknown 404, bad values 422/400', async () => {
    await call('POST', '/zones', { token: admin, body: { name: 'update.test' } });
    const etag = (await call('GET', '/zones/update.test', { token: viewer })).headers.get('etag') as string;
    const updated = await call('PUT', '/zones/update.test', {
      token: operator,
      body: { refresh: 7200 },
      headers: { 'if-match': etag },
    });
    expect(updated.status).toBe(200);
    expect(b(updated)).toMatchObject({ name: 'update.test', refresh: 7200 });
    const stale = { token: operator, body: { retry: 600 }, headers: { 'if-match': etag } };
    expect((await call('PUT', '/zones/update.test', stale)).status).toBe(412);
    expect((await call('PUT', '/zones/update.test', { token: viewer, body: { retry: 600 } })).status).toBe(403);
    expect((await call('PUT', '/zones/nothing.test', { token: operator, body: { retry: 600 } })).status).toBe(404);
    expect((await call('PUT', '/zones/update.test', { token: operator, body: { retry: -1 } })).status).toBe(422);
    expect((await call('PUT', '/zones/update.test', { token: operator, body: { name: 'x' } })).status).toBe(422);
    expect((await call('PUT', '/zones/update.test', { token: operator, raw: '{' })).status).toBe(400);
    expect((await call('PUT', '/zones/update.test', { body: { retry: 600 } })).status).toBe(401);
  });

  it('delete: stale If-Match 412, viewer 403, 200, then 404', async () => {
    await call('POST', '/zones', { token: admin, body: { name: 'delete.test' } });
    const stale = { token: operator, headers: { 'if-match': '"stale"' } };
    expect((await call('DELETE', '/zones/delete.test', stale)).status).toBe(412);
    expect((await call('DELETE', '/zones/delete.test', { token: viewer })).status).toBe(403);
    expect((await call('DELETE', '/zones/delete.test')).status).toBe(401);
    const deleted = await call('DELETE', '/zones/delete.test', { token: operator });
    expect(deleted.status).toBe(200);
    expect(b(deleted).success).toBe(true);
    expect((await call('DELETE', '/zones/delete.test', { token: operator })).status).toBe(404);
  });
});

describe('records', () => {
  const zone = 'records.test';
  let wwwId: string;

  beforeAll(async () => {
    expect((await call('POST', '/zones', { token: admin, body: { name: zone } })).status).toBe(201);
  });

  it('create: 201, duplicate 409, bad value 422, outside the zone 422, viewer 403, unknown zone 404', async () => {
    const created = await call('POST', `/zones/${zone}/records`, {
      token: operator,
      body: { name: 'www', type: 'A', value: '192.0.2.1', ttl: 300 },
    });
    expect(created.status).toBe(201);
    wwwId = b(created).id as string;
    const again = { token: operator, body: { name: 'www', type: 'A', value: '192.0.2.1', ttl: 300 } };
    expect((await call('POST', `/zones/${zone}/records`, again)).status).toBe(409);
    const bad = { token: operator, body: { name: 'www', type: 'A', value: '999.0.0.1' } };
    expect((await call('POST', `/zones/${zone}/records`, bad)).status).toBe(422);
    const outside = { token: operator, body: { name: 'www.other.test.', type: 'A', value: '192.0.2.1' } };
    expect((await call('POST', `/zones/${zone}/records`, outside)).status).toBe(422);
    const mx = { token: operator, body: { name: '@', type: 'MX', value: '10 mail' } };
    expect((await call('POST', `/zones/${zone}/records`, mx)).status).toBe(201);
    const byViewer = { token: viewer, body: { name: 'v', type: 'A', value: '192.0.2.9' } };
    expect((await call('POST', `/zones/${zone}/records`, byViewer)).status).toBe(403);
    const noZone = { token: operator, body: { name: 'www', type: 'A', value: '192.0.2.1' } };
    expect((await call('POST', '/zones/nothing.test/records', noZone)).status).toBe(404);
  });

  it('list: whole, by type, a page at a time; bad limit 400; unknown zone 404', async () => {
    const whole = await call('GET', `/zones/${zone}/records`, { token: viewer });
    expect(whole.status).toBe(200);
    expect(b(whole)).not.toHaveProperty('next_cursor');
    const byType = await call('GET', `/zones/${zone}/records?type=A`, { token: viewer });
    expect((b(byType).records as Json[]).every((r) => r.type === 'A')).toBe(true);
    const first = await call('GET', `/zones/${zone}/records?limit=1`, { token: viewer });
    expect(first.status).toBe(200);
    const cursor = b(first).next_cursor as string;
    expect(typeof cursor).toBe('string');
    const next = await call('GET', `/zones/${zone}/records?limit=100&cursor=${encodeURIComponent(cursor)}`, {
      token: viewer,
    });
    expect(b(next).next_cursor).toBeNull();
    expect((await call('GET', `/zones/${zone}/records?limit=many`, { token: viewer })).status).toBe(400);
    expect((await call('GET', `/zones/${zone}/records?limit=1&limit=2`, { token: viewer })).status).toBe(400);
    const badCursor = await call('GET', `/zones/${zone}/records?limit=1&cursor=%25%25`, { token: viewer });
    expect(badCursor.status).toBe(400);
    expect(b(badCursor).error).toMatch(/cursor/);
    expect((await call('GET', '/zones/nothing.test/records', { token: viewer })).status).toBe(404);
    expect((await call('GET', `/zones/${zone}/records`)).status).toBe(401);
  });

  it('one record: 200 with an ETag; update 200, stale 412, bad 422; delete 412, 200, then 404', async () => {
    const got = await call('GET', `/zones/${zone}/records/${wwwId}`, { token: viewer });
    expect(got.status).toBe(200);
    const etag = got.headers.get('etag') as string;
    expect(
      (await call('GET', `/zones/${zone}/records/00000000-0000-4000-8000-000000000000`, { token: viewer })).status,
    ).toBe(404);
    const path = `/zones/${zone}/records/${wwwId}`;
    const updated = await call('PUT', path, { token: operator, body: { ttl: 900 }, headers: { 'if-match': etag } });
    expect(updated.status).toBe(200);
    expect(b(updated).ttl).toBe(900);
    expect(
      (await call('PUT', path, { token: operator, body: { ttl: 60 }, headers: { 'if-match': etag } })).status,
    ).toBe(412);
    expect((await call('PUT', path, { token: operator, body: { value: 'not-an-address' } })).status).toBe(422);
    expect((await call('PUT', path, { token: operator, body: { type: 'AAAA' } })).status).toBe(422);
    expect((await call('PUT', path, { token: viewer, body: { ttl: 60 } })).status).toBe(403);
    const unknown = `/zones/${zone}/records/00000000-0000-4000-8000-000000000000`;
    expect((await call('PUT', unknown, { token: operator, body: { ttl: 60 } })).status).toBe(404);
    expect((await call('DELETE', path, { token: operator, headers: { 'if-match': etag } })).status).toBe(412);
    expect((await call('DELETE', path, { token: viewer })).status).toBe(403);
    expect((await call('DELETE', path, { token: operator })).status).toBe(200);
    expect((await call('DELETE', path, { token: operator })).status).toBe(404);
  });

  it('batch: 200 with a result per operation; a failing 3rd operation 422 and nothing applied; over the limit 413', async () => {
    const ok = await call('POST', `/zones/${zone}/records/batch`, {
      token: operator,
      body: {
        operations: [
          { operation: 'create', name: 'b1', type: 'A', value: '192.0.2.11' },
          { operation: 'create', name: 'b2', type: 'TXT', value: 'hello', ttl: 120 },
        ],
      },
    });
    expect(ok.status).toBe(200);
    const [first] = b(ok).results as Json[];
    const second = await call('POST', `/zones/${zone}/records/batch`, {
      token: operator,
      body: {
        operations: [
          { operation: 'update', id: first?.id, ttl: 60 },
          { operation: 'delete', id: first?.id },
          { operation: 'create', name: 'b3', type: 'A', value: 'nope' },
        ],
      },
    });
    expect(second.status).toBe(422);
    expect(second.text).toContain('operations[2]');
    expect((await call('GET', `/zones/${zone}/records/${String(first?.id)}`, { token: viewer })).status).toBe(200);
    const tooMany = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({
      operation: 'create',
      name: `m${i}`,
      type: 'A',
      value: '192.0.2.1',
    }));
    expect(
      (await call('POST', `/zones/${zone}/records/batch`, { token: operator, body: { operations: tooMany } })).status,
    ).toBe(413);
    const unknownOp = { token: operator, body: { operations: [{ operation: 'rename', id: 'x' }] } };
    expect((await call('POST', `/zones/${zone}/records/batch`, unknownOp)).status).toBe(422);
    const deleteMissing = {
      token: operator,
      body: { operations: [{ operation: 'delete', id: '00000000-0000-4000-8000-000000000000' }] },
    };
    const missing = await call('POST', `/zones/${zone}/records/batch`, deleteMissing);
    expect(missing.status).toBe(404);
    expect(b(missing).error).toMatch(/^operation 1 \(delete\) failed, nothing was applied/);
    const byViewer = { token: viewer, body: { operations: [{ operation: 'delete', id: String(first?.id) }] } };
    expect((await call('POST', `/zones/${zone}/records/batch`, byViewer)).status).toBe(403);
    expect(
      (
        await call('POST', '/zones/nothing.test/records/batch', {
          token: operator,
          body: { operations: tooMany.slice(0, 1) },
        })
      ).status,
    ).toBe(404);
  });
});

describe('DNSSEC', () => {
  const zone = 'dnssec.test';

  beforeAll(async () => {
    expect((await call('POST', '/zones', { token: admin, body: { name: zone } })).status).toBe(201);
  });

  it('status 200 (viewer), unknown zone 404, anonymous 401', async () => {
    const status = await call('GET', `/zones/${zone}/dnssec`, { token: viewer });
    expect(status.status).toBe(200);
    expect(b(status)).toEqual({ enabled: false, keys: [], ds_records: [], denial: null, nsec3param: null });
    expect((await call('GET', '/zones/nothing.test/dnssec', { token: viewer })).status).toBe(404);
    expect((await call('GET', `/zones/${zone}/dnssec`)).status).toBe(401);
  });

  it('on/off: 200, again 409, bad values 422, malformed 400, viewer 403, unknown zone 404', async () => {
    const path = `/zones/${zone}/dnssec`;
    const on = await call('POST', path, { token: operator, body: { enable: true, algorithm: 'ED25519' } });
    expect(on.status).toBe(200);
    expect((b(on).keys as Json[]).map((k) => k.key_type).sort()).toEqual(['KSK', 'ZSK']);
    expect((await call('POST', path, { token: operator, body: { enable: true } })).status).toBe(409);
    expect((await call('POST', path, { token: operator, body: { enable: true, algorithm: 'DSA' } })).status).toBe(422);
    expect((await call('POST', path, { token: operator, body: { enable: 'yes' } })).status).toBe(422);
    expect((await call('POST', path, { token: operator, body: { enable: true, extra: 1 } })).status).toBe(422);
    expect((await call('POST', path, { token: operator, raw: '{"enable":' })).status).toBe(400);
    expect((await call('POST', path, { token: viewer, body: { enable: false } })).status).toBe(403);
    expect((await call('POST', path, { body: { enable: false } })).status).toBe(401);
    const noZone = { token: operator, body: { enable: true } };
    expect((await call('POST', '/zones/nothing.test/dnssec', noZone)).status).toBe(404);
  });

  it('rotate: 200, during the rollover 409, with a body field 422, viewer 403, unknown zone 404', async () => {
    const path = `/zones/${zone}/dnssec/rotate`;
    const rotated = await call('POST', path, { token: operator });
    expect(rotated.status).toBe(200);
    expect((await call('POST', path, { token: operator })).status).toBe(409);
    expect((await call('POST', path, { token: operator, body: { key: 'x' } })).status).toBe(422);
    expect((await call('POST', path, { token: viewer })).status).toBe(403);
    expect((await call('POST', path)).status).toBe(401);
    expect((await call('POST', '/zones/nothing.test/dnssec/rotate', { token: operator })).status).toBe(404);
  });

  it('KSK rotate and ds-seen: 200, again 409, bad key_type or key_tag 422, another key tag 409', async () => {
    const path = `/zones/${zone}/dnssec/rotate`;
    const ksk = await call('POST', path, { token: operator, body: { key_type: 'KSK' } });
    expect(ksk.status).toBe(200);
    expect((await call('POST', path, { token: operator, body: { key_type: 'KSK' } })).status).toBe(409);
    expect((await call('POST', path, { token: operator, body: { key_type: 'XSK' } })).status).toBe(422);
    const seen = `/zones/${zone}/dnssec/ds-seen`;
    expect((await call('POST', seen, { token: operator, body: { key_tag: 70_000 } })).status).toBe(422);
    for (;;) {
      const steps = (b(await call('GET', `/zones/${zone}/dnssec`, { token: viewer })).rollovers as Json[]).map(
        (r) => `${String(r.key_type)} ${String(r.step)}`,
      );
      if (steps.includes('KSK ready')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const status = b(await call('GET', `/zones/${zone}/dnssec`, { token: viewer }));
    const fresh = (status.keys as Json[]).find((k) => k.id === b(ksk).new_key_id);
    const other = ((fresh?.key_tag as number) + 1) % 65_536;
    expect((await call('POST', seen, { token: operator, body: { key_tag: other } })).status).toBe(409);
    expect((await call('POST', seen, { token: viewer })).status).toBe(403);
    const done = await call('POST', seen, { token: operator, body: { key_tag: fresh?.key_tag } });
    expect(done.status).toBe(200);
    expect((b(done).rollovers as Json[]).find((r) => r.key_type === 'KSK')).toMatchObject({ step: 'retiring' });
    expect((await call('POST', seen, { token: operator })).status).toBe(409);
    expect((await call('POST', '/zones/nothing.test/dnssec/ds-seen', { token: operator })).status).toBe(404);
  });
});

describe('long operations (Prefer: respond-async)', () => {
  const ASYNC = { prefer: 'respond-async' };

  /** Polls the operation until it is no longer running; every answer is checked against the document. */
  async function finished(location: string, token: string): Promise<Json> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await call('GET', location.replace(/^\/api\/v1/, ''), { token });
      expect(answer.status).toBe(200);
      if (b(answer).state !== 'running') return b(answer);
      if (Date.now() > deadline) throw new Error(`operation still runs: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('create, DNSSEC on and a rollover: 202 with Location, the operation succeeded or failed; GET 404 and 401', async () => {
    const created = await call('POST', '/zones', { token: operator, headers: ASYNC, body: { name: 'async.test' } });
    expect(created.status).toBe(202);
    expect((await finished(created.headers.get('location') as string, operator)).state).toBe('succeeded');
    const on = await call('POST', '/zones/async.test/dnssec', {
      token: operator,
      headers: ASYNC,
      body: { enable: true },
    });
    expect(on.status).toBe(202);
    expect((await finished(on.headers.get('location') as string, operator)).state).toBe('succeeded');
    const rotate = await call('POST', '/zones/async.test/dnssec/rotate', { token: operator, headers: ASYNC });
    expect(rotate.status).toBe(202);
    const rotated = await finished(rotate.headers.get('location') as string, operator);
    expect(rotated.result).toMatchObject({ success: true });
    const again = await call('POST', '/zones/async.test/dnssec', {
      token: operator,
      headers: ASYNC,
      body: { enable: true },
    });
    expect((await finished(again.headers.get('location') as string, admin)).error).toMatchObject({ status: 409 });
    const failedImport = await call('POST', '/zones', {
      token: operator,
      headers: ASYNC,
      body: { name: 'async-bad.test', zone_file: 'not a zone file' },
    });
    expect((await finished(failedImport.headers.get('location') as string, operator)).error).toMatchObject({
      status: 422,
      errors: [{ field: 'zone_file' }],
    });
    expect((await call('GET', '/operations/00000000-0000-4000-8000-000000000000', { token: operator })).status).toBe(
      404,
    );
    expect((await call('GET', '/operations/nope', { token: viewer })).status).toBe(404);
    expect((await call('GET', '/operations/nope')).status).toBe(401);
  });
});

describe('secondary zones', () => {
  // a primary nobody answers at: the zone is added and listed (never transferred), which is all the document says
  const body = { name: 'secondary.test', primary: '127.0.0.1:9', tsig_key: null };

  it('add: 201 (operator), again 409, bad primary 422, viewer 403, anonymous 401', async () => {
    const added = await call('POST', '/secondary-zones', { token: operator, body });
    expect(added.status).toBe(201);
    expect(b(added)).toMatchObject({ name: 'secondary.test', origin: 'api', serial: null, expired: true });
    expect((await call('POST', '/secondary-zones', { token: operator, body })).status).toBe(409);
    expect(
      (await call('POST', '/secondary-zones', { token: operator, body: { ...body, name: 'b.test', primary: 'x' } }))
        .status,
    ).toBe(422);
    expect((await call('POST', '/secondary-zones', { token: viewer, body: { ...body, name: 'c.test' } })).status).toBe(
      403,
    );
    expect((await call('POST', '/secondary-zones', { body })).status).toBe(401);
  });

  it('list and one: 200 (viewer), unknown 404, anonymous 401', async () => {
    const list = await call('GET', '/secondary-zones', { token: viewer });
    expect(list.status).toBe(200);
    expect((b(list).secondary_zones as Json[]).map((z) => z.name)).toEqual(['secondary.test']);
    expect((await call('GET', '/secondary-zones/secondary.test', { token: viewer })).status).toBe(200);
    expect((await call('GET', '/secondary-zones/none.test', { token: viewer })).status).toBe(404);
    expect((await call('GET', '/secondary-zones')).status).toBe(401);
    expect((await call('GET', '/secondary-zones/secondary.test')).status).toBe(401);
  });

  it('delete: viewer 403, 200, then 404', async () => {
    expect((await call('DELETE', '/secondary-zones/secondary.test', { token: viewer })).status).toBe(403);
    expect((await call('DELETE', '/secondary-zones/secondary.test', { token: operator })).status).toBe(200);
    expect((await call('DELETE', '/secondary-zones/secondary.test', { token: operator })).status).toBe(404);
  });
});

describe('users', () => {
  let userId: string;

  it('list: admin 200, operator 403, anonymous 401', async () => {
    expect((await call('GET', '/users', { token: admin })).status).toBe(200);
    expect((await call('GET', '/users', { token: operator })).status).toBe(403);
    expect((await call('GET', '/users')).status).toBe(401);
  });

  it('create: 201, duplicate 409, bad role 422, operator 403', async () => {
    const body = { username: 'someone', email: 'someone@example.com', password: 'someone-password', role: 'viewer' };
    const created = await call('POST', '/users', { token: admin, body });
    expect(created.status).toBe(201);
    userId = b(created).id as string;
    expect((await call('POST', '/users', { token: admin, body })).status).toBe(409);
    expect(
      (await call('POST', '/users', { token: admin, body: { ...body, username: 'x', role: 'root' } })).status,
    ).toBe(422);
    expect((await call('POST', '/users', { token: operator, body: { ...body, username: 'y' } })).status).toBe(403);
  });

  it('by id: 200, 404, 403; update 200, 422, 404, last admin 409; delete 200, 404, last admin', async () => {
    expect((await call('GET', `/users/${userId}`, { token: admin })).status).toBe(200);
    expect((await call('GET', `/users/${userId}`, { token: viewer })).status).toBe(403);
    const nobody = '/users/00000000-0000-4000-8000-000000000000';
    expect((await call('GET', nobody, { token: admin })).status).toBe(404);
    const updated = await call('PUT', `/users/${userId}`, { token: admin, body: { role: 'operator', disabled: true } });
    expect(updated.status).toBe(200);
    expect(b(updated)).toMatchObject({ role: 'operator', disabled: true });
    expect((await call('PUT', `/users/${userId}`, { token: admin, body: { disabled: 'yes' } })).status).toBe(422);
    expect((await call('PUT', nobody, { token: admin, body: { disabled: true } })).status).toBe(404);
    expect((await call('PUT', `/users/${userId}`, { token: operator, body: { disabled: false } })).status).toBe(403);
    const me = b(await call('GET', '/users/me', { token: admin }));
    const demote = await call('PUT', `/users/${String(me.id)}`, { token: admin, body: { role: 'viewer' } });
    expect(demote.status).toBe(409);
    expect(b(demote).error).toMatch(/last enabled admin/);
    const lastAdmin = await call('DELETE', `/users/${String(me.id)}`, { token: admin });
    expect(lastAdmin.status).toBe(409);
    expect((await call('DELETE', `/users/${userId}`, { token: operator })).status).toBe(403);
    expect((await call('DELETE', `/users/${userId}`, { token: admin })).status).toBe(200);
    expect((await call('DELETE', `/users/${userId}`, { token: admin })).status).toBe(404);
  });

  it('me: 200 with a token, 401 without; password: 200 with a new token, wrong current password refused, 422', async () => {
    const me = await call('GET', '/users/me', { token: viewer });
    expect(me.status).toBe(200);
    expect(b(me)).toMatchObject({ username: 'viewer', role: 'viewer' });
    expect((await call('GET', '/users/me')).status).toBe(401);
    const wrong = await call('PUT', '/users/me/password', {
      token: viewer,
      body: { current_password: 'wrong', new_password: 'viewer-password-2' },
    });
    expect(wrong.status).toBe(422);
    expect(b(wrong).errors).toEqual([
      { field: 'current_password', message: 'current_password is not your password now' },
    ]);
    expect((await call('PUT', '/users/me/password', { token: viewer, body: { new_password: 'x' } })).status).toBe(422);
    const changed = await call('PUT', '/users/me/password', {
      token: viewer,
      body: { current_password: 'viewer-password-1', new_password: 'viewer-password-2' },
    });
    expect(changed.status).toBe(200);
    // The token from before the change is refused; the new one works.
    expect((await call('GET', '/users/me', { token: viewer })).status).toBe(401);
    expect((await call('GET', '/users/me', { token: b(changed).token as string })).status).toBe(200);
  });
});

describe('coverage', () => {
  it('drove every operation of the document, each with a success and an error', () => {
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of ['get', 'put', 'post', 'delete'] as const) {
        if (!item[method]) continue;
        const statuses = [...seen]
          .filter((s) => s.startsWith(`${method.toUpperCase()} ${template} `))
          .map((s) => Number(s.split(' ')[2]));
        expect({ op: `${method} ${template}`, success: statuses.some((s) => s < 300) }).toEqual({
          op: `${method} ${template}`,
          success: true,
        });
        if (template !== '/openapi.json' && template !== '/.well-known/jwks.json')
          expect({ op: `${method} ${template}`, error: statuses.some((s) => s >= 400) }).toEqual({
            op: `${method} ${template}`,
            error: true,
          });
      }
    }
  });
});
