import * as packet from 'dns-packet';
import type { Answer } from 'dns-packet';
import { randomBytes } from 'node:crypto';
import { DEFAULT_RRL, parseNetwork, ResponseRateLimiter, RRL, type RrlOptions, SLIP_BYTES, slipResponse } from './rrl';
import { ServerCookies } from './cookies';

/** The response rate limiter alone, on a clock the test moves (ms). */

const SOA: Answer = {
  type: 'SOA',
  name: 'example.test',
  ttl: 300,
  data: {
    mname: 'ns.example.test',
    rname: 'admin.example.test',
    serial: 1,
    refresh: 1,
    retry: 1,
    expire: 1,
    minimum: 60,
  },
};

/** A response as the server would send it: `kind` decides rcode, flags and sections. */
function reply(
  name: string,
  kind: 'answer' | 'nxdomain' | 'nodata' | 'referral' | 'refused' = 'answer',
  type: 'A' | 'TXT' = 'A',
): Buffer {
  const aa = kind === 'referral' ? 0 : packet.AUTHORITATIVE_ANSWER;
  const rcode = kind === 'nxdomain' ? 3 : kind === 'refused' ? 5 : 0;
  return packet.encode({
    type: 'response',
    id: 7,
    flags: aa | rcode,
    questions: [{ name, type, class: 'IN' }],
    answers: kind === 'answer' ? [{ type: 'A', name, ttl: 60, data: '192.0.2.1' }] : [],
    authorities:
      kind === 'nxdomain' || kind === 'nodata'
        ? [SOA]
        : kind === 'referral'
          ? [{ type: 'NS', name: 'child.example.test', ttl: 60, data: 'ns.child.example.test' }]
          : [],
  });
}

class Clock {
  ms = 1_000_000;
  readonly now = (): number => this.ms;
}

interface Logged {
  level: 'warn' | 'info';
  obj: Record<string, unknown>;
  msg: string;
}

