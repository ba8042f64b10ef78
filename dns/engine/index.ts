/** The DNS engine: the server, its zones loaded from the store and kept current, answer workers and signing, started as one. Only re-exports. */
export { DnsEngine, type DnsEngineStats } from './engine';
export { autoWorkerCount } from './workers/answer-workers';
export {
  hostPort,
  parseSecondaryZone,
  parseSecondaryZones,
  SECONDARY_FORM,
  type SecondaryZone,
} from './secondary/spec';
export type { SecondaryStatus } from './secondary/secondary-zones';
