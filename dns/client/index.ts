/** A DNS client: queries, RFC 2136 UPDATE and AXFR, TSIG-signed and verified (used by the DNS tool and tests). */
export { DnsClient, type DnsClientOptions, type QueryOptions, type Transfer } from './client';
export { DnsClientError, type DnsClientErrorKind, rcodeName } from './errors';
export type { Incremental, IxfrStep } from './ixfr';
export { type Prerequisite, type UpdateOperation, rdataOf, typeCode } from './messages';
export { type ClientRecord, type DecodedResponse, genericValue } from './records';
export { formatServerAddress, parseServerAddress, type ServerAddress } from './server-address';
export { frameMessage, splitFrames } from './transport';
