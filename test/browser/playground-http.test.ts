// @needs build
/**
 * The playground over plain HTTP: the page and its bundle load nothing from another host, a browser's GET /graphql
 * gets the page while API clients still reach Apollo, assets are served with the right types and caching, and a
 * missing bundle is a clear 503. Needs `npm run build` (the bundle).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import Fastify from 'fastify';
import { PLAYGROUND_CSP, prefersHtml, registerPlayground } from '../../gateway/playground';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { startSystem, TEST_ADMIN_PASSWORD, type RunningSystem } from '../support/system';
import { defined } from '../support/defined';
import { freeDnsPort } from '../bench/processes';

const DIST = join(PROJECT_ROOT, 'dist', 'playground');
const EXAMPLES = join(PROJECT_ROOT, 'gateway', 'playground', 'examples');
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/**
 * Ways a page, style sheet or script would LOAD something from another host. A URL that is only a string (license
 * comments, help links opened on click, XML namespaces, JSON Schema ids) loads nothing and is allowed.
 */
const EXTERNAL_LOADS: Array<[string, RegExp]> = [
  [
    '<script src> / <link href> / <img src> to another host',
    /<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?\/\//i,
  ],
  ['CSS url() to another host', /url\(\s*["']?(https?:)?\/\//i],
  ['CSS @import', /@import\b/i],
  ['ES import of a URL', /\b(import|from)\s*\(?\s*["'`](https?:)?\/\//],
  [
    'importScripts / Worker / fetch of an absolute URL',
    /\b(importScripts|Worker|SharedWorker|fetch|EventSource|WebSocket)\s*\(\s*["'`](https?:|wss?:)?\/\//,
  ],
  [
    'a CDN host',
    /\b(esm\.sh|unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|fonts\.googleapis\.com|fonts\.gstatic\.com|embeddable-sandbox\.cdn\.apollographql\.com)\b/i,
  ],
];

function externalLoads(text: string): string[] {
  const found: string[] = [];
  for (const [what, re] of EXTERNAL_LOADS) {
    const m = re.exec(text);
    if (m) found.push(`${what}: …${text.slice(Math.max(0, m.index - 60), m.index + 100)}…`);
  }
  return found;
}

describe('playground over HTTP', () => {
  let sys: RunningSystem;
  let page: string;

  beforeAll(async () => {
    readFileSync(join(DIST, 'manifest.json')); // fails with ENOENT when `npm run build` has not run
    // The embedded DNS server listens: the DNS tool's tab changes records of its demo zone.
    sys = await startSystem({ MARKET_CLOCK: '2026-11-20T18:00:00Z', DNS_PORT: String(await freeDnsPort()) });
  }, 30_000);
  afterAll(() => sys?.close());

  it('GET / is the page, with a same-origin-only Content-Security-Policy', async () => {
    const res = await fetch(`${sys.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(PLAYGROUND_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';"); // no inline script, no eval
    expect(csp).not.toMatch(/https?:|\*/);
    page = await res.text();
    expect(page).toContain('<title>onegraph playground</title>');
    expect(page).toMatch(/<script type="module" src="\/playground\/app-[A-Z0-9]{8}\.js"><\/script>/);
    expect(page).not.toMatch(/https?:\/\//); // every URL in the page is a path on this origin
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
  });

  it('the bundle loads nothing from another host', () => {
    const files = readdirSync(DIST).filter((f) => /\.(js|css|svg)$/.test(f));
    expect(files.filter((f) => f.endsWith('.js')).length).toBeGreaterThanOrEqual(4); // app + 3 Monaco workers
    const found: Record<string, string[]> = {};
    for (const file of files) {
      const loads = externalLoads(readFileSync(join(DIST, file), 'utf8'));
      if (loads.length) found[file] = loads;
    }
    expect(found).toEqual({});
  });

  it('the scanner does catch external loads', () => {
    for (const bad of [
      '<script src="https://cdn.example.com/graphiql.js"></script>',
      '<link rel="stylesheet" href="//cdn.example.com/x.css">',
      '@import url(https://fonts.example.com/css);',
      '@font-face{src:url(https://fonts.example.com/f.woff2)}',
      'import("https://esm.example.com/monaco")',
      'new Worker("https://cdn.example.com/worker.js")',
      'importScripts("//cdn.example.com/w.js")',
      'x="https://unpkg.com/graphiql"',
    ])
      expect(externalLoads(bad)).not.toEqual([]);
    expect(
      externalLoads(
        '/*! MIT https://github.com/graphql/graphiql */ e.setAttribute("xmlns","http://www.w3.org/2000/svg")',
      ),
    ).toEqual([]);
  });

  it('serves every file the page names with its content type, a year of caching and precompression', async () => {
    const assets = [...page.matchAll(/(?:src|href)="(\/playground\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets).toHaveLength(3); // favicon, style sheet, script
    for (const path of assets.map((a) => defined(a, 'an asset path'))) {
      const res = await fetch(`${sys.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const type = res.headers.get('content-type');
      if (path.endsWith('.js')) expect(type).toBe('text/javascript; charset=utf-8');
      if (path.endsWith('.css')) expect(type).toBe('text/css; charset=utf-8');
      if (path.endsWith('.svg')) expect(type).toBe('image/svg+xml');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const js = defined(
      assets.find((a) => a?.endsWith('.js')),
      'the script',
    );
    const plain = Buffer.from(
      await (await fetch(`${sys.url}${js}`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer(),
    );
    // Node's fetch decodes br itself; ask with a raw header and decode by hand to see what went over the wire.
    const { request } = await import('node:http');
    const raw = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      request(`${sys.url}${js}`, { headers: { 'accept-encoding': 'gzip, deflate, br' } }, (res) => {
        const chunks: Buffer[] = [];
        res
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(raw.encoding).toBe('br');
    expect(raw.body.length).toBeLessThan(plain.length / 3);
    expect(brotliDecompressSync(raw.body).equals(plain)).toBe(true);
  });

  it('a font of the style sheet is a file on this origin', async () => {
    const css = await (await fetch(`${sys.url}${page.match(/href="(\/playground\/app-[^"]+\.css)"/)![1]}`)).text();
    expect(css).not.toMatch(/url\(\s*["']?data:font/);
    const font = css.match(/url\((font-[A-Z0-9]{8}\.woff2)\)/)![1];
    const res = await fetch(`${sys.url}/playground/${font}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('font/woff2');
  });

  it('unknown or unsafe asset names are 404s', async () => {
    for (const path of [
      '/playground/nope-ABCDEFGH.js',
      '/playground/..%2Fpackage.json',
      '/playground/manifest.json.br',
      '/playground/.hidden.js',
    ]) {
      const res = await fetch(`${sys.url}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
    }
  });

  it('a browser navigating to /graphql gets the page', async () => {
    const res = await fetch(`${sys.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PLAYGROUND_CSP);
    expect(await res.text()).toBe(page);
  });

  it('API clients of /graphql still reach Apollo', async () => {
    const post = await fetch(`${sys.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BROWSER_ACCEPT },
      body: JSON.stringify({ query: '{ quote(ticker: "AAPL:NASDAQ") { ticker price } }' }),
    });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
    const body = (await post.json()) as { data: { quote: { ticker: string; price: number } } };
    expect(body.data.quote.ticker).toBe('AAPL:NASDAQ');
    expect(typeof body.data.quote.price).toBe('number');

    // A GET carrying a query is an API call even from a browser.
    const get = await fetch(`${sys.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: BROWSER_ACCEPT, 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { __typename: 'Query' } });

    // JSON-accepting and */* clients without a query get Apollo's answer (an error about the missing query), not the page.
    for (const accept of ['application/json', '*/*', 'application/graphql-response+json, text/html;q=0.5']) {
      const res = await fetch(`${sys.url}/graphql`, { headers: { accept, 'apollo-require-preflight': 'true' } });
      expect([accept, res.headers.get('content-type')]).not.toEqual([accept, 'text/html; charset=utf-8']);
      expect(res.status).toBe(400);
    }
  });

  it('every example tab runs without a validation error', async () => {
    const files = readdirSync(EXAMPLES)
      .filter((f) => f.endsWith('.graphql'))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(3);
    const optional = (file: string, suffix: string): Record<string, unknown> | undefined => {
      const name = file.replace(/\.graphql$/, `.${suffix}.json`);
      return readdirSync(EXAMPLES).includes(name)
        ? (JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8')) as Record<string, unknown>)
        : undefined;
    };
    for (const file of files) {
      const query = readFileSync(join(EXAMPLES, file), 'utf8');
      const variables = optional(file, 'variables');
      // A tab of several operations runs each in turn, as its comment says (the DNS API's: log in, then put the
      // token in the headers). The example cannot know this system's admin password: the test's is used.
      const names = [...query.matchAll(/^(?:query|mutation|subscription)\s+(\w+)/gm)].map((m) => m[1]);
      const operations = names.length > 1 ? names : [undefined];
      if ('password' in (variables ?? {})) (variables as Record<string, unknown>).password = TEST_ADMIN_PASSWORD;
      // The DNS tool's tab: the token this system made on its first start.
      if ('token' in (variables ?? {}))
        (variables as Record<string, unknown>).token = readFileSync(
          join(sys.system.config.dataDir, 'dns-tool-token'),
          'utf8',
        ).trim();
      let headers: Record<string, string> = {};
      for (const operationName of operations) {
        const subscription = new RegExp(
          `^\\s*subscription${operationName ? `\\s+${operationName}\\b` : '\\b'}`,
          'm',
        ).test(query);
        // Subscriptions run at /graphql/stream: its first event stands for the result.
        const res = await fetch(`${sys.url}${subscription ? '/graphql/stream' : '/graphql'}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...headers,
            ...(subscription ? { accept: 'text/event-stream' } : {}),
          },
          body: JSON.stringify({ query, variables, operationName }),
        });
        const body = (subscription ? await firstEvent(res) : await res.json()) as {
          data?: Record<string, unknown> | null;
          errors?: Array<{ extensions?: { code?: string } }>;
        };
        const what = `${file} ${operationName ?? ''}`;
        expect([what, res.status]).toEqual([what, 200]);
        expect([what, body.data]).not.toEqual([what, null]);
        // The only error an example may show is the deliberate unknown ticker of the "quotes" example.
        expect([what, (body.errors ?? []).filter((e) => e.extensions?.code !== 'NOT_FOUND')]).toEqual([what, []]);
        const token =
          (body.data?.login as { token?: string } | undefined)?.token ??
          (body.data?.toolLoginToken as { sessionId?: string } | undefined)?.sessionId;
        if (token) {
          const pane = optional(file, 'headers') as Record<string, string>;
          expect(pane.Authorization).toMatch(/^Bearer /);
          headers = { authorization: `Bearer ${token}` };
        }
      }
    }
  });
});

/** The data of the first `next` event of an event stream (the stream is cancelled after it). */
async function firstEvent(res: Response): Promise<unknown> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before its first event: ${text}`);
      text += decoder.decode(value, { stream: true });
      const event = /event: next\ndata: (.*)\n\n/.exec(text);
      if (event) return JSON.parse(defined(event[1], 'the event data'));
    }
  } finally {
    await reader.cancel();
  }
}

describe('playground without a bundle', () => {
  it('answers / with a 503 that says to run npm run build', async () => {
    const app = Fastify();
    registerPlayground(app, { assetsDir: mkdtempSync(join(tmpdir(), 'onegraph-no-playground-')) });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const res = await fetch(`${url}/`, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('run `npm run build`');
      const asset = await fetch(`${url}/playground/app-ABCDEFGH.js`);
      expect(asset.status).toBe(503);
      expect(await asset.text()).toContain('run `npm run build`');
      const graphql = await fetch(`${url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
      expect(graphql.status).toBe(404); // no /graphql route in this bare app: the hook only answers a matched route
    } finally {
      await app.close();
    }
  });
});

describe('prefersHtml', () => {
  it.each([
    [BROWSER_ACCEPT, true],
    ['text/html', true],
    ['text/html;q=0.9, application/json;q=0.5', true],
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/graphql-response+json, application/json;q=0.9', false],
    ['application/json, text/html', false],
    ['text/html;q=0', false],
    ['text/html;q=0.5, application/json', false],
  ])('%s → %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
