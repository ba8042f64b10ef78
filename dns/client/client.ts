import { parseTsig, signMessage, type TsigKey, verifyMessage, verifyStreamMessage } from '../tsig';
import { DnsClientError, rcodeName, tsigErrorName } from './errors';
import { ixfrMessage, queryMessage, updateMessage, type Prerequisite, type UpdateOperation } from './messages';
import { type Incremental, IxfrReader } from './ixfr';
import { decodeResponse, type ClientRecord, type DecodedResponse } from './records';
import { formatServerAddress, parseServerAddress, type ServerAddress } from './server-address';
import { abortedError, TcpConnection, tcpExchange, udpExchange } from './transport';

export interface DnsClientOptions {
  /** The server: an address object or `"127.0.0.1 5353"` (see parseServerAddress). */
  server: ServerAddress | string;
  /** Signs every request and requires every answer to verify (RFC 8945). */
  key?: TsigKey;
  /** Per exchange, and per message of a transfer; default 5 s. */
  timeoutMs?: number;
  /** Most records a transfer may bring before it is abandoned (memory bound); default 2 000 000. */
  maxTransferRecords?: number;
}

export interface QueryOptions {
  /** Over TCP from the start; otherwise UDP, and TCP again when the answer is truncated. */
  tcp?: boolean;
  /**
   * The UDP buffer size advertised in an OPT record (RFC 6891), default 1232; `false` sends no OPT: a classic
   * RFC 1035 query, whose answers over UDP stop at 512 bytes and are cut differently when too large.
   */
  edns?: number | false;
}

export interface Transfer {
  /** The zone's SOA, first record of the transfer. */
  soa: ClientRecord;
  /** Every other record, in the order the server sent them (the closing SOA not repeated). */
  records: ClientRecord[];
}

/**
 * A request message, or a DnsClientError (kind `value`) saying what in it cannot be written (a value that is no RDATA
 * of its type, a name that is no DNS name), like any other failure of an exchange. Nothing is sent then.
 */
function buildRequest(build: () => Buffer): Buffer {
  try {
    return build();
  } catch (err) {
    throw new DnsClientError('value', (err as Error).message);
  }
}

/** Largest UDP request before we switch to TCP (RFC 1035 without EDNS). */
const UDP_REQUEST_LIMIT = 512;
/** UDP buffer we advertise (RFC 9715 / DNS flag day 2020). */
const EDNS_BUFFER = 1232;
/** RFC 8945 §5.3.1: at most 99 unsigned messages between signed ones of a stream. */
const MAX_UNSIGNED_RUN = 99;

/**
 * A DNS client for one server: queries, RFC 2136 dynamic updates and AXFR zone transfers, each TSIG-signed when a
 * key is given, with every answer (every message of a transfer) verified. Failures are {@link DnsClientError}s that
 * say which server and what went wrong (timeout, connection refused, REFUSED, NOTAUTH/BADSIG …).
 */
/** How many times a query goes out over UDP within its timeout (dig's default +tries). */
const QUERY_TRIES = 3;

