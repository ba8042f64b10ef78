// @needs bind build
import { execFile } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DnsClient, DnsClientError } from '../../dns/client';
import { parseKeySpec } from '../../dns/tsig';
import { freeDnsPort } from '../bench/processes';
import { call, login } from '../dns-api/api';
import { axfrLines, dig, requireTool, soaSerial, startNamed, type Named } from '../support/dns-peers';
import { gatewayStarted, launchGateway, stopGateway, until, type GatewayProcess } from '../support/gateway-process';
import { TEST_ADMIN_PASSWORD } from '../support/system';

/**
 * Our server as a secondary (docs/dns-server.md, "Secondary zones"), over the real wire: of BIND 9 (a dynamic zone
 * changed with nsupdate) and of another instance of ours (a zone created and changed through its REST API). After
 * the primary's change and its NOTIFY, the secondary serves the new serial and records — the time it took is
 * printed (target 1 s; the assertion is a generous backstop) — and its AXFR equals the primary's. A restart of the
 * secondary while the primary is down serves the zone from the copy it keeps on disk.
 */
const run = promisify(execFile);
const SECRET = 'c2Vjb25kYXJ5LXpvbmVzLXVwZGF0ZS1rZXktc2VjcmV0';
const KEY_SPEC = `hmac-sha256:upd:${SECRET}`;
/** The target after NOTIFY is 1 s; this only catches a secondary that waits for its refresh timer instead. */
const BACKSTOP_MS = 5_000;

const at = (port: number) => ({ host: '127.0.0.1', port });

