/**
 * An answer worker: a process of its own that answers DNS queries over UDP from the same socket as the DNS engine
 * (the primary), so that queries are answered on every core. It reads the zones from the same store into an index
 * of its own, reads again what each change touched when the primary tells it (the primary waits for every worker
 * before it says a change is served), and hands the primary every message that needs more than the index: UPDATE,
 * signed messages, NOTIFY. TCP stays with the primary. It exits when the primary goes.
 */
import type { Socket } from 'node:dgram';
import { DnssecAnswerSigner, KeyVault, storeSigning } from '../../dnssec';
import { openZoneStore, type ZoneStore } from '../../store';
import { SignedZoneFiles } from '../signed-zone-files';
import { refreshFor, ZoneLoader } from '../zone-loader';
import { boundedSender, type FromWorker, type ToWorker } from './answer-worker-protocol';
import {
  bindBatchedUdp,
  DROP,
  Responder,
  safeReport,
  serveBatchedUdp,
  ServerCookies,
  serveUdp,
  udpBatchAddon,
} from '../../server';
import { ZoneIndex } from '../../zone';

function tell(message: FromWorker): void {
  process.send?.(message);
}

/** Tells the primary why, then exits (after the message is out: it says why the worker is gone). */
function fail(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  if (!process.send) process.exit(1);
  process.send({ t: 'error', message: e.message, stack: e.stack } satisfies FromWorker, () => process.exit(1));
}

const report = safeReport((err: unknown) => {
  const e = err instanceof Error ? err : new Error(String(err));
  tell({ t: 'error', message: e.message, stack: e.stack });
});

let store: ZoneStore | undefined;
let loader: ZoneLoader | undefined;
let responder: Responder | undefined;
let index: ZoneIndex | undefined;
/** Messages handed to the primary and not yet written to the channel, at most (see boundedSender). */
const MAX_HANDED_OVER = 1024;
const handOverMessage = boundedSender<FromWorker>((message, written) => {
  // the callback comes once the message is written, or with the error when the channel is gone
  if (process.send) process.send(message, written);
  else written();
}, MAX_HANDED_OVER);
/** Changes told before the store was open: read once it is (whole zones: the loader reads a zone it lacks whole). */
const early: Array<Extract<ToWorker, { t: 'change' }>> = [];

async function init(message: Extract<ToWorker, { t: 'init' }>): Promise<void> {
  store = await openZoneStore(message.store);
  index = new ZoneIndex({ journal: false }); // workers answer UDP only: never a transfer, no IXFR journal
  const signing =
    message.dnssec && storeSigning(store, KeyVault.of(message.dnssec.secret), { policy: message.dnssec.policy });
  const zoneLoader = new ZoneLoader(
    store,
    index,
    {
      // the loader's warnings carry the zone and the error: both reach the primary's log
      warn: (obj: { zone?: string; err?: unknown }, msg) =>
        report(
          new Error(
            `${msg} (zone ${obj.zone ?? '?'}): ${obj.err instanceof Error ? obj.err.message : String(obj.err)}`,
          ),
        ),
    },
    signing,
    undefined,
    message.dnssec?.keptDir === undefined
      ? undefined
      : { files: new SignedZoneFiles(message.dnssec.keptDir, { write: false }), engine: process.ppid },
  );
  loader = zoneLoader;
  responder = new Responder(index, {}, new Map(), report, {
    answerCache: message.answerCache,
    cookies: new ServerCookies(message.cookieSecret),
    signer: new DnssecAnswerSigner(),
    ...(message.rrl
      ? {
          rrl: message.rrl,
          log: {
            warn: (obj: object, msg: string) => tell({ t: 'log', level: 'warn', obj, msg }),
            info: (obj: object, msg: string) => tell({ t: 'log', level: 'info', obj, msg }),
          },
        }
      : {}),
  });
  for (const change of early.splice(0))
    void zoneLoader.reload(change.event.zone, refreshFor(change.event, change.detail));
  const zones = await store.listZones();
  await Promise.all(zones.map((z) => zoneLoader.reload(z.name)));
  tell({ t: 'loaded', zones: zones.length });
}

/** Answers from a socket of its own in the port's SO_REUSEPORT group (the addon), or the dgram socket handed over. */
function serve(socket: Socket | undefined, reusePort: { host: string; port: number } | undefined): void {
  if (!responder) throw new Error('the socket came before the zones were loaded');
  const stats = responder.stats;
  const handOver = (message: Buffer, address: string, port: number): void => {
    if (!handOverMessage({ t: 'udp', message, address, port })) stats.dropped(DROP.handoverFull);
  };
  const addon = udpBatchAddon();
  if (reusePort) {
    if (!addon) throw new Error('batched UDP, but the udp-batch addon is not built');
    const bound = bindBatchedUdp(addon, reusePort.host, reusePort.port);
    serveBatchedUdp(addon, bound.fd, responder, report, handOver);
  } else if (socket) {
    serveUdp(socket, undefined, responder, report, handOver);
    socket.on('error', report);
  } else throw new Error('no UDP socket to answer from');
  tell({ t: 'ready' });
}

process.on('message', (message: ToWorker, handle?: unknown) => {
  switch (message.t) {
    case 'init':
      init(message).catch(fail);
      return;
    case 'socket':
      try {
        serve(handle as Socket | undefined, message.reusePort);
      } catch (err) {
        fail(err);
      }
      return;
    case 'change': {
      if (!loader) return void early.push(message);
      // told at once when read, so that the primary, waiting for every process to serve it, waits no longer
      const { zone } = message.event;
      void loader.reload(zone, refreshFor(message.event, message.detail)).then(() => {
        tell({ t: 'at', zone, serial: index?.get(zone)?.soa.data.serial ?? null });
      });
      return;
    }
    case 'stats':
      if (responder) tell({ t: 'stats', id: message.id, snapshot: responder.stats.snapshot() });
      return;
    case 'served': {
      const done = (): void => tell({ t: 'served', id: message.id });
      if (!loader) return done(); // not loaded yet: the load reads the store as it is then
      loader.served(message.zone, message.serial).then(done, (err: unknown) => {
        report(err);
        done();
      });
      return;
    }
  }
});

// The primary gone (its end of the channel closed): nothing left to answer for.
process.on('disconnect', () => {
  void store?.close().finally(() => process.exit(0));
});
