/**
 * Many small buffers as one, for messages between the signing pool and its threads (sign-pool.ts, sign-worker.ts):
 * one buffer handed over (transferred) instead of hundreds cloned one by one.
 */

/** `items` back to back in a buffer of their own, with their lengths; `transfer`: what a message hands over. */
export function pack(items: readonly Uint8Array[]): {
  data: Uint8Array;
  lengths: Uint32Array;
  transfer: ArrayBuffer[];
} {
  const lengthsBuffer = new ArrayBuffer(items.length * 4);
  const lengths = new Uint32Array(lengthsBuffer);
  let total = 0;
  items.forEach((item, i) => {
    lengths[i] = item.byteLength;
    total += item.byteLength;
  });
  const buffer = new ArrayBuffer(total);
  const data = new Uint8Array(buffer);
  let at = 0;
  for (const item of items) {
    data.set(item, at);
    at += item.byteLength;
  }
  return { data, lengths, transfer: [buffer, lengthsBuffer] };
}

/** The items `pack` put in `data`, as views of it (no copies). */
export function unpack(data: Uint8Array, lengths: Uint32Array): Buffer[] {
  const out: Buffer[] = [];
  let at = data.byteOffset;
  for (const length of lengths) {
    out.push(Buffer.from(data.buffer, at, length));
    at += length;
  }
  return out;
}
