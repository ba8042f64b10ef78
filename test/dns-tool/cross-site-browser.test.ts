// @needs chromium
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { api, OPS, READER, startEditorsSystem, type ToolSystem } from './tool-system';

/**
 * Cross-site requests (docs/dns-tool.md) in a real browser: Debian's headless Chromium logs in to `/api.php` from
 * the tool's own origin (the cookie is set as a browser sets it), then visits an attacker's pages — on another site
 * (`localhost` is another site than `127.0.0.1`) and on another port of the same host (same site, another origin) —
 * whose links and forms aim at `/api.php`. Whatever headers Chromium sends, no record changes and the victim's
 * session stays theirs; a change from the tool's own origin works.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

jest.setTimeout(120_000);

let t: ToolSystem;
let attacker: Server;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** The attacker's pages on another site and on another port of the tool's host. */
let crossSite: string;
let sameSite: string;

const createQuery = (name: string) =>
  new URLSearchParams({ action: 'create_record', record: name, ttl: '300', type: 'A', value: '192.0.2.90' });

/** The attacker's pages: a link and self-submitting forms aimed at the tool. */
function attackerPage(path: string): string {
  const tool = `${t.url}/api.php`;
  const form = (fields: Record<string, string>) =>
    `<form id="f" method="POST" action="${tool}">${Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
      .join('')}<button id="go">Win a prize</button></form>`;
  if (path.startsWith('/link/')) return `<a id="go" href="${tool}?${createQuery(path.slice(6)).toString()}">Win</a>`;
  if (path.startsWith('/form/')) return form(Object.fromEntries(createQuery(path.slice(6))));
  if (path === '/login') return form({ action: 'login_token', token: READER });
  return 'nothing here';
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (never skipped)`,
    );
  t = await startEditorsSystem();
  attacker = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!DOCTYPE html><html><body>${attackerPage(req.url ?? '/')}</body></html>`);
  });
  const port = await listen(attacker);
  crossSite = `http://localhost:${port}`;
  sameSite = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
  context = await browser.newContext();
  page = await context.newPage();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  attacker?.close();
  await t?.close();
});

/** The A records at a name, read with the ops token (never by the browser's cookie). */
async function aRecords(name: string): Promise<unknown> {
  return (await api(t.url, { action: 'get_record', record: name, type: 'A' }, { bearer: OPS })).body;
}

async function sessionCookie(): Promise<{ value: string; sameSite: string; httpOnly: boolean } | undefined> {
  return (await context.cookies(t.url)).find((c) => c.name === 'dnsphpadmin');
}

/** A form POST from the page currently open (the tool's own origin when it shows the help page). */
function postFromPage(body: string): Promise<string> {
  return page.evaluate(
    async (text) =>
      (
        await fetch('/api.php', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: text,
        })
      ).text(),
    body,
  );
}

/** Opens an attacker page, clicks its link or button and waits for the tool's answer. */
async function clickThrough(url: string): Promise<string> {
  await page.goto(url);
  await Promise.all([page.waitForURL((u) => u.pathname === '/api.php'), page.click('#go')]);
  return page.innerText('body');
}

test("the victim logs in from the tool's own origin: the cookie is HttpOnly and SameSite=Strict", async () => {
  await page.goto(`${t.url}/api.php`);
  const login = JSON.parse(await postFromPage(`action=login_token&token=${OPS}`)) as { session_id: string };
  expect(await sessionCookie()).toMatchObject({ value: login.session_id, sameSite: 'Strict', httpOnly: true });
  // A change from the tool's own page, carried by the cookie alone, works (Chromium sends Origin and Sec-Fetch-Site).
  expect(JSON.parse(await postFromPage(createQuery('own-page.example.test').toString()))).toEqual({
    result: 'success',
  });
  expect(await aRecords('own-page.example.test')).toEqual([['own-page.example.test.', '300', 'IN', 'A', '192.0.2.90']]);
});

test('a link on another site creates nothing', async () => {
  const answer = await clickThrough(`${crossSite}/link/cross-link.example.test`);
  expect(answer).toMatch(/"error": "(Not authenticated|Cross-site request refused)"/);
  expect(await aRecords('cross-link.example.test')).toEqual([]);
});

test('a link on another port of the same host creates nothing', async () => {
  const answer = await clickThrough(`${sameSite}/link/port-link.example.test`);
  expect(answer).toContain('"error": "Cross-site request refused"');
  expect(await aRecords('port-link.example.test')).toEqual([]);
});

test('a form POSTed from another port of the same host creates nothing', async () => {
  const answer = await clickThrough(`${sameSite}/form/port-form.example.test`);
  expect(answer).toContain('"error": "Cross-site request refused"');
  expect(await aRecords('port-form.example.test')).toEqual([]);
});

test('a form POSTed from another site creates nothing', async () => {
  const answer = await clickThrough(`${crossSite}/form/cross-form.example.test`);
  expect(answer).toMatch(/"error": "(Not authenticated|Cross-site request refused)"/);
  expect(await aRecords('cross-form.example.test')).toEqual([]);
});

test("a login form on another site does not replace the victim's session with the attacker's", async () => {
  const before = await sessionCookie();
  for (const origin of [crossSite, sameSite]) {
    const answer = await clickThrough(`${origin}/login`);
    expect(answer).toContain('"error": "Cross-site request refused"');
    expect((await sessionCookie())?.value).toBe(before?.value);
  }
  await page.goto(`${t.url}/api.php`);
  expect(JSON.parse(await postFromPage('action=is_logged'))).toEqual({ is_logged: true, user: 'ops', role: 'editors' });
});