/** Polls (no fixed sleep) until `server` answers `name` A with `address` and the zone's SOA with `serial`: the ms it took. */
async function servedWithin(
  server: { host: string; port: number },
  zone: string,
  serial: number,
  name: string,
  address: string,
): Promise<number> {
  const started = Date.now();
  const client = new DnsClient({ server, timeoutMs: 1000 });
  for (;;) {
    const soa = await client.query(zone, 'SOA').catch(() => undefined);
    const value = soa?.answers.find((r) => r.type === 'SOA')?.value;
    if (value !== undefined && Number(value.split(' ')[2]) === serial) {
      const a = await client.query(name, 'A');
      if (a.answers.some((r) => r.value === address)) return Date.now() - started;
    }
    if (Date.now() - started > BACKSTOP_MS * 4) throw new Error(`${zone} serial ${serial} not served`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sorted = (lines: string[]): string[] => [...lines].sort();

describe('secondary of BIND 9', () => {
  const ZONE = 'sec-bind.test';
  const ZONE_TEXT = `$ORIGIN ${ZONE}.
$TTL 300
@    IN SOA ns1.${ZONE}. hostmaster.${ZONE}. ( 1 3600 600 86400 60 )
     IN NS  ns1.${ZONE}.
     IN MX  10 mail.${ZONE}.
ns1  IN A   192.0.2.1
mail IN A   192.0.2.2
www  IN A   192.0.2.3
     IN AAAA 2001:db8::3
txt  IN TXT "hello" "world"
`;
  let named: Named;
  let ours: GatewayProcess;
  let ourPort: number;
  let keyFile: string;

  beforeAll(async () => {
    requireTool('nsupdate');
    ourPort = await freeDnsPort();
    named = await startNamed(
      [
        {
          name: ZONE,
          text: ZONE_TEXT,
          // transfers only with the key, and NOTIFY signed with it: our side must sign and check both
          options: `type primary; allow-update { key upd; }; notify explicit; notify-delay 0; also-notify { 127.0.0.1 port ${ourPort} key upd; }; allow-transfer { key upd; };`,
        },
      ],
      `key "upd" { algorithm hmac-sha256; secret "${SECRET}"; };`,
    );
    keyFile = join(named.dir, 'ours-keys.conf');
    writeFileSync(keyFile, `key "upd" { algorithm hmac-sha256; secret "${SECRET}"; };\n`);
    ours = await launchGateway({
      LOG_LEVEL: 'info',
      DNS_PORT: String(ourPort),
      TSIG_KEYFILE: keyFile,
      DNS_SECONDARY_ZONES: `${ZONE}@127.0.0.1:${named.port}/upd`,
    });
    await gatewayStarted(ours);
  }, 60_000);

  afterAll(async () => {
    if (ours) {
      await stopGateway(ours);
      rmSync(ours.dataDir, { recursive: true, force: true });
    }
    await named?.stop();
  });

  test('transferred at start: the same AXFR as BIND, authoritative answers', async () => {
    await until('our secondary serving serial 1', async () =>
      (await soaSerial(at(ourPort), ZONE)) === 1 ? 1 : undefined,
    );
    expect(sorted(await axfrLines(at(ourPort), ZONE))).toEqual(sorted(await axfrLines(named, ZONE, ['-y', KEY_SPEC])));
    const www = await dig(at(ourPort), [`www.${ZONE}`, 'AAAA']);
    expect(www.flags).toContain('aa');
    expect(www.answer).toEqual([`www.${ZONE}. 300 IN AAAA 2001:db8::3`]);
    expect(existsSync(join(ours.dataDir, 'secondary', `${ZONE}.zone`))).toBe(true);
  });

  test('an nsupdate on BIND is served by us after its NOTIFY, within the target', async () => {
    const input = `server 127.0.0.1 ${named.port}\nzone ${ZONE}\nupdate add new.${ZONE} 300 A 192.0.2.77\nsend\n`;
    const child = run('nsupdate', ['-y', KEY_SPEC, '-t', '20'], { timeout: 45_000 });
    child.child.stdin?.end(input);
    await child;
    const ms = await servedWithin(at(ourPort), ZONE, 2, `new.${ZONE}`, '192.0.2.77');
    console.log(`BIND primary: nsupdate answered → our secondary serves serial 2 after ${ms} ms`);
    expect(ms).toBeLessThan(BACKSTOP_MS);
    // BIND keeps a journal of its dynamic zone: the change came as one IXFR step, not the zone whole
    expect(ours.output()).toMatch(/"serial":2,"records":\d+,"how":"IXFR".*secondary zone transferred/);
    expect(sorted(await axfrLines(at(ourPort), ZONE))).toEqual(sorted(await axfrLines(named, ZONE, ['-y', KEY_SPEC])));
  });

  test('an UPDATE sent to us for the secondary zone is REFUSED, though signed with a key we accept', async () => {
    const client = new DnsClient({ server: at(ourPort), key: parseKeySpec(KEY_SPEC) });
    const refused = await client
      .update(ZONE, [{ op: 'add', name: `x.${ZONE}`, type: 'A', ttl: 60, value: '192.0.2.9' }])
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(DnsClientError);
    expect((refused as DnsClientError).rcode).toBe('REFUSED');
    expect(await soaSerial(at(ourPort), ZONE)).toBe(2);
  });

  test('the DNS API refuses to create a zone of the same name: 409 naming the primary, nothing written', async () => {
    const api = `${ours.base}/api/v1`;
    const token = await login(api, 'admin', TEST_ADMIN_PASSWORD);
    const res = await call<{ error: string }>(api, 'POST', '/zones', { token, body: { name: ZONE } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(new RegExp(`secondary of 127\\.0\\.0\\.1:${named.port}: .*DNS_SECONDARY_ZONES`));
    expect((await call(api, 'GET', `/zones/${ZONE}`, { token })).status).toBe(404);
    expect(await soaSerial(at(ourPort), ZONE)).toBe(2);
  });
});

describe('secondary of another instance of ours', () => {
  const ZONE = 'sec-ours.test';
  const ZONE_FILE = `$ORIGIN ${ZONE}.
$TTL 600
@    IN SOA ns1.${ZONE}. hostmaster.${ZONE}. ( 7 3600 600 86400 60 )
     IN NS  ns1.${ZONE}.
ns1  IN A   192.0.2.11
www  IN A   192.0.2.12
txt  IN TXT "from" "our primary"
`;
  let primary: GatewayProcess;
  let secondary: GatewayProcess | undefined;
  let secondaryPort: number;
  let api: string;
  let token: string;

  beforeAll(async () => {
    secondaryPort = await freeDnsPort();
    primary = await gatewayStarted(await launchGateway({ NOTIFY_TARGETS: `127.0.0.1:${secondaryPort}` }));
    api = `${primary.base}/api/v1`;
    token = await login(api, 'admin', TEST_ADMIN_PASSWORD);
    const created = await call(api, 'POST', '/zones', { token, body: { name: ZONE, zone_file: ZONE_FILE } });
    expect(created.status).toBe(201);
    secondary = await gatewayStarted(
      await launchGateway({
        DNS_PORT: String(secondaryPort),
        DNS_SECONDARY_ZONES: `${ZONE}@127.0.0.1:${primary.dnsPort}`,
      }),
    );
  }, 90_000);

  afterAll(async () => {
    for (const p of [secondary, primary]) {
      if (!p) continue;
      await stopGateway(p);
      rmSync(p.dataDir, { recursive: true, force: true });
    }
  });

  test('transferred at start: the same AXFR as the primary', async () => {
    await until('the secondary serving serial 7', async () =>
      (await soaSerial(at(secondaryPort), ZONE)) === 7 ? 7 : undefined,
    );
    expect(sorted(await axfrLines(at(secondaryPort), ZONE))).toEqual(
      sorted(await axfrLines(at(primary.dnsPort), ZONE)),
    );
  });

  test('a record added through the REST API is served by the secondary after the NOTIFY, within the target', async () => {
    const added = await call(api, 'POST', `/zones/${ZONE}/records`, {
      token,
      body: { name: 'new', type: 'A', value: '192.0.2.99', ttl: 300 },
    });
    expect(added.status).toBe(201);
    // the API answers once the primary serves the change: its serial now is what the secondary must reach
    const serial = await soaSerial(at(primary.dnsPort), ZONE);
    expect(serial).toBeGreaterThan(7);
    const ms = await servedWithin(at(secondaryPort), ZONE, serial!, `new.${ZONE}`, '192.0.2.99');
    console.log(`our primary: REST write answered → our secondary serves serial ${serial} after ${ms} ms`);
    expect(ms).toBeLessThan(BACKSTOP_MS);
    expect(sorted(await axfrLines(at(secondaryPort), ZONE))).toEqual(
      sorted(await axfrLines(at(primary.dnsPort), ZONE)),
    );
  });

  test('restarted while the primary is down, the secondary serves the zone from its copy on disk', async () => {
    const served = await axfrLines(at(secondaryPort), ZONE);
    await stopGateway(primary);
    const dataDir = secondary!.dataDir;
    await stopGateway(secondary!);
    secondary = await gatewayStarted(
      await launchGateway({
        DATA_DIR: dataDir,
        DNS_PORT: String(secondaryPort),
        DNS_SECONDARY_ZONES: `${ZONE}@127.0.0.1:${primary.dnsPort}`,
      }),
    );
    // at once: /healthz answered, so the copy is in (it is loaded before the server opens)
    const www = await dig(at(secondaryPort), [`new.${ZONE}`, 'A']);
    expect(www.status).toBe('NOERROR');
    expect(www.flags).toContain('aa');
    expect(www.answer).toEqual([`new.${ZONE}. 300 IN A 192.0.2.99`]);
    expect(await axfrLines(at(secondaryPort), ZONE)).toEqual(served);
    // the refresh fails (the primary is down): the health report says so, with the reason
    const health = await until('the failed refresh reported', async () => {
      const body = (await (await fetch(`${secondary!.base}/healthz`)).json()) as {
        status: string;
        dns: { problems?: string[]; secondary?: Array<{ zone: string; error?: string; expired: boolean }> };
      };
      return body.dns.secondary?.[0]?.error === undefined ? undefined : body;
    });
    expect(health.status).toBe('degraded');
    expect(health.dns.secondary?.[0]).toMatchObject({ zone: ZONE, expired: false });
    expect(health.dns.problems?.join('\n')).toMatch(new RegExp(`secondary zone ${ZONE} could not be refreshed`));
  });
});