export class DnsClient {
  readonly server: ServerAddress;
  private readonly where: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: DnsClientOptions) {
    this.server = typeof options.server === 'string' ? parseServerAddress(options.server) : options.server;
    this.where = formatServerAddress(this.server);
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /** Asks for `type` at `name`; an answer with an error RCODE (NXDOMAIN …) is returned, not thrown. */
  async query(name: string, type: string, options: QueryOptions = {}): Promise<DecodedResponse> {
    const edns = options.edns === false ? undefined : (options.edns ?? EDNS_BUFFER);
    const { wire, mac } = this.sign(buildRequest(() => queryMessage(name, type, { edns })));
    // over UDP asked up to QUERY_TRIES times within the timeout: a dropped answer is not a failure yet
    let raw = options.tcp ? await this.tcp(wire) : await udpExchange(this.server, wire, this.timeoutMs, QUERY_TRIES);
    if (!options.tcp && raw.readUInt16BE(2) & 0x200) raw = await this.tcp(wire); // truncated: again over TCP
    this.check(raw, mac, 'query');
    return decodeResponse(raw);
  }

  /** Sends one UPDATE for `zone`: all its operations apply, or none (RFC 2136 §3.7). Throws unless NOERROR. */
  async update(
    zone: string,
    operations: readonly UpdateOperation[],
    prerequisites: readonly Prerequisite[] = [],
  ): Promise<void> {
    const { wire, mac } = this.sign(buildRequest(() => updateMessage(zone, operations, prerequisites)));
    let raw =
      wire.length <= UDP_REQUEST_LIMIT ? await udpExchange(this.server, wire, this.timeoutMs) : await this.tcp(wire);
    if (raw.readUInt16BE(2) & 0x200) raw = await this.tcp(wire);
    this.check(raw, mac, `update of ${zone || '.'}`);
    const rcode = raw.readUInt16BE(2) & 0xf;
    if (rcode !== 0)
      throw new DnsClientError(
        'rcode',
        `update of ${zone || '.'} failed: ${this.where} answered ${rcodeName(rcode)}`,
        rcodeName(rcode),
      );
  }

  /**
   * The whole zone by AXFR over TCP (RFC 5936). When `signal` fires the connection is closed at once (the server
   * stops sending) and the transfer fails with a DnsClientError of kind `aborted`.
   */
  async transfer(zone: string, options: { signal?: AbortSignal } = {}): Promise<Transfer> {
    const records: ClientRecord[] = [];
    const { soa } = await this.transferEach(zone, (record) => records.push(record), options);
    return { soa, records };
  }

  /**
   * `transfer`, each record but the SOA handed to `visit` as it arrives instead of kept: a caller that turns records
   * into something else (rows, lines) holds the zone once, not twice. Gives the SOA once the transfer is complete;
   * a transfer that fails after some records were visited throws like `transfer`.
   */
  async transferEach(
    zone: string,
    visit: (record: ClientRecord) => void,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ soa: ClientRecord }> {
    const what = `transfer of ${zone || '.'}`;
    let soa: ClientRecord | undefined;
    await this.stream(
      what,
      () => queryMessage(zone, 'AXFR'),
      options.signal,
      (record) => {
        if (!soa) {
          if (record.type !== 'SOA')
            throw this.formatError(what, `a transfer that does not start with the SOA (${record.type})`);
          soa = record;
          return false;
        }
        if (record.type === 'SOA' && record.name === soa.name) return true;
        visit(record);
        return false;
      },
    );
    return { soa: soa! };
  }

  /**
   * IXFR over TCP (RFC 1995) from `soa`, the SOA of the version held (its serial is what counts): the changes since
   * as steps of deletions and additions, the whole zone when the server answers in AXFR form (no history, or too
   * much changed), or `current` when it has nothing newer. An error RCODE (REFUSED, NOTIMP: no IXFR there) throws
   * a DnsClientError of kind `rcode`, for the caller to ask for AXFR instead.
   */
  async incrementalTransfer(
    zone: string,
    soa: ClientRecord,
    options: { signal?: AbortSignal } = {},
  ): Promise<Incremental> {
    const what = `incremental transfer of ${zone || '.'}`;
    const reader = new IxfrReader(Number(soa.value.split(/\s+/)[2]), (why) => this.formatError(what, why));
    await this.stream(
      what,
      () => ixfrMessage(zone, soa.value),
      options.signal,
      (record) => reader.add(record),
      () => reader.endOfMessage(),
    );
    return reader.result();
  }

  /**
   * Sends the request `build` makes over TCP and hands each answer record to `visit` until it says the stream is complete (true);
   * every message is checked (ID, RCODE, TSIG in sequence: at most 99 unsigned messages between signed ones).
   * `endOfMessage` may end the stream after a whole message (an IXFR answered with the SOA alone).
   */
  private async stream(
    what: string,
    build: () => Buffer,
    signal: AbortSignal | undefined,
    visit: (record: ClientRecord) => boolean,
    endOfMessage: () => boolean = () => false,
  ): Promise<void> {
    const request = this.sign(buildRequest(build));
    const id = request.wire.readUInt16BE(0);
    const limit = this.options.maxTransferRecords ?? 2_000_000;
    const connection = await TcpConnection.open(this.server, this.timeoutMs, signal);
    const abort = (): void => {
      if (signal) connection.abort(signal);
    };
    signal?.addEventListener('abort', abort, { once: true });
    try {
      connection.send(request.wire);
      let count = 0;
      let prior = request.mac;
      let unsigned: Buffer[] = [];
      for (let messages = 0; messages <= limit; messages++) {
        // Messages already received come without a turn of the event loop: the signal is looked at between them.
        if (signal?.aborted) throw abortedError(this.where, signal);
        const raw = await connection.next(this.timeoutMs);
        if (raw.length < 12 || raw.readUInt16BE(0) !== id) throw this.formatError(what, 'an answer with another ID');
        if (messages === 0) this.check(raw, request.mac, what);
        else if (this.options.key && prior) {
          const verified = verifyStreamMessage(raw, this.options.key, prior, unsigned);
          if (verified.status === 'ok') {
            prior = verified.tsig.mac;
            unsigned = [];
          } else if (verified.status === 'unsigned' && unsigned.length < MAX_UNSIGNED_RUN) unsigned.push(raw);
          else
            throw this.tsigError(
              what,
              verified.status === 'error' ? tsigErrorName(verified.error) : 'too many unsigned messages',
            );
        }
        if (messages === 0) prior = parseTsig(raw)?.mac ?? prior;
        const rcode = raw.readUInt16BE(2) & 0xf;
        if (rcode !== 0)
          throw new DnsClientError(
            'rcode',
            `${what} failed: ${this.where} answered ${rcodeName(rcode)}`,
            rcodeName(rcode),
          );
        const answers = decodeResponse(raw).answers;
        if (messages === 0 && answers.length === 0) throw this.formatError(what, 'an empty first message');
        for (const record of answers) {
          // the SOAs that frame a transfer not counted
          if (++count > limit + 2) throw this.formatError(what, `more than ${limit} records`);
          if (visit(record)) {
            if (this.options.key && unsigned.length > 0) throw this.tsigError(what, 'the last message is not signed');
            return;
          }
        }
        if (endOfMessage()) return;
      }
      throw this.formatError(what, `more than ${limit} messages`);
    } finally {
      signal?.removeEventListener('abort', abort);
      connection.close();
    }
  }

  private sign(message: Buffer): { wire: Buffer; mac: Buffer | undefined } {
    if (!this.options.key) return { wire: message, mac: undefined };
    const signed = signMessage(message, this.options.key);
    return { wire: signed.message, mac: signed.mac };
  }

  private tcp(wire: Buffer): Promise<Buffer> {
    return tcpExchange(this.server, wire, this.timeoutMs);
  }

  /** An answer must be a response; with a key, it must carry a TSIG that verifies against our request's MAC. */
  private check(raw: Buffer, requestMac: Buffer | undefined, what: string): void {
    if (!(raw.readUInt16BE(2) & 0x8000)) throw this.formatError(what, 'a message that is not a response');
    const key = this.options.key;
    if (!key || !requestMac) return;
    const rcode = raw.readUInt16BE(2) & 0xf;
    const tsig = parseTsig(raw);
    if (tsig && tsig.error !== 0) {
      // The server refused our signature (RFC 8945 §5.2): its answer is unsigned, the TSIG error says why.
      const error = tsigErrorName(tsig.error);
      throw new DnsClientError(
        'rcode',
        `${what} failed: ${this.where} answered ${rcodeName(rcode)} (${error}): it does not accept TSIG key ${key.name}`,
        rcodeName(rcode),
        error,
      );
    }
    if (!tsig) {
      if (rcode !== 0)
        throw new DnsClientError(
          'rcode',
          `${what} failed: ${this.where} answered ${rcodeName(rcode)} (unsigned)`,
          rcodeName(rcode),
        );
      throw this.tsigError(what, 'the answer is not signed');
    }
    const verified = verifyMessage(raw, new Map([[key.name, key]]), { priorMac: requestMac });
    if (verified.status !== 'ok')
      throw this.tsigError(
        what,
        verified.status === 'error' ? tsigErrorName(verified.error) : 'the answer is not signed',
      );
  }

  private tsigError(what: string, why: string): DnsClientError {
    return new DnsClientError(
      'tsig',
      `${what}: the answer from ${this.where} does not verify with TSIG key ${this.options.key?.name ?? ''}: ${why}`,
    );
  }

  private formatError(what: string, why: string): DnsClientError {
    return new DnsClientError('format', `${what}: ${this.where} sent ${why}`);
  }
}
