import type { SigningPolicy } from '../zone';

/**
 * When signatures expire and are made afresh (BIND's sig-validity-interval with jitter, Knot's rrsig-refresh and
 * rrsig-pre-refresh): a signing gives each RRset's signatures an expiration spread over the last `jitter` seconds of
 * the validity, and a refresh signs again only the RRsets whose signatures have `refresh` seconds left or less (or
 * will within `preRefresh`). Defaults follow the validity, so a short one stays consistent.
 */
export interface SigningTimes {
  validity: number;
  jitter: number;
  refresh: number;
  preRefresh: number;
}

export function signingTimes(
  policy: Pick<SigningPolicy, 'signatureValidity' | 'signatureJitter' | 'signatureRefresh' | 'signaturePreRefresh'>,
): SigningTimes {
  const validity = policy.signatureValidity;
  return {
    validity,
    jitter: policy.signatureJitter ?? Math.floor(validity / 4),
    refresh: policy.signatureRefresh ?? Math.floor(validity / 4),
    preRefresh: policy.signaturePreRefresh ?? Math.floor(validity / 14),
  };
}

/**
 * Why the times do not fit together, or null. A fresh signature must not be due at once: its least time left
 * (validity − jitter) must exceed what a refresh takes in (refresh + pre-refresh), else every refresh signs it again.
 */
export function signingTimesProblem(times: SigningTimes): string | null {
  const { validity, jitter, refresh, preRefresh } = times;
  if (jitter < 0 || refresh < 0 || preRefresh < 0) return 'signature jitter, refresh and pre-refresh must be ≥ 0';
  if (jitter + refresh + preRefresh >= validity)
    return `signature jitter (${jitter} s) + refresh (${refresh} s) + pre-refresh (${preRefresh} s) must be less than the validity (${validity} s)`;
  return null;
}

/**
 * Seconds taken off the latest expiration of `owner`'s RRset of `type` signed at `now`: in [0, jitter], from a hash of
 * the three, so processes signing at the same second (the engine and its answer workers) make the same expirations,
 * and an RRset signed again draws a new one (slices of a refresh spread out again instead of coming due together).
 */
export function jitterOf(owner: string, type: string, jitter: number, now: number): number {
  if (jitter <= 0) return 0;
  let h = 0x811c9dc5; // FNV-1a, 32 bits
  for (let i = 0; i < 4; i++) h = Math.imul(h ^ ((now >>> (8 * i)) & 0xff), 0x01000193);
  for (let i = 0; i < owner.length; i++) {
    let c = owner.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32; // case does not matter in names
    h = Math.imul(h ^ c, 0x01000193);
  }
  h = Math.imul(h ^ 32, 0x01000193);
  for (let i = 0; i < type.length; i++) h = Math.imul(h ^ type.charCodeAt(i), 0x01000193);
  return (h >>> 0) % (jitter + 1);
}
