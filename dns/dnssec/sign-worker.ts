/**
 * A thread of the signing pool (sign-pool.ts): signs batches of data with one private key, in RRSIG form — ECDSA
 * with the batched addon (ec-sign/) when it is built, else with node:crypto.
 */
import { parentPort } from 'node:worker_threads';
import type { KeyObject } from 'node:crypto';
import { setPriority } from 'node:os';
import { algorithmByNumber, privateKeyObject, signData } from './algorithms';
import { pack, unpack } from './sign-batch';
import { batchSigner, type BatchSigner } from './ec-sign';

export interface SignRequest {
  id: number;
  /** Identifies the key across requests (its PKCS#8 form is sent once per request, opened once per thread). */
  keyId: string;
  algorithm: number;
  pkcs8: Uint8Array;
  /** The data to sign, back to back (handed over, not copied), and the length of each. */
  data: Uint8Array;
  lengths: Uint32Array;
}

export interface SignReply {
  id: number;
  /** The signatures, back to back in one buffer handed over, and the length of each. */
  signatures?: Uint8Array;
  lengths?: Uint32Array;
  error?: string;
}

/** Per key: the addon's batch signer (ECDSA), else the key opened for node:crypto. */
const keys = new Map<string, { batch?: BatchSigner; key: KeyObject }>();

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
    let signer = keys.get(request.keyId);
    if (!signer) {
      const pkcs8 = Buffer.from(request.pkcs8);
      signer = { batch: batchSigner(algorithm, pkcs8), key: privateKeyObject(pkcs8) };
      keys.set(request.keyId, signer);
    }
    let reply: ReturnType<typeof pack>;
    if (signer.batch) {
      const signatures = signer.batch.sign(request.data, request.lengths);
      const lengths = new Uint32Array(request.lengths.length).fill(signer.batch.size);
      reply = { data: signatures, lengths, transfer: [signatures.buffer as ArrayBuffer, lengths.buffer] };
    } else {
      const key = signer.key;
      reply = pack(unpack(request.data, request.lengths).map((data) => signData(algorithm, key, data)));
    }
    const signed: SignReply = { id: request.id, signatures: reply.data, lengths: reply.lengths };
    parentPort?.postMessage(signed, reply.transfer);
  } catch (err) {
    parentPort?.postMessage({
      id: request.id,
      error: err instanceof Error ? err.message : String(err),
    } satisfies SignReply);
  }
});
