// @needs chromium build
/// <reference lib="dom" />
// (page.$eval callbacks run in the browser)
/**
 * The playground in a real browser: Debian's headless Chromium driven by playwright-core (never a downloaded
 * browser). Needs `npm run build` (the bundle) and `apt-get install -y chromium`; a missing one FAILS, never skips.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { startSystem, type RunningSystem } from '../support/system';

/** The little of the DOM the page functions below use (the project compiles without lib "dom"). */
declare const document: {
  querySelector(selector: string): { textContent: string | null; childElementCount: number } | null;
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(PROJECT_ROOT, 'test-artifacts');
const SCREENSHOT = join(ARTIFACTS, 'playground.png');
const QUERY = '{ quote(ticker: "AAPL:NASDAQ") { ticker name price } }';

/** Monaco draws text with non-breaking spaces; compare as plain text. */
const editorText = (page: Page, selector: string): Promise<string> =>
  page.$eval(selector, (el) => (el.textContent ?? '').replace(/\u00a0/g, ' '));

// A cold Chromium on a busy CI machine (two jest workers on two cores) took over 30 s for the first page: each step
// below has its own deadline, so the test's own is only the backstop.
jest.setTimeout(120_000);

/** Every page's browser context: the screenshot's size. */
const CONTEXT_OPTIONS = { viewport: { width: 1440, height: 900 } };

describe('playground in headless Chromium', () => {
  let sys: RunningSystem | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const problems: string[] = [];
  const offOrigin: string[] = [];
  /** Requests the page has sent and not yet seen finish, by their playwright object (a URL can repeat). */
  const inFlight = new Map<object, string>();
  let lastRequestChange = Date.now();

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is missing at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (the playground browser test never skips)`,
      );
    }
    if (!existsSync(join(PROJECT_ROOT, 'dist', 'playground', 'manifest.json'))) {
      throw new Error('the playground bundle is missing (dist/playground/manifest.json): run `npm run build` first');
    }
    sys = await startSystem({ MARKET_CLOCK: '2026-11-20T18:00:00Z', LIVE_INTERVAL_MS: '400' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    context = await browser.newContext(CONTEXT_OPTIONS);
    page = await context.newPage();
    const origin = new URL(sys.url).origin;
    page.on('request', (req) => {
      if (!req.url().startsWith(`${origin}/`)) offOrigin.push(req.url());
      inFlight.set(req, `${req.method()} ${req.url()}`);
      lastRequestChange = Date.now();
    });
    const settled = (req: object): void => {
      inFlight.delete(req);
      lastRequestChange = Date.now();
    };
    page.on('requestfinished', settled);
    page.on('requestfailed', settled);
    // Chromium fetches a dedicated worker's script for the worker's own target: the page sees the request start but
    // never finish (the same happened to puppeteer's network idle). A worker running that script is its finish.
    page.on('worker', (worker) => {
      for (const [req, what] of inFlight) if (what === `GET ${worker.url()}`) settled(req);
    });
    page.on('requestfailed', (req) => {
      // Stopping a subscription aborts its event stream's fetch: that is how a browser ends a stream, not a fault.
      if (req.url() === `${origin}/graphql/stream` && req.failure()?.errorText === 'net::ERR_ABORTED') return;
      problems.push(`request failed: ${req.method()} ${req.url()} (${req.failure()?.errorText})`);
    });
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.request().method()} ${res.url()}`);
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  }, 120_000);

  /**
   * Waits until the page has had no request in flight for 500 ms (what playwright's 'networkidle' means), with a
   * deadline that names the requests still pending. 'networkidle' itself waited forever, now and then, for the script
   * of Monaco's JSON worker (see the 'worker' handler above).
   */
  async function requestsSettled(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (inFlight.size > 0 || Date.now() - lastRequestChange < 500) {
      if (Date.now() > deadline) {
        throw new Error(`requests still in flight after ${timeoutMs} ms: ${[...inFlight.values()].join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  afterAll(async () => {
    await context?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await sys?.close();
  });

  it('loads from the gateway alone, with no failed request and no console error', async () => {
    const res = await page.goto(`${sys!.url}/`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('onegraph playground');
    // The first example tab is open in the query editor, its variables in the variables editor.
    await page.waitForFunction(
      () => document.querySelector('.graphiql-query-editor .view-lines')?.textContent?.includes('quote('),
      null,
      { timeout: 15_000 },
    );
    await page.waitForFunction(
      () => document.querySelector('.graphiql-editor-tool .view-lines')?.textContent?.includes('AAPL:NASDAQ'),
      null,
      { timeout: 10_000 },
    );
    await requestsSettled(); // schema introspection, Monaco's workers, fonts
    const tabs = await page.$$eval('.graphiql-tab-button', (els) => els.map((el) => el.textContent?.trim()));
    expect(tabs).toEqual([
      'Quote',
      'Quotes',
      'MarketLists',
      'LivePrices',
      'DnsLogin',
      'ToolLoginToken',
      'DeferredQuote',
    ]);
    // Variables and request headers editors are both there.
    expect(await page.locator('.graphiql-editor-tools button', { hasText: 'Variables' }).count()).toBe(1);
    expect(await page.locator('.graphiql-editor-tools button', { hasText: 'Headers' }).count()).toBe(1);
    expect(problems).toEqual([]);
    expect(offOrigin).toEqual([]);
  });

  it('runs a query typed into the editor and shows the data', async () => {
    // A new (empty) tab, so the examples stay as they are; then the query typed in.
    await page.click('.graphiql-tab-add');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-tab-active #graphiql-session-tab-7') !== null,
      null,
      { timeout: 5_000 },
    );
    await page.click('.graphiql-query-editor .monaco-editor .view-lines');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(QUERY);
    expect((await editorText(page, '.graphiql-query-editor .view-lines')).trim()).toBe(QUERY);

    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      () =>
        /"ticker":\s*"AAPL:NASDAQ"[\s\S]*"price":\s*\d/.test(
          (document.querySelector('.graphiql-response .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' '),
        ),
      null,
      { timeout: 10_000 },
    );
    const response = await editorText(page, '.graphiql-response .view-lines');
    expect(response).toMatch(/"name":\s*"Apple Inc\.?"/);
    expect(response).not.toMatch(/"errors"/);

    // Prettify (prettier, bundled too) spreads the one-liner over lines.
    await page.click('button[aria-label^="Prettify query"]');
    await page.waitForFunction(
      () => (document.querySelector('.graphiql-query-editor .view-lines')?.childElementCount ?? 0) >= 7,
      null,
      { timeout: 5_000 },
    );
    expect(problems).toEqual([]);
  });

  /** The response pane's text. */
  const response = () =>
    page.evaluate(() =>
      (document.querySelector('.graphiql-response .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' '),
    );

  /**
   * Opens the LivePrices tab (with `headers` typed into its headers editor), runs it, watches three events at least,
   * then stops it with the same button.
   */
  async function runLivePrices(operations: () => number, headers?: string): Promise<void> {
    await page.click('.graphiql-tab-button:text-is("LivePrices")');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-query-editor .view-lines')?.textContent?.includes('priceTicks('),
      null,
      { timeout: 5_000 },
    );
    if (headers !== undefined) {
      await page.click('.graphiql-editor-tools button:text-is("Headers")');
      await page.click('.graphiql-editor-tool .monaco-editor .view-lines >> visible=true');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.insertText(headers);
    }
    await page.click('.graphiql-execute-button');
    // Each event replaces the shown one: the poll's sequence number must rise while we watch (three events at least).
    const sequences = new Set<number>();
    const until = Date.now() + 10_000;
    while (sequences.size < 3 && Date.now() < until) {
      const text = await response();
      const sequence = /"sequence":\s*(\d+)/.exec(text)?.[1];
      if (sequence !== undefined && text.includes('"AAPL:NASDAQ"') && text.includes('"BTC-USD"'))
        sequences.add(Number(sequence));
      await page.waitForTimeout(50);
    }
    expect(sequences.size).toBeGreaterThanOrEqual(3);
    expect(await response()).not.toMatch(/"errors"/);
    expect(operations()).toBe(1);
    // The same button stops it; the gateway then holds no subscription.
    await page.click('.graphiql-execute-button');
    const stopBy = Date.now() + 5_000;
    while (operations() > 0 && Date.now() < stopBy) await page.waitForTimeout(50);
    expect(operations()).toBe(0);
  }

  it('runs the live-prices subscription over graphql-ws (by default) and shows events as they arrive, until stopped', async () => {
    const sockets: Array<{ url: string; sent: string[]; received: string[] }> = [];
    page.on('websocket', (ws) => {
      const seen = { url: ws.url(), sent: [] as string[], received: [] as string[] };
      sockets.push(seen);
      ws.on('framesent', (frame) => seen.sent.push(String(frame.payload)));
      ws.on('framereceived', (frame) => seen.received.push(String(frame.payload)));
    });
    expect(await page.locator('select[aria-label="Subscription transport"]').inputValue()).toBe('ws');
    const streams: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/graphql/stream')) streams.push(req.method());
    });
    await runLivePrices(
      () => sys?.system.live.wsEndpoint?.stats().operations ?? 0,
      '{ "Authorization": "Bearer playground-test" }',
    );
    const origin = new URL(sys!.url);
    expect(sockets.map((s) => s.url)).toEqual([`ws://${origin.host}/graphql/ws`]);
    // connection_init carries the headers editor's headers, then the subscription itself.
    expect(sockets[0]!.sent.slice(0, 2).map((m) => JSON.parse(m) as Record<string, unknown>)).toEqual([
      { type: 'connection_init', payload: { Authorization: 'Bearer playground-test' } },
      expect.objectContaining({
        type: 'subscribe',
        payload: expect.objectContaining({ query: expect.stringContaining('priceTicks(') }),
      }),
    ]);
    const messages = sockets[0]!.received.map((m) => JSON.parse(m) as { type: string; payload?: unknown });
    expect(messages[0]).toEqual({ type: 'connection_ack' });
    expect(messages.filter((m) => m.type === 'next').length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(messages.find((m) => m.type === 'next'))).toContain('"BTC-USD"');
    expect(streams).toEqual([]); // no graphql-sse stream was opened
    expect(problems).toEqual([]);
    expect(offOrigin).toEqual([]);
  });

  it('runs the @defer example: GraphiQL reads the multipart answer and shows the parts merged', async () => {
    await page.click('.graphiql-tab-button:text-is("DeferredQuote")');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-query-editor .view-lines')?.textContent?.includes('@defer'),
      null,
      { timeout: 5_000 },
    );
    const before = problems.length;
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      () => {
        const text = (document.querySelector('.graphiql-response .view-lines')?.textContent ?? '').replace(
          /\u00a0/g,
          ' ',
        );
        return /"ticker":\s*"AAPL:NASDAQ"/.test(text) && /"ceo":/.test(text);
      },
      null,
      { timeout: 10_000 },
    );
    const response = await editorText(page, '.graphiql-response .view-lines');
    expect(response).not.toMatch(/"incremental"|"errors"/);
    // meros (GraphiQL's multipart reader) cancels the body once it has read the closing delimiter, which can be
    // before the last bytes of the chunked encoding arrive: the browser reports that fetch aborted, not a fault.
    const aborted = `request failed: POST ${sys?.url}/graphql (net::ERR_ABORTED)`;
    problems.splice(before, problems.length - before, ...problems.slice(before).filter((p) => p !== aborted));
    expect(problems).toEqual([]);
  });

  it('has the DNS API tab: login then zones, its variables, the headers pane for the token', async () => {
    await page.click('.graphiql-tab-button:text-is("DnsLogin")');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-query-editor .view-lines')?.textContent?.includes('login(username'),
      null,
      { timeout: 5_000 },
    );
    // Monaco draws only the lines in view: the first operations of the tab.
    expect(await editorText(page, '.graphiql-query-editor .view-lines')).toMatch(
      /mutation DnsLogin[\s\S]*query DnsZones/,
    );
    // The tools pane shows the tab's variables, then (its Headers button) the header to put the token in.
    const tools = () =>
      page.$$eval('.graphiql-editor-tool .view-lines', (els) =>
        els.map((el) => (el.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'),
      );
    const showing = async (text: string): Promise<string> => {
      const until = Date.now() + 5_000;
      let shown = await tools();
      while (!shown.includes(text) && Date.now() < until) {
        await page.waitForTimeout(50);
        shown = await tools();
      }
      return shown;
    };
    await page.click('.graphiql-editor-tools button:text-is("Variables")');
    expect(await showing('"zone": "my-zone.test"')).toContain('"zone": "my-zone.test"');
    await page.click('.graphiql-editor-tools button:text-is("Headers")');
    expect(await showing('"Authorization": "Bearer')).toContain('"Authorization": "Bearer');
    expect(problems).toEqual([]);
  });

  it('has the docs explorer, which lists the Query type', async () => {
    await page.click('button[aria-label="Show Documentation Explorer"]');
    await page.waitForSelector('.graphiql-doc-explorer', { timeout: 5_000 });
    await page.waitForFunction(
      () => document.querySelector('.graphiql-doc-explorer')?.textContent?.includes('Query'),
      null,
      { timeout: 5_000 },
    );
    await page.click('.graphiql-doc-explorer a:text-is("Query")');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-doc-explorer')?.textContent?.includes('quotes'),
      null,
      { timeout: 5_000 },
    );

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(problems).toEqual([]);
    expect(offOrigin).toEqual([]);
  });

  it('runs it over graphql-sse with ?transport=sse (the control shows it), opening no WebSocket', async () => {
    // A page of its own, in a context of its own: the first page keeps its tabs as they are, and this one starts as a
    // first visit would (GraphiQL keeps its tabs and their run state in localStorage, shared within a context).
    const main = page;
    const fresh = await browser!.newContext(CONTEXT_OPTIONS);
    page = await fresh.newPage();
    const own: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') own.push(`console error: ${msg.text()}`);
    });
    page.on('pageerror', (err) => own.push(`page error: ${err.message}`));
    let sockets = 0;
    page.on('websocket', () => sockets++);
    const streams: string[] = [];
    page.on('request', (req) => {
      if (req.url().endsWith('/graphql/stream')) streams.push(req.method());
    });
    try {
      await page.goto(`${sys!.url}/?transport=sse`, { waitUntil: 'load' });
      await page.waitForSelector('select[aria-label="Subscription transport"]', { timeout: 15_000 });
      expect(await page.locator('select[aria-label="Subscription transport"]').inputValue()).toBe('sse');
      await runLivePrices(() => sys?.system.live.endpoint?.stats().operations ?? 0);
      expect(streams.length).toBeGreaterThanOrEqual(1);
      expect(sockets).toBe(0);
      // Back to graphql-ws with the control: the address loses ?transport.
      await page.selectOption('select[aria-label="Subscription transport"]', 'ws');
      expect(new URL(page.url()).search).toBe('');
      expect(own).toEqual([]);
    } finally {
      await fresh.close();
      page = main;
    }
  });
});