function limiter(options: Partial<RrlOptions> = {}, clock = new Clock()) {
  const lines: Logged[] = [];
  const log = {
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
  const rrl = new ResponseRateLimiter({ ...DEFAULT_RRL, ...options }, log, clock.now);
  /** What goes out for `r` to `address`: send, drop or slip (log-only: what it would do is `would`). */
  const verdict = (address: string, r: Buffer): number => (rrl.account(address, r) ? rrl.limit(r).verdict : RRL.send);
  const would = (address: string, r: Buffer): number => (rrl.account(address, r) ? rrl.limit(r).would : RRL.send);
  return { rrl, clock, lines, verdict, would };
}

/** `n` verdicts in a row (at the same instant). */
function burst(verdict: (a: string, r: Buffer) => number, address: string, r: Buffer, n: number): number[] {
  return Array.from({ length: n }, () => verdict(address, r));
}

const count = (verdicts: number[], v: number): number => verdicts.filter((x) => x === v).length;

describe('credit and window', () => {
  test('a burst gets the rate, then is limited; credit comes back at the rate per second', () => {
    const { verdict, clock } = limiter({ responsesPerSecond: 5, windowS: 2, slip: 0 });
    const www = reply('www.example.test');
    expect(burst(verdict, '192.0.2.1', www, 8)).toEqual([0, 0, 0, 0, 0, 1, 1, 1]);
    // balance -3 now: 0.6 s later it is 0 → the next debit makes it negative, still limited
    clock.ms += 600;
    expect(verdict('192.0.2.1', www)).toBe(RRL.drop);
    // 1 s later: -1 + 5 = 4 → four more answers, then limited again
    clock.ms += 1000;
    expect(burst(verdict, '192.0.2.1', www, 5)).toEqual([0, 0, 0, 0, 1]);
  });

  test('a flood sinks the balance to -window × rate at most: quiet for the window, it is whole again', () => {
    const { verdict, clock } = limiter({ responsesPerSecond: 5, windowS: 2, slip: 0 });
    const www = reply('www.example.test');
    burst(verdict, '192.0.2.1', www, 1000); // balance at the floor, -10
    clock.ms += 2000; // -10 + 2 × 5 = 0: the next one is still limited
    expect(verdict('192.0.2.1', www)).toBe(RRL.drop);
    clock.ms += 2001; // more than the window since the last: the account starts over with the rate
    expect(count(burst(verdict, '192.0.2.1', www, 6), RRL.send)).toBe(5);
  });

  test('rate 0 for a kind: never limited', () => {
    const { verdict } = limiter({ responsesPerSecond: 1, nxdomainsPerSecond: 0, slip: 0 });
    expect(count(burst(verdict, '192.0.2.1', reply('x.example.test', 'nxdomain'), 50), RRL.drop)).toBe(0);
    expect(count(burst(verdict, '192.0.2.1', reply('www.example.test'), 50), RRL.drop)).toBe(49);
  });
});

describe('slip', () => {
  test.each([
    [0, [1, 1, 1, 1, 1, 1]],
    [1, [2, 2, 2, 2, 2, 2]],
    [2, [1, 2, 1, 2, 1, 2]],
    [3, [1, 1, 2, 1, 1, 2]],
  ])('slip %d: the limited responses go %j (1 drop, 2 slip)', (slip, expected) => {
    const { verdict } = limiter({ responsesPerSecond: 2, slip });
    const www = reply('www.example.test');
    expect(burst(verdict, '192.0.2.1', www, 2)).toEqual([0, 0]);
    expect(burst(verdict, '192.0.2.1', www, 6)).toEqual(expected);
  });

  test('the slip is the header with TC and no records, the question, an OPT for EDNS: never longer than the query', () => {
    const full = packet.encode({
      type: 'response',
      id: 42,
      flags: packet.AUTHORITATIVE_ANSWER,
      questions: [{ name: 'example.test', type: 'DNSKEY', class: 'IN' }],
      answers: Array.from({ length: 5 }, () => ({
        type: 'TXT' as const,
        name: 'example.test',
        ttl: 1,
        data: 'x'.repeat(200),
      })),
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] } as unknown as Answer],
    });
    const query = packet.encode({
      type: 'query',
      id: 42,
      questions: [{ name: 'example.test', type: 'DNSKEY', class: 'IN' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] } as unknown as Answer],
    });
    const slip = slipResponse(full, true, Buffer.alloc(SLIP_BYTES));
    const decoded = packet.decode(slip);
    expect(decoded.id).toBe(42);
    expect(decoded.flag_tc).toBe(true);
    expect(decoded.flag_aa).toBe(true);
    expect(decoded.questions).toEqual([{ name: 'example.test', type: 'DNSKEY', class: 'IN' }]);
    expect(decoded.answers).toEqual([]);
    expect(decoded.additionals?.map((a) => a.type)).toEqual(['OPT']);
    expect(slip.length).toBeLessThanOrEqual(query.length);
    const plain = packet.decode(slipResponse(full, false, Buffer.alloc(SLIP_BYTES)));
    expect(plain.additionals).toEqual([]);
    expect(plain.flag_tc).toBe(true);
  });
});

describe('client networks', () => {
  test('IPv4: one account per /24 (IPv4-mapped IPv6 too); a /32 prefix counts each address', () => {
    const www = reply('www.example.test');
    const { verdict } = limiter({ responsesPerSecond: 3, slip: 0 });
    expect(burst(verdict, '192.0.2.1', www, 2)).toEqual([0, 0]);
    expect(verdict('192.0.2.200', www)).toBe(RRL.send);
    expect(verdict('::ffff:192.0.2.7', www)).toBe(RRL.drop);
    expect(verdict('192.0.3.1', www)).toBe(RRL.send);
    const each = limiter({ responsesPerSecond: 1, slip: 0, ipv4Prefix: 32 });
    expect(each.verdict('192.0.2.1', www)).toBe(RRL.send);
    expect(each.verdict('192.0.2.2', www)).toBe(RRL.send);
    expect(each.verdict('192.0.2.1', www)).toBe(RRL.drop);
  });

  test('IPv6: one account per /56', () => {
    const www = reply('www.example.test');
    const { verdict } = limiter({ responsesPerSecond: 2, slip: 0 });
    expect(verdict('2001:db8:0:1::1', www)).toBe(RRL.send);
    expect(verdict('2001:db8:0:ff:ffff::2', www)).toBe(RRL.send); // same /56 (2001:db8:0:00xx)
    expect(verdict('2001:db8:0:7::9', www)).toBe(RRL.drop);
    expect(verdict('2001:db8:0:100::1', www)).toBe(RRL.send); // another /56
    expect(verdict('2001:db8:1::1', www)).toBe(RRL.send);
  });

  test('exempt networks are never limited, and their answers use no account of the network around them', () => {
    const www = reply('www.example.test');
    const { verdict } = limiter({ responsesPerSecond: 2, slip: 0, exempt: ['192.0.2.0/25', '2001:db8::1'] });
    expect(count(burst(verdict, '192.0.2.5', www, 100), RRL.send)).toBe(100);
    expect(count(burst(verdict, '2001:db8::1', www, 100), RRL.send)).toBe(100);
    expect(burst(verdict, '192.0.2.200', www, 3)).toEqual([0, 0, 1]);
    expect(verdict('2001:db8::2', www)).toBe(RRL.send);
  });

  test('an exempt list entry that is no network is refused saying what is allowed', () => {
    expect(() => parseNetwork('192.0.2.0/33')).toThrow('"192.0.2.0/33": the prefix length must be 0 to 32');
    expect(() => parseNetwork('2001:db8::/129')).toThrow('the prefix length must be 0 to 128');
    expect(() => parseNetwork('example.test')).toThrow('is not an IPv4 or IPv6 network (e.g. 192.0.2.0/24');
    expect(() => parseNetwork('192.0.2.0/24/1')).toThrow('is not an IPv4 or IPv6 network');
    expect(() => parseNetwork('192.0.2.0/x')).toThrow('the prefix length must be 0 to 32');
  });
});

