// @needs build
/**
 * The batched ECDSA addon (built by `npm run build`): its signatures verify as signData's do, for both curves; other
 * algorithms and keys it does not take are left to node:crypto; bad calls are errors, never wrong signatures.
 */
import { algorithmByName, generatePrivateKey, privateKeyObject, verifyData, type Algorithm } from '../algorithms';
import { dnskeyPublicKey } from '../algorithms';
import { pack } from '../sign-batch';
import { batchSigner, ecSignAddon } from '.';

const algorithm = (name: string): Algorithm => {
  const found = algorithmByName(name);
  if (!found) throw new Error(name);
  return found;
};

beforeAll(() => {
  if (!ecSignAddon())
    throw new Error('the ec-sign addon is not built (npm run build): batched signing cannot be tested');
});

test.each(['ECDSAP256SHA256', 'ECDSAP384SHA384'])(
  '%s: every signature of a batch verifies, over its own item',
  (name) => {
    const alg = algorithm(name);
    const pkcs8 = generatePrivateKey(alg);
    const publicKey = dnskeyPublicKey(alg, privateKeyObject(pkcs8));
    const items = [Buffer.from('one'), Buffer.alloc(0), Buffer.alloc(5000, 7), Buffer.from('four')];
    const signer = batchSigner(alg, pkcs8);
    if (!signer) throw new Error('no batch signer');
    expect(signer.size).toBe(alg.name === 'ECDSAP256SHA256' ? 64 : 96);
    const { data, lengths } = pack(items);
    const out = Buffer.from(signer.sign(data, lengths));
    expect(out).toHaveLength(items.length * signer.size);
    items.forEach((item, i) => {
      const signature = out.subarray(i * signer.size, (i + 1) * signer.size);
      expect(verifyData(alg, publicKey, item, signature)).toBe(true);
      expect(verifyData(alg, publicKey, Buffer.from('other'), signature)).toBe(false);
    });
  },
);

test('RSA and Ed25519 are left to node:crypto, as is a key of another curve', () => {
  expect(batchSigner(algorithm('ED25519'), generatePrivateKey(algorithm('ED25519')))).toBeUndefined();
  const p384 = generatePrivateKey(algorithm('ECDSAP384SHA384'));
  expect(batchSigner(algorithm('ECDSAP256SHA256'), p384)).toBeUndefined();
  expect(batchSigner(algorithm('ECDSAP256SHA256'), Buffer.from('not a key'))).toBeUndefined();
});

test('lengths beyond the data, or room for fewer signatures than items, are errors', () => {
  const addon = ecSignAddon();
  if (!addon) throw new Error('not built');
  const key = addon.openKey(generatePrivateKey(algorithm('ECDSAP256SHA256')), 'sha256', 32);
  const data = new Uint8Array(10);
  expect(() => addon.sign(key, data, Uint32Array.of(11), new Uint8Array(64))).toThrow(/more than the data/);
  expect(() => addon.sign(key, data, Uint32Array.of(5, 5), new Uint8Array(64))).toThrow(/too short/);
  expect(() => addon.sign({}, data, Uint32Array.of(5), new Uint8Array(64))).toThrow(/not a key/);
  expect(() => addon.openKey(Buffer.alloc(8), 'md5', 32)).toThrow(/unsupported/);
});
