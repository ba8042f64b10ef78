/**
 * Child process of the DNS benchmark's realistic mix (test/bench/dns-realistic.ts): the floor of our UDP transport.
 * The same batched-UDP addon and JavaScript batch loop the server answers through (serveBatchedUdp), with the answer
 * replaced by the cheapest one there is: the query sent back as a REFUSED response, no parsing, no lookup, no cache.
 * What a query costs here is what the kernel's UDP path and our event loop cost before any DNS work — no answer path
 * of ours can cost less, so it says how far per-CPU-second goals can be reached by work on the answer path alone.
 *
 * Environment: BENCH_DNS_PORT (UDP port on 127.0.0.1). Prints {"event":"listening","port":…} once bound; SIGTERM ends it.
 */
import { bindBatchedUdp, DnsStats, serveBatchedUdp, udpBatchAddon } from '../../dns/server';

const RCODE_REFUSED = 5;

function main(): void {
  const addon = udpBatchAddon();
  if (!addon) throw new Error('the batched-UDP addon is not built (npm run build) or this is not Linux');
  const { fd, port } = bindBatchedUdp(addon, '127.0.0.1', Number(process.env.BENCH_DNS_PORT ?? 0));
  // one reply buffer, reused: the transport copies each answer into its batch before asking for the next
  const reply = Buffer.alloc(65_536);
  const floor = {
    stats: new DnsStats(),
    answerNow(raw: Buffer): Buffer | undefined {
      if (raw.length < 12) return undefined;
      raw.copy(reply);
      reply[2] = (raw[2] ?? 0) | 0x80; // QR
      reply[3] = ((raw[3] ?? 0) & 0xf0) | RCODE_REFUSED;
      return reply.subarray(0, raw.length);
    },
  };
  // only answerNow and stats are used for messages answered at once, which every message here is
  const served = serveBatchedUdp(addon, fd, floor as unknown as Parameters<typeof serveBatchedUdp>[2], (err) =>
    process.stderr.write(`udp floor: ${String(err)}\n`),
  );
  process.stdout.write(`${JSON.stringify({ event: 'listening', port })}\n`);
  process.once('SIGTERM', () => {
    served.close();
    process.exit(0);
  });
}

main();
