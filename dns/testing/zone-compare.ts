/**
 * Test helpers: what an index of a zone holds and answers, in comparable form, to check a patched index against one
 * built afresh from the store.
 */
import * as packet from 'dns-packet';
import type { DecodedPacket, Question } from 'dns-packet';
import { resolve } from '../zone/resolve';
import { zoneTransfer } from '../server/operations/transfer';
import { ZoneIndex, type ZoneData } from '../zone/zone-index';
import { cmp } from '../store/order';

const byKey = <T>(a: [string, T], b: [string, T]): number => cmp(a[0], b[0]);

/** Everything a zone copy holds, in a form `toEqual` compares (sizes too: they are kept, not counted). */
export function zoneView(zone: ZoneData): object {
  return {
    name: zone.name,
    soa: zone.soa,
    negativeSoa: zone.negativeSoa,
    nodes: [...zone.nodes.entries()].sort(byKey).map(([owner, node]) => [owner, [...node.entries()]]),
    nodeCount: zone.nodes.size,
    names: [...zone.names.entries()].sort(byKey),
    nameCount: zone.names.size,
    cutsAndDnames: [...zone.cutsAndDnames.keys()].sort(cmp),
    cutCount: zone.cutsAndDnames.size,
    // the order zone transfers send
    order: [...zone.ownerNodes()].map((node) => [...node.values()][0]?.[0]?.name),
  };
}

const TYPES = ['A', 'AAAA', 'NS', 'CNAME', 'MX', 'TXT', 'SOA', 'DS', 'DNAME', 'ANY'] as const;

/** Questions about every owner name of the zones, their parents, a child below each, and `extra` names. */
export function questionsFor(zones: readonly ZoneData[], extra: readonly string[] = []): Array<[string, string]> {
  const names = new Set(extra);
  for (const zone of zones) {
    for (const owner of zone.nodes.keys()) {
      names.add(owner);
      names.add(`x.${owner}`);
      const dot = owner.indexOf('.');
      if (dot > 0) names.add(owner.slice(dot + 1));
    }
  }
  return [...names].sort(cmp).flatMap((name) => TYPES.map((type): [string, string] => [name, type]));
}

/** The answer to each question from `zone` alone, as the wire bytes (hex) of a response with rcode and AA. */
export function answersOf(zone: ZoneData, questions: ReadonlyArray<[string, string]>): string[] {
  const index = new ZoneIndex();
  index.set(zone);
  return questions.map(([name, type]) => {
    const r = resolve(index, name, type);
    const wire = packet.encode({
      type: 'response',
      id: 0,
      flags: r.aa ? 1 << 10 : 0,
      questions: [{ name, type: type as Question['type'], class: 'IN' }],
      answers: r.answers,
      authorities: r.authorities,
      additionals: r.additionals,
    });
    return `${name} ${type} ${r.rcode} ${wire.toString('hex')}`;
  });
}

/** The messages of a full zone transfer of `zone`, hex. */
export function transferOf(zone: ZoneData): string[] {
  const query = {
    type: 'query',
    id: 1,
    flags: 0,
    questions: [{ name: zone.name || '.', type: 'AXFR', class: 'IN' }],
  } as unknown as DecodedPacket;
  return zoneTransfer(query, zone).map((m) => m.toString('hex'));
}
