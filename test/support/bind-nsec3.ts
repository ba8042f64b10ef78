import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireTool } from './dns-peers';

const run = promisify(execFile);

/**
 * A zone signed by BIND's own tools with NSEC3: a KSK and a ZSK (ECDSAP256SHA256) from `dnssec-keygen`, the KSK's CDS
 * (SHA-256 and SHA-384, from `dnssec-dsfromkey -C`) and CDNSKEY at the apex, then `dnssec-signzone -S -3 <salt> -H 0`
 * (`-`: no salt). Real records of CDS, CDNSKEY, NSEC3 (one with an empty type bitmap when `body` has an empty
 * non-terminal) and NSEC3PARAM, for comparing how they are shown with what dig prints. Returns the signed master file.
 */
export async function nsec3SignedZone(zone: string, body: string, salt = '-'): Promise<string> {
  for (const tool of ['dnssec-keygen', 'dnssec-dsfromkey', 'dnssec-signzone']) requireTool(tool);
  const origin = `${zone}.`;
  const dir = mkdtempSync(join(tmpdir(), 'nsec3-zone-'));
  try {
    const keygen = async (flags: string[]): Promise<string> =>
      (await run('dnssec-keygen', ['-q', '-K', dir, '-a', 'ECDSAP256SHA256', ...flags, origin], { cwd: dir })).stdout
        .trim()
        .split('\n')
        .pop() ?? '';
    const ksk = await keygen(['-f', 'KSK']);
    await keygen([]);
    const cds: string[] = [];
    for (const digest of [['-2'], ['-a', 'SHA-384']])
      cds.push((await run('dnssec-dsfromkey', ['-C', ...digest, join(dir, `${ksk}.key`)], { cwd: dir })).stdout.trim());
    const dnskey = readFileSync(join(dir, `${ksk}.key`), 'utf8')
      .split('\n')
      .find((l) => /\sDNSKEY\s/.test(l) && !l.startsWith(';'));
    if (!dnskey) throw new Error(`no DNSKEY in ${ksk}.key`);
    const cdnskey = dnskey.replace(/\sDNSKEY\s/, ' CDNSKEY ');
    writeFileSync(join(dir, 'zone.db'), `${body}\n${cds.join('\n')}\n${cdnskey}\n`);
    const signed = join(dir, 'signed.db');
    await run('dnssec-signzone', ['-S', '-K', dir, '-3', salt, '-H', '0', '-o', origin, '-f', signed, 'zone.db'], {
      cwd: dir,
    });
    return readFileSync(signed, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A small zone for nsec3SignedZone: SOA, NS, two addresses and an empty non-terminal (`ent`, above `x.ent`). */
export const nsec3TestBody = (zone: string): string => `$ORIGIN ${zone}.
$TTL 300
@ IN SOA ns1 hostmaster 1 3600 600 86400 300
  IN NS ns1
ns1 IN A 192.0.2.1
www IN A 192.0.2.2
x.ent IN TXT "below an empty non-terminal"
`;

/**
 * `dig +noall +answer AXFR` of `zone` from `server`: [owner, ttl, class, type, RDATA] a line, the RDATA exactly as dig
 * prints it; owners in lower case when `lowerOwners` (our client gives them so; BIND keeps NSEC3's hashed labels in
 * upper case).
 */
export async function digAxfrRows(
  server: { host: string; port: number },
  zone: string,
  lowerOwners = false,
): Promise<string[][]> {
  requireTool('dig');
  const { stdout } = await run('dig', [
    '-p',
    String(server.port),
    `@${server.host}`,
    zone,
    'AXFR',
    '+noall',
    '+answer',
  ]);
  return stdout
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .map((l) => {
      const m = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(l);
      if (!m) throw new Error(`not a record line: ${l}`);
      const owner = m[1] ?? '';
      return [lowerOwners ? owner.toLowerCase() : owner, ...m.slice(2)];
    });
}
