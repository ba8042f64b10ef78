import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { startSystem, type RunningSystem } from '../support/system';

/**
 * Once the WebSocket endpoint listens for upgrades, Node hands it every request carrying an Upgrade header. An
 * upgrade it does not take (h2c, as `curl --http2 http://…` asks, or any other protocol) is ignored as RFC 9110
 * allows: the request gets its ordinary answer on the same connection. WebSocket upgrades to other paths are still
 * refused.
 */
const run = promisify(execFile);
let gateway: RunningSystem;
let port: number;

beforeAll(async () => {
  gateway = await startSystem();
  port = Number(new URL(gateway.url).port);
});
afterAll(() => gateway?.close());

/** curl with `--http2` over cleartext: it sends `Upgrade: h2c` and `HTTP2-Settings` with the request. */
async function curlHttp2(...args: string[]): Promise<{ status: number; body: string; version: string }> {
  const { stdout } = await run('curl', [
    '-s',
    '--http2',
    '--max-time',
    '10',
    '-w',
    '\n%{http_code} %{http_version}',
    ...args,
  ]);
  const at = stdout.lastIndexOf('\n');
  const [status = '0', version = ''] = stdout.slice(at + 1).split(' ');
  return { status: Number(status), body: stdout.slice(0, at), version };
}

/** Writes `parts` to a new connection, one after the other (10 ms apart), and reads until the server closes it. */
function rawExchange(parts: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no end; got ${JSON.stringify(text)}`)));
    let i = 0;
    const next = () => {
      const part = parts[i++];
      if (part !== undefined) socket.write(part, () => setTimeout(next, 10));
    };
    next();
  });
}

const statusLines = (text: string) => text.match(/^HTTP\/1\.1 \d{3} .*$/gm) ?? [];

test('curl --http2: GET /healthz is answered as without the upgrade (HTTP/1.1, 200, its body)', async () => {
  const plain = await fetch(`${gateway.url}/healthz`);
  const expected = (await plain.json()) as Record<string, unknown>;
  const res = await curlHttp2(`${gateway.url}/healthz`);
  expect({ status: res.status, version: res.version }).toEqual({ status: 200, version: '1.1' });
  expect(Object.keys(JSON.parse(res.body) as Record<string, unknown>).sort()).toEqual(Object.keys(expected).sort());
  expect(JSON.parse(res.body)).toMatchObject({ status: expected.status });
});

test('curl --http2: POST /graphql runs the operation', async () => {
  const res = await curlHttp2(
    `${gateway.url}/graphql`,
    '-H',
    'content-type: application/json',
    '--data',
    JSON.stringify({ query: '{ __typename }' }),
  );
  expect(res).toEqual({
    status: 200,
    version: '1.1',
    body: expect.stringContaining('{"data":{"__typename":"Query"}}'),
  });
});

test('raw: an h2c POST whose body comes late, then a second request on the same connection', async () => {
  const body = JSON.stringify({ query: '{ __typename }' });
  const text = await rawExchange([
    'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n' +
      `HTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body.slice(0, 5),
    body.slice(5),
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: some-protocol/2\r\nConnection: upgrade, close\r\n\r\n',
  ]);
  expect(statusLines(text)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  expect(text).toContain('{"data":{"__typename":"Query"}}');
  expect(text).toContain('"status":"ok"');
  expect(text).not.toMatch(/^upgrade:/im);
});

test('a WebSocket upgrade to another path is still refused 404', async () => {
  const text = await rawExchange([
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  ]);
  expect(statusLines(text)).toEqual(['HTTP/1.1 404 Not Found']);
});
