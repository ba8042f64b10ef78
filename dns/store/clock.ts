/** The store's time: one injectable clock, and the timestamp form both dialects keep. */

/** The store's clock; tests inject one. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

/** ISO 8601 UTC with Z, millisecond precision. */
export function timestamp(now: Date): string {
  return now.toISOString();
}
