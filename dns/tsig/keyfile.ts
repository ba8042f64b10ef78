import { readFileSync } from 'node:fs';
import { wireName } from '../model';

/** TSIG algorithms we sign and verify with (RFC 8945 §6); names as on the wire, without trailing dot. */
export const TSIG_ALGORITHMS = {
  'hmac-md5.sig-alg.reg.int': 'md5',
  'hmac-sha1': 'sha1',
  'hmac-sha224': 'sha224',
  'hmac-sha256': 'sha256',
  'hmac-sha384': 'sha384',
  'hmac-sha512': 'sha512',
} as const;
export type TsigAlgorithm = keyof typeof TSIG_ALGORITHMS;

export interface TsigKey {
  /** Key name, lower case, without trailing dot. */
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

function algorithmName(raw: string): TsigAlgorithm {
  const name = wireName(raw);
  const alias = name === 'hmac-md5' ? 'hmac-md5.sig-alg.reg.int' : name;
  if (!(alias in TSIG_ALGORITHMS)) {
    throw new KeyFileError(
      `unsupported TSIG algorithm "${raw}": use one of ${Object.keys(TSIG_ALGORITHMS).join(', ')}`,
    );
  }
  return alias as TsigAlgorithm;
}

/**
 * BIND's comments (#, // and C-style blocks) replaced by a space. Quoted strings are kept whole: a base64 secret may hold
 * `//` (about one generated 256-bit secret in a hundred does), which is no comment there.
 */
function stripComments(text: string): string {
  return text.replace(
    /("[^"]*")|\/\*[\s\S]*?\*\/|(?:#|\/\/)[^\n]*/g,
    (_match, quoted: string | undefined) => quoted ?? ' ',
  );
}

/** Parses BIND's key syntax: `key "name" { algorithm hmac-sha256; secret "base64"; };` (several keys allowed). */
export function parseKeyFile(text: string): TsigKey[] {
  const body = stripComments(text);
  const keys: TsigKey[] = [];
  const re = /key\s+"?([^"\s{]+)"?\s*\{([^}]*)\}\s*;/g;
  let consumed = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (body.slice(consumed, m.index).trim())
      throw new KeyFileError(
        `unexpected text before key "${m[1]}": ${body.slice(consumed, m.index).trim().slice(0, 40)}`,
      );
    consumed = m.index + m[0].length;
    const [, rawName = '', keyBody = ''] = m;
    const name = wireName(rawName);
    const alg = /algorithm\s+"?([A-Za-z0-9.-]+)"?\s*;/.exec(keyBody);
    const secret = /secret\s+"([A-Za-z0-9+/=\s]+)"\s*;/.exec(keyBody);
    const algorithm = alg?.[1];
    const secretText = secret?.[1];
    if (algorithm === undefined) throw new KeyFileError(`key "${name}" has no algorithm`);
    if (secretText === undefined) throw new KeyFileError(`key "${name}" has no base64 secret`);
    const bytes = Buffer.from(secretText.replace(/\s+/g, ''), 'base64');
    if (bytes.length === 0) throw new KeyFileError(`key "${name}" has an empty secret`);
    if (keys.some((k) => k.name === name)) throw new KeyFileError(`key "${name}" is defined twice`);
    keys.push({ name, algorithm: algorithmName(algorithm), secret: bytes });
  }
  if (body.slice(consumed).trim())
    throw new KeyFileError(`cannot read key file near: ${body.slice(consumed).trim().slice(0, 40)}`);
  return keys;
}

/**
 * A key written as `algorithm:name:secret` (nsupdate's and dig's `-y`, e.g. `hmac-sha256:notify-key:c2Vj…`): the
 * algorithm one of TSIG_ALGORITHMS, the secret base64. Throws KeyFileError naming what is wrong.
 */
export function parseKeySpec(spec: string): TsigKey {
  const parts = spec.split(':');
  if (parts.length !== 3) throw new KeyFileError('a key must be written algorithm:name:secret');
  const [alg = '', rawName = '', secret = ''] = parts;
  const name = wireName(rawName.trim());
  if (name === '') throw new KeyFileError('the key name is empty');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(secret.trim())) throw new KeyFileError(`key "${name}": the secret is not base64`);
  const bytes = Buffer.from(secret.trim(), 'base64');
  return { name, algorithm: algorithmName(alg.trim()), secret: bytes };
}

export function readKeyFile(path: string): TsigKey[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeyFileError(`cannot read TSIG key file ${path}: ${(err as Error).message}`);
  }
  return parseKeyFile(text);
}
