import { createSocket } from 'node:dgram';
import { createServer, isIPv6 } from 'node:net';
import { settingName } from './config/flags';
import { ConfigError } from './config/load';
import { ENV_NAMES, type Config } from './config/schema';

/**
 * The sockets a start will listen on, tried before anything is opened or written: a busy port found only once the
 * store is open would stop a start that already created the first admin (and printed its password, for nothing).
 */
export interface Listener {
  /** The setting that chooses the port. */
  key: 'port' | 'dnsApiPort' | 'dnsPort';
  /** The setting that chooses the address. */
  hostKey: 'host' | 'dnsHost';
  host: string;
  port: number;
  protocol: 'TCP' | 'UDP';
  /** What else may be done than choosing another port (`0 turns … off`). */
  alternative?: string;
}

/** The listeners `createSystem` and `main` open for this configuration (port 0 of the gateway: any free port). */
export function listenersOf(config: Config): Listener[] {
  const general = config.supergraphFile !== undefined; // a general gateway runs no DNS server and no second listener
  const listeners: Listener[] = [];
  if (config.port !== 0)
    listeners.push({ key: 'port', hostKey: 'host', host: config.host, port: config.port, protocol: 'TCP' });
  if (!general && config.dnsApiPort !== 0)
    listeners.push({
      key: 'dnsApiPort',
      hostKey: 'host',
      host: config.host,
      port: config.dnsApiPort,
      protocol: 'TCP',
      alternative: '0 turns this listener off',
    });
  if (!general && config.dnsPort !== 0)
    for (const protocol of ['UDP', 'TCP'] as const)
      listeners.push({
        key: 'dnsPort',
        hostKey: 'dnsHost',
        host: config.dnsHost,
        port: config.dnsPort,
        protocol,
        alternative: '0 turns the DNS server off',
      });
  return listeners;
}

/**
 * A listen or bind failure as the one line an operator needs: which setting, what is wrong, what to change. Errors
 * other than the address's own (busy, not permitted, not on this machine) are returned unchanged.
 */
export function listenError(err: unknown, l: Listener): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = `${ENV_NAMES[l.key] ?? l.key} ${l.port} on ${l.host} (${l.protocol})`;
  const fix = `set ${settingName(l.key)} to a free port${l.alternative ? `, or ${l.alternative}` : ''}`;
  if (code === 'EADDRINUSE') return new ConfigError(`${where} is in use by another process: ${fix}`);
  if (code === 'EACCES')
    return new ConfigError(
      `${where}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE): ${fix.replace('a free port', 'a free port from 1024 up')}`,
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ConfigError(
      `${ENV_NAMES[l.hostKey] ?? l.hostKey} ${l.host}: no such address on this machine (${code}): set ${settingName(l.hostKey)} to one of its addresses (127.0.0.1, 0.0.0.0, ::)`,
    );
  return err;
}

/** Listens on the address a moment and lets go: resolves when it could, rejects with the socket's error otherwise. */
function tryListener(l: Listener): Promise<void> {
  return new Promise((resolve, reject) => {
    if (l.protocol === 'TCP') {
      const server = createServer();
      server.once('error', reject);
      server.listen({ host: l.host, port: l.port, exclusive: true }, () => server.close(() => resolve()));
      return;
    }
    const socket = createSocket({ type: isIPv6(l.host) ? 'udp6' : 'udp4' });
    socket.once('error', (err) => {
      socket.close();
      reject(err);
    });
    socket.bind({ address: l.host, port: l.port, exclusive: true }, () => socket.close(() => resolve()));
  });
}

/** Every listener tried in turn; the first that cannot be had stops the start with its one line. */
export async function checkListeners(listeners: readonly Listener[]): Promise<void> {
  for (const l of listeners) {
    try {
      await tryListener(l);
    } catch (err) {
      throw listenError(err, l);
    }
  }
}
