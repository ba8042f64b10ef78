/**
 * A thread of the signing pool (sign-pool.ts): signs batches of data with one private key, in RRSIG form.
 */
import { parentPort } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';
import { setPriority } from 'node:os';
import { algorithmByNumber, privateKeyObject, signData } from './algorithms';

export interface SignRequest {
  id: number;
  /** Identifies the key across requests (its PKCS#8 form is sent once per request, opened once per thread). */
  keyId: string;
  algorithm: number;
  pkcs8: Uint8Array;
  items: Uint8Array[];
}

export interface SignReply {
  id: number;
  signatures?: Uint8Array[];
  error?: string;
}

const keys = new Map<string, KeyObject>();

/**
 * Signing a big zone keeps every core busy for minutes: this thread yields the CPU to the DNS answer thread and the
 * APIs whenever they want it. On Linux a nice value belongs to one thread, so only this one is lowered.
 */
const SIGNING_NICE = 10;
try {
  setPriority(SIGNING_NICE);
} catch {
  // not allowed here (some containers): signing at the usual priority is still correct
}

parentPort?.on('message', (request: SignRequest) => {
  try {
    const algorithm = algorithmByNumber(request.algorithm);
    if (!algorithm) throw new Error(`unknown algorithm ${request.algorithm}`);
    let key = keys.get(request.keyId);
    if (!key) keys.set(request.keyId, (key = privateKeyObject(Buffer.from(request.pkcs8))));
    const signatures = request.items.map((data) =>
      signData(algorithm, key, Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
    );
    parentPort?.postMessage({ id: request.id, signatures } satisfies SignReply);
  } catch (err) {
    parentPort?.postMessage({
      id: request.id,
      error: err instanceof Error ? err.message : String(err),
    } satisfies SignReply);
  }
});
