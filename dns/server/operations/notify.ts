import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { signMessage, type TsigKey } from '../../tsig';
import { encodeMessage, FLAG_AA, OPCODE, opcodeOf, RCODE } from '../../wire';

export interface NotifyTarget {
  host: string;
  port: number;
}

/**
 * Sends a NOTIFY (RFC 1996) for `zone` to one secondary over UDP and waits for its answer, retrying a few times.
 * Resolves true when the secondary acknowledged: a NOTIFY response with rcode NOERROR (§4.7). An error answer
 * (NOTAUTH for a zone it does not serve or a TSIG it rejects, REFUSED, …) is final: false, without retrying.
 */
export async function sendNotify(
  zone: string,
  target: NotifyTarget,
  options: { key?: TsigKey; tries?: number; timeoutMs?: number } = {},
): Promise<boolean> {
  const id = Math.floor(Math.random() * 65536);
  let message = encodeMessage({
    type: 'query',
    id,
    flags: (OPCODE.NOTIFY << 11) | FLAG_AA,
    questions: [{ name: zone || '.', type: 'SOA', class: 'IN' }],
  });
  if (options.key) message = signMessage(message, options.key).message;
  const socket = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
  // a send that fails (a name that does not resolve, an unreachable network) is an 'error' event: unheard, it would
  // end the process; it counts as no answer
  socket.on('error', () => undefined);
  try {
    for (let attempt = 0; attempt < (options.tries ?? 3); attempt++) {
      const answer = await new Promise<number | undefined>((resolve) => {
        const timer = setTimeout(() => {
          socket.off('message', onMessage);
          resolve(undefined);
        }, options.timeoutMs ?? 2000);
        function onMessage(msg: Buffer): void {
          if (
            msg.length >= 12 &&
            msg.readUInt16BE(0) === id &&
            msg.readUInt16BE(2) & 0x8000 &&
            opcodeOf(msg) === OPCODE.NOTIFY
          ) {
            clearTimeout(timer);
            socket.off('message', onMessage);
            resolve(msg.readUInt16BE(2) & 0xf);
          }
        }
        socket.on('message', onMessage);
        socket.send(message, target.port, target.host);
      });
      if (answer !== undefined) return answer === RCODE.NOERROR;
    }
    return false;
  } finally {
    socket.close();
  }
}