describe('what is identical', () => {
  test('answers: the name (any case) and type; another name or type has an account of its own', () => {
    const { verdict } = limiter({ responsesPerSecond: 1, slip: 0 });
    expect(verdict('192.0.2.1', reply('www.example.test'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('WWW.Example.TEST'))).toBe(RRL.drop);
    expect(verdict('192.0.2.1', reply('www.example.test', 'answer', 'TXT'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('mail.example.test'))).toBe(RRL.send);
  });

  test('NXDOMAIN: the zone, whatever the name (random names share one account); referrals: the delegation', () => {
    const { verdict } = limiter({ responsesPerSecond: 2, slip: 0 });
    expect(verdict('192.0.2.1', reply('a1.example.test', 'nxdomain'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('b2.example.test', 'nxdomain'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('c3.example.test', 'nxdomain'))).toBe(RRL.drop);
    expect(verdict('192.0.2.1', reply('x.child.example.test', 'referral'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('y.child.example.test', 'referral'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('z.child.example.test', 'referral'))).toBe(RRL.drop);
  });

  test('errors: one account per network; NODATA: per name; each kind its own rate', () => {
    const { verdict } = limiter({ responsesPerSecond: 100, errorsPerSecond: 1, nodataPerSecond: 1, slip: 0 });
    expect(verdict('192.0.2.1', reply('a.other.test', 'refused'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('b.other.test', 'refused'))).toBe(RRL.drop);
    expect(verdict('192.0.2.1', reply('a.example.test', 'nodata'))).toBe(RRL.send);
    expect(verdict('192.0.2.1', reply('a.example.test', 'nodata'))).toBe(RRL.drop);
    expect(verdict('192.0.2.1', reply('b.example.test', 'nodata'))).toBe(RRL.send);
    expect(count(burst(verdict, '192.0.2.1', reply('www.example.test'), 100), RRL.send)).toBe(100);
  });
});

describe('log-only, logging, refund, a full table', () => {
  test('log-only sends everything and says what it would have done', () => {
    const { rrl, would, lines } = limiter({ mode: 'log-only', responsesPerSecond: 2, slip: 2 });
    const www = reply('www.example.test');
    expect(burst(would, '192.0.2.1', www, 6)).toEqual([0, 0, 1, 2, 1, 2]);
    expect(rrl.account('192.0.2.1', www)).toBe(true);
    expect(rrl.limit(www).verdict).toBe(RRL.send);
    expect(lines.map((l) => l.msg)).toEqual([
      'RRL: would limit (log-only) answers (response) for www.example.test to 192.0.2.0/24',
    ]);
  });

  test('one line when a network starts being limited and one when it stops, not one per response', () => {
    const { verdict, clock, lines } = limiter({ responsesPerSecond: 2, windowS: 1, slip: 2 });
    const www = reply('www.example.test');
    burst(verdict, '2001:db8:0:1::5', www, 500);
    expect(lines).toEqual([
      {
        level: 'warn',
        obj: { network: '2001:db8::/56', category: 'response', name: 'www.example.test' },
        msg: 'RRL: limiting answers (response) for www.example.test to 2001:db8::/56',
      },
    ]);
    clock.ms += 1001;
    expect(verdict('2001:db8:0:1::5', www)).toBe(RRL.send);
    expect(lines[1]).toEqual({
      level: 'info',
      obj: { network: '2001:db8::/56', category: 'response' },
      msg: 'RRL: stopped limiting answers (response) to 2001:db8::/56',
    });
  });

  test('log lines: at most 5 a second, those held back counted on the next', () => {
    const { verdict, clock, lines } = limiter({ responsesPerSecond: 1, slip: 0 });
    for (let n = 1; n <= 20; n++) burst(verdict, `10.0.${n}.1`, reply('www.example.test'), 3);
    expect(lines).toHaveLength(5);
    clock.ms += 1000;
    burst(verdict, '10.1.0.1', reply('www.example.test'), 3);
    expect(lines).toHaveLength(6);
    expect(lines[5]?.obj).toMatchObject({ network: '10.1.0.0/24', suppressed: 15 });
  });

  test('refund: a limited answer exempted afterwards (a valid cookie) costs nothing', () => {
    const { rrl } = limiter({ responsesPerSecond: 1, slip: 0 });
    const www = reply('www.example.test');
    expect(rrl.account('192.0.2.1', www)).toBe(false);
    for (let i = 0; i < 10; i++) {
      expect(rrl.account('192.0.2.1', www)).toBe(true);
      rrl.refund();
    }
    // the balance is where the first answer left it (0): still limited, never driven down by the exempted ones
    const clock = new Clock();
    const again = limiter({ responsesPerSecond: 1, slip: 0 }, clock);
    again.rrl.account('192.0.2.1', www);
    for (let i = 0; i < 10; i++) {
      again.rrl.account('192.0.2.1', www);
      again.rrl.refund();
    }
    clock.ms += 1000; // 0 + 1: one more answer goes
    expect(again.rrl.account('192.0.2.1', www)).toBe(false);
  });

  test('a full table replaces the least recently used account (which starts over) and says so once', () => {
    const { rrl, verdict, clock, lines } = limiter({ responsesPerSecond: 1, slip: 0, tableSize: 2 });
    const www = reply('www.example.test');
    expect(burst(verdict, '10.0.1.1', www, 2)).toEqual([0, 1]);
    clock.ms += 1;
    expect(burst(verdict, '10.0.2.1', www, 2)).toEqual([0, 1]);
    clock.ms += 1;
    // a third network: 10.0.1.0/24's account (least recently used) is replaced
    expect(verdict('10.0.3.1', www)).toBe(RRL.send);
    expect(rrl.evictions).toBe(1);
    expect(lines.some((l) => l.msg.startsWith('RRL table full'))).toBe(true);
    clock.ms += 1;
    expect(verdict('10.0.2.1', www)).toBe(RRL.drop); // kept
    expect(verdict('10.0.1.1', www)).toBe(RRL.send); // starts over
    expect(rrl.evictions).toBe(2);
  });
});

describe('server cookies (what exempts a client)', () => {
  test('valid only for our own cookie, to the address it was made for, within the hour', () => {
    let now = 1_795_000_000;
    const cookies = new ServerCookies(randomBytes(32), () => now);
    const client = Buffer.from('0102030405060708', 'hex');
    const cookie = cookies.answer(client, '192.0.2.1');
    expect(cookies.valid(cookie, '192.0.2.1')).toBe(true);
    expect(cookies.valid(cookie, '192.0.2.2')).toBe(false);
    expect(new ServerCookies(randomBytes(32), () => now).valid(cookie, '192.0.2.1')).toBe(false);
    const tampered = Buffer.from(cookie);
    tampered[23] = (tampered[23] ?? 0) ^ 1;
    expect(cookies.valid(tampered, '192.0.2.1')).toBe(false);
    expect(cookies.valid(client, '192.0.2.1')).toBe(false);
    now += 3601;
    expect(cookies.valid(cookie, '192.0.2.1')).toBe(false);
  });
});
