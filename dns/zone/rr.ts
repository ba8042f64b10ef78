import type { Answer, OptAnswer } from 'dns-packet';

/** A resource record as dns-packet encodes it (every answer kind except the EDNS OPT pseudo-record). */
export type RR = Exclude<Answer, OptAnswer>;

/** Records of one owner name, by type (upper-case mnemonic). */
export type Node = Map<string, RR[]>;

/** Adds an answer to its RRset in `node`. */
export function addTo(node: Node, record: RR): void {
  const list = node.get(record.type);
  if (list) list.push(record);
  else node.set(record.type, [record]);
}
