/** The in-memory zone: copy-on-write zone data the server answers from and the signer signs, and name resolution in it. Only re-exports. */
export { toAnswers } from './node-pack';
export { closestEncloser, ORIGIN, type Resolution, resolve, wildcardAt } from './resolve';
export type { Algorithm, AlgorithmName, SignedState, SigningPolicy, ZoneKey } from './signed-state';
export type { Node, RR } from './rr';
export { parentOf, ZoneBuilder, type ZoneData, ZoneIndex } from './zone-index';
export {
  decodeSteps,
  diffAt,
  encodeSteps,
  JOURNAL_BOUNDS,
  ZoneJournal,
  type JournalBounds,
  type JournalStep,
} from './journal';
export { encodeZoneImage, readZoneImage, type SignedHead, type ZoneImage } from './zone-image';
