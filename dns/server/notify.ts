import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import * as packet from 'dns-packet';
import { signMessage } from '../tsig/tsig';
import type { TsigKey } from '../tsig/keyfile';
import { FLAG_AA, OPCODE } from './wire';

export interface NotifyTarget {
  host: string;
  port: number;
}

/**
 * Sends a NOTIFY (RFC 1996) for `zone` to one secondary over UDP and waits for its answer, retrying a few times.
 * Resolves true when the secondary acknowledged.
 */
export async function sendNotify(zone: string, target: NotifyTarget, options: { key?: TsigKey; tries?: number; timeoutMs?: number } = {}): Promise<boolean> {
  const id = Math.floor(Math.random() * 65536);
  let message = packet.encode({
    type: 'query', id, flags: (OPCODE.NOTIFY << 11) | FLAG_AA,
    questions: [{ name: zone || '.', type: 'SOA', class: 'IN' }],
  });
  if (options.key) message = signMessage(message, options.key).message;
  const socket = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
  try {
    for (let attempt = 0; attempt < (options.tries ?? 3); attempt++) {
      const acked = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => { socket.off('message', onMessage); resolve(false); }, options.timeoutMs ?? 2000);
        function onMessage(msg: Buffer): void {
          if (msg.length >= 12 && msg.readUInt16BE(0) === id && msg.readUInt16BE(2) & 0x8000) {
            clearTimeout(timer);
            socket.off('message', onMessage);
            resolve(true);
          }
        }
        socket.on('message', onMessage);
        socket.send(message, target.port, target.host);
      });
      if (acked) return true;
    }
    return false;
  } finally {
    socket.close();
  }
}
