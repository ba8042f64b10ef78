/**
 * What makes a name usable as a zone here: the server must be able to look it up and to write its SOA. Every way a
 * zone comes in (the DNS API's create and import, `--zone` files) checks it here, so no zone is stored that is
 * never served or cannot be exported.
 */
import { MAX_NAME_LENGTH, NameError, normalizeName, splitLabels } from '../model';
import { emailToRname } from './name-values';

/** Which name is at fault: the zone's own, its SOA's MNAME (primary name server) or RNAME (mailbox). */
export type ZoneNamePart = 'zone' | 'mname' | 'rname';

/** A zone name, or a name of its SOA, that the server could not serve; `part` says which. */
export class ZoneNameError extends NameError {
  constructor(
    input: string,
    reason: string,
    readonly part: ZoneNamePart,
    /** When a name derived from the zone's is too long: the longest zone name it leaves room for. */
    readonly room?: number,
  ) {
    super(input, reason);
  }
}

/** The settings a zone's SOA names come from. */
export interface SoaNameSettings {
  /** MNAME, a domain name (`ns1.example.test`). */
  primaryNs: string;
  /** RNAME as an e-mail address (`hostmaster@example.test`). */
  adminEmail: string;
}

/**
 * A zone name (model form) the server can serve: no `*` label. A `*` owner is a wildcard inside its zone, so a zone
 * `*.test` is never found by a query, and its SOA mailbox `hostmaster.*.test` is no valid name.
 */
export function checkZoneName(zone: string): void {
  if (splitLabels(zone).includes('*'))
    throw new ZoneNameError(
      zone,
      'a zone name must not have a "*" label (a "*" owner name is a wildcard inside a zone; such a zone is never served)',
      'zone',
    );
}

/**
 * The SOA names of `zone` with these settings, each checked: at most 255 octets on the wire and valid. A name
 * derived from the zone's (`ns1.<zone>`, `hostmaster@<zone>`) that is too long says how long the zone name may be.
 * Throws {@link ZoneNameError} naming the part at fault.
 */
export function soaNames(zone: string, settings: SoaNameSettings): { mname: string; rname: string } {
  checkZoneName(zone);
  const mname = attempt(() => soaName(zone, settings.primaryNs, 'mname', normalizeName));
  const rname = attempt(() => soaName(zone, settings.adminEmail, 'rname', emailToRname));
  if (typeof mname === 'string' && typeof rname === 'string') return { mname, rname };
  // Both wrong: the one leaving the zone name less room first, so one correction is enough.
  const [first] = [mname, rname]
    .filter((e): e is ZoneNameError => e instanceof ZoneNameError)
    .sort((a, b) => (a.room ?? -1) - (b.room ?? -1));
  if (!first) throw new Error('unreachable: a SOA name failed without an error');
  throw first;
}

function attempt(check: () => string): string | ZoneNameError {
  try {
    return check();
  } catch (err) {
    if (err instanceof ZoneNameError) return err;
    throw err;
  }
}

const WHAT: Record<Exclude<ZoneNamePart, 'zone'>, string> = {
  mname: "the SOA's primary name server",
  rname: "the SOA's mailbox",
};

function soaName(
  zone: string,
  text: string,
  part: Exclude<ZoneNamePart, 'zone'>,
  convert: (text: string) => string,
): string {
  // Octets on the wire without the root's zero octet: a name's length, as the RNAME of an address (`@` becomes a dot).
  const written = text.replace(/\.$/, '');
  const length = written.length;
  if (length > MAX_NAME_LENGTH && zone !== '' && written.endsWith(zone)) {
    const room = Math.max(MAX_NAME_LENGTH - (length - zone.length), 0);
    // The name as the SOA holds it (`hostmaster@z` is `hostmaster.z`), the zone's part left out.
    const prefix = written.slice(0, written.length - zone.length).replace(/@$/, '.');
    throw new ZoneNameError(
      text,
      `${WHAT[part]} ${prefix}<zone> would be ${length} octets long, over the ${MAX_NAME_LENGTH} a name may have ` +
        `(255 on the wire): with it the zone name may have at most ${room} characters`,
      part,
      room,
    );
  }
  try {
    return convert(text);
  } catch (err) {
    if (err instanceof NameError) throw new ZoneNameError(text, `${WHAT[part]} is not valid: ${err.reason}`, part);
    throw err;
  }
}
