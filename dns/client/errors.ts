/** Why a DNS exchange failed, so callers (the DNS tool) can say it in their own words. */
export type DnsClientErrorKind =
  /** No answer in time. */
  | 'timeout'
  /** Connection refused, reset or closed early; the server's port unreachable. */
  | 'connection'
  /** The server answered with an error RCODE (REFUSED, NOTAUTH, SERVFAIL, …): `rcode` names it. */
  | 'rcode'
  /** The answer's TSIG is missing or does not verify with our key. */
  | 'tsig'
  /** The answer cannot be decoded or does not belong to the question. */
  | 'format'
  /** The request cannot be written: a value that is no RDATA of its type, a name that is no DNS name. Nothing sent. */
  | 'value'
  /** The caller stopped waiting (its signal fired): the connection was closed. */
  | 'aborted';

export class DnsClientError extends Error {
  constructor(
    readonly kind: DnsClientErrorKind,
    message: string,
    /** RCODE mnemonic for kind 'rcode' (with the TSIG error, e.g. 'NOTAUTH' and tsigError 'BADSIG'). */
    readonly rcode?: string,
    readonly tsigError?: string,
  ) {
    super(message);
    this.name = 'DnsClientError';
  }
}

const RCODE_NAMES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
] as const;

/** RFC 1035/2136 RCODE mnemonic (RCODE12 … for others). */
export function rcodeName(rcode: number): string {
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}

const TSIG_ERROR_NAMES: Record<number, string> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

/** RFC 8945 TSIG error mnemonic. */
export function tsigErrorName(error: number): string {
  return TSIG_ERROR_NAMES[error] ?? `TSIG error ${error}`;
}
