/**
 * `npm run bench -- rrl`: response rate limiting against a reflection attack. Our server (test/bench/dns-server.ts,
 * a signed zone) gets a flood of one DNSKEY question with the DO bit — the largest answer of a signed zone — from
 * one "victim" address, 127.0.0.2, at BENCH_RRL_QPS (10 000) questions a second for BENCH_RRL_SECONDS (10): the
 * bytes that come back to that address against the bytes it sent is the amplification an attacker forging it would
 * get (goal: at most 1 with RRL on; without RRL, for comparison). Meanwhile a client on 127.0.1.7 (another /24) asks
 * the same question 10 times a second (below the rate) and must get every answer. Last, what RRL's accounting costs:
 * dnsperf from one address with RRL on at a rate nothing reaches, against RRL off.
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import { benchZone, ZONE } from './dns';
import { importZone, measureQps, startOurs, withServer } from './dns-servers';
import { runWhenMain } from './common';
import { requireTool } from '../support/dns-peers';

const QPS = Number(process.env.BENCH_RRL_QPS ?? 10_000);
const SECONDS = Number(process.env.BENCH_RRL_SECONDS ?? 10);
const VICTIM = '127.0.0.2';
const BYSTANDER = '127.0.1.7';
/** How often the bystander asks (a second): below the rate (20), as a real resolver asks one name. */
const BYSTANDER_QPS = 10;

function dnskeyQuery(id: number): Buffer {
  return packet.encode({
    type: 'query',
    id,
    flags: 0,
    questions: [{ name: ZONE, type: 'DNSKEY', class: 'IN' }],
    additionals: [
      { type: 'OPT', name: '.', udpPayloadSize: 1232, flags: packet.DNSSEC_OK, options: [] } as unknown as Answer,
    ],
  });
}

async function bound(address: string): Promise<Socket> {
  // room for the answers of a whole second without RRL: what the kernel drops would count as not amplified
  const socket = createSocket({ type: 'udp4', recvBufferSize: 64 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, address, resolve);
  });
  return socket;
}

interface Flood {
  sent: number;
  sentBytes: number;
  answers: number;
  slips: number;
  receivedBytes: number;
  answerBytes: number;
  bystanderAsked: number;
  bystanderAnswered: number;
}

/** The flood and the bystander against `port`, paced every millisecond; figures once the last answers had 1 s. */
async function flood(port: number): Promise<Flood> {
  const victim = await bound(VICTIM);
  const bystander = await bound(BYSTANDER);
  const f: Flood = {
    sent: 0,
    sentBytes: 0,
    answers: 0,
    slips: 0,
    receivedBytes: 0,
    answerBytes: 0,
    bystanderAsked: 0,
    bystanderAnswered: 0,
  };
  victim.on('message', (m) => {
    f.receivedBytes += m.length;
    if (m.readUInt16BE(2) & 0x0200) f.slips++;
    else {
      f.answers++;
      f.answerBytes = m.length;
    }
  });
  const answered = new Set<number>();
  bystander.on('message', (m) => {
    const id = m.readUInt16BE(0);
    if (!(m.readUInt16BE(2) & 0x0200) && (packet.decode(m).answers?.length ?? 0) > 0) answered.add(id);
  });
  const query = dnskeyQuery(1);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      const due = Math.min(QPS * SECONDS, Math.floor(QPS * elapsed));
      for (; f.sent < due; f.sent++) {
        query.writeUInt16BE(f.sent & 0xffff, 0);
        victim.send(query, port, '127.0.0.1');
        f.sentBytes += query.length;
      }
      const bystanderDue = Math.min(BYSTANDER_QPS * SECONDS, Math.floor(BYSTANDER_QPS * elapsed));
      for (; f.bystanderAsked < bystanderDue; f.bystanderAsked++)
        bystander.send(dnskeyQuery(f.bystanderAsked), port, '127.0.0.1');
      if (elapsed >= SECONDS) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await new Promise((r) => setTimeout(r, 1000)); // the last answers on their way
  f.bystanderAnswered = answered.size;
  victim.close();
  bystander.close();
  return f;
}

function floodLine(label: string, f: Flood): string {
  const ratio = f.receivedBytes / f.sentBytes;
  return (
    `  ${label}: sent ${f.sent} DNSKEY +DO questions (${f.sentBytes} B, ${(f.sent / SECONDS).toFixed(0)}/s) from ${VICTIM}; ` +
    `back to it ${f.answers} answers of ${f.answerBytes} B + ${f.slips} slips (TC), ${f.receivedBytes} B: ` +
    `amplification ${ratio.toFixed(3)}; bystander ${BYSTANDER} ${f.bystanderAnswered}/${f.bystanderAsked} answered`
  );
}

export async function rrlBenchmark(): Promise<string[]> {
  requireTool('dnsperf');
  const root = mkdtempSync(join(tmpdir(), 'bench-rrl-'));
  try {
    const data = join(root, 'data');
    const zoneFile = join(root, 'bench.zone');
    writeFileSync(zoneFile, benchZone());
    await importZone(data, ZONE, zoneFile);
    const signed = { BENCH_DNS_DNSSEC: 'ECDSAP256SHA256', BENCH_DNS_ZONE: ZONE, BENCH_DNS_WORKERS: '0' };
    const out = [
      `rrl: a reflection flood of ${ZONE} DNSKEY with DO, ${QPS}/s for ${SECONDS} s (goal: amplification ≤ 1)`,
    ];
    const on = await withServer(startOurs(data, ZONE, { ...signed, BENCH_DNS_RRL: 'on' }), (s) => flood(s.port));
    out.push(floodLine('RRL on (20/s, slip 2, window 15 s)', on));
    const off = await withServer(startOurs(data, ZONE, signed), (s) => flood(s.port));
    out.push(floodLine('RRL off', off));
    // the accounting alone: every answer goes through the table, none is limited (dnsperf asks from one address)
    const questions = join(root, 'questions.txt');
    writeFileSync(
      questions,
      Array.from({ length: 1000 }, (_, i) => `h${i % 500}.${ZONE} ${i % 2 ? 'A' : 'AAAA'}`).join('\n') + '\n',
    );
    const load = { clients: 1, outstanding: 100, threads: 1 };
    const seconds = Number(process.env.BENCH_SECONDS ?? 5);
    const unsigned = { BENCH_DNS_WORKERS: '0' };
    const accounted = await withServer(
      startOurs(data, ZONE, { ...unsigned, BENCH_DNS_RRL: 'on', BENCH_DNS_RRL_RATE: '1000000' }),
      (s) => measureQps(s, questions, seconds, load),
    );
    const plain = await withServer(startOurs(data, ZONE, unsigned), (s) => measureQps(s, questions, seconds, load));
    out.push(
      `  cost: dnsperf from one address, RRL accounting every answer (rate 1 000 000/s: none limited) ` +
        `${accounted.qps.toFixed(0)} q/s, ${accounted.cpuPerQuery.toFixed(1)} µs CPU/query; RRL off ` +
        `${plain.qps.toFixed(0)} q/s, ${plain.cpuPerQuery.toFixed(1)} µs CPU/query (${((accounted.qps / plain.qps) * 100).toFixed(0)}%)`,
    );
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

runWhenMain(module, rrlBenchmark);
