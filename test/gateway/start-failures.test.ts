// @needs build
/**
 * A start that cannot listen stops with one line naming the setting to change, before anything is written: the next
 * start on the same DATA_DIR is still the first (it creates the admin and prints its password), so a password "shown
 * this once" is never shown for nothing.
 */
import { createSocket, type Socket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeDnsPort, freePort } from '../bench/processes';
import { gatewayStarted, launchGateway, stopGateway } from '../support/gateway-process';

jest.setTimeout(120_000);

const PASSWORD_SHOWN = 'DNS API: user "admin" created with the password';

/** Holds `port` on 127.0.0.1 like another program would, until `close`. */
async function occupy(protocol: 'TCP' | 'UDP', port: number): Promise<{ close(): Promise<void> }> {
  if (protocol === 'TCP') {
    const server: Server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    return { close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  const socket: Socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => socket.once('error', reject).bind(port, '127.0.0.1', resolve));
  return { close: () => new Promise((resolve) => socket.close(resolve)) };
}

const cases: Array<[name: string, setting: string, protocol: 'TCP' | 'UDP', flag: string]> = [
  ['the HTTP port', 'PORT', 'TCP', '--port'],
  ['the DNS API port', 'DNS_API_PORT', 'TCP', '--dns-api-port'],
  ['the DNS port (TCP)', 'DNS_PORT', 'TCP', '--dns-port'],
  ['the DNS port (UDP)', 'DNS_PORT', 'UDP', '--dns-port'],
];

describe.each(cases)('%s in use', (_name, setting, protocol, flag) => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'start-failures-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('stops the start with one line naming the setting, writing nothing; the next start is the first', async () => {
    const ports = {
      PORT: String(await freePort()),
      DNS_API_PORT: String(await freePort()),
      DNS_PORT: String(await freeDnsPort()),
    };
    const busy = Number(ports[setting as keyof typeof ports]);
    const dataDir = join(root, 'data');
    // no ADMIN_PASSWORD: a first start prints the generated one
    const env = { ...ports, DATA_DIR: dataDir, ADMIN_PASSWORD: undefined, LOG_LEVEL: 'info' };
    const holder = await occupy(protocol, busy);
    try {
      const failed = await launchGateway(env);
      expect(await failed.exited).toBe(1);
      const lines = failed.output().trim().split('\n');
      expect(lines).toEqual([
        `cannot start: ${setting} ${busy} on 127.0.0.1 (${protocol}) is in use by another process: ` +
          `set ${setting} (${flag}) to a free port${setting === 'PORT' ? '' : ', or 0 turns ' + (setting === 'DNS_PORT' ? 'the DNS server off' : 'this listener off')}`,
      ]);
      expect(existsSync(dataDir)).toBe(false); // no store, no admin, no key
    } finally {
      await holder.close();
    }
    const next = await launchGateway(env);
    try {
      await gatewayStarted(next);
      expect(next.output()).toContain(PASSWORD_SHOWN);
    } finally {
      await stopGateway(next);
    }
  });
});
