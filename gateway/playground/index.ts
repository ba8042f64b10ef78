import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROJECT_ROOT } from '../host/paths';

/**
 * The offline GraphQL playground: GraphiQL bundled from npm at build time (scripts/build-playground.mjs writes
 * dist/playground/) and served from the gateway itself, with no external URL.
 *
 * - `GET /` and a browser's `GET /graphql` (Accept prefers text/html, no `query` parameter): the page;
 * - `GET /playground/<file>`: the bundle's files (hashed names, cached for a year, precompressed br/gzip);
 * - every other `/graphql` request (POST, JSON Accept, `?query=`) goes on to Apollo untouched.
 */
export interface PlaygroundOptions {
  /** Where the bundle is; default `dist/playground` under the project root. */
  assetsDir?: string;
  /** The GraphQL endpoint the page queries and that answers browsers with the page; default `/graphql`. */
  graphqlPath?: string;
}

export interface PlaygroundManifest {
  js: string;
  css: string;
  favicon: string;
  workers: Record<string, string>;
}

export const ASSET_PREFIX = '/playground/';

/**
 * The page's Content-Security-Policy: everything from the gateway's own origin, nothing else. Two allowances, both
 * needed by GraphiQL's editor (Monaco) and neither able to run script or reach another host:
 * - `style-src 'unsafe-inline'`: Monaco injects <style> elements for themes and decorations, React sets style
 *   attributes for pane sizes (blocked, the editors render broken);
 * - `img-src data:`: Monaco draws error squiggles with `data:image/svg+xml` backgrounds it generates at run time
 *   in the theme's colours (so they cannot be extracted at build time as the fonts are).
 * Scripts, workers, fonts and fetches: 'self' only, never inline, never eval.
 */
export const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const HASHED_NAME = /-[A-Z0-9]{8}\./;

/** True when an Accept header ranks text/html above JSON (a browser navigating), false for API clients and curl's `*∕*`. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html') html = Math.max(html, q);
    else if (type === 'application/json' || type === 'application/graphql-response+json') json = Math.max(json, q);
  }
  return html > 0 && html > json;
}

/** A GET that carries a GraphQL request in its query string is an API call whatever its Accept says. */
function isGraphQLGet(req: FastifyRequest): boolean {
  const query = (req.query ?? {}) as Record<string, unknown>;
  return query.query !== undefined || query.extensions !== undefined;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderPage(manifest: PlaygroundManifest, graphqlPath: string): string {
  const asset = (file: string) => escapeAttr(ASSET_PREFIX + file);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>onegraph playground</title>
<link rel="icon" type="image/svg+xml" href="${asset(manifest.favicon)}">
<link rel="stylesheet" href="${asset(manifest.css)}">
<script type="module" src="${asset(manifest.js)}"></script>
</head>
<body>
<div id="playground" data-graphql-path="${escapeAttr(graphqlPath)}"></div>
<noscript>The onegraph playground needs JavaScript. The API itself is <code>POST ${escapeAttr(graphqlPath)}</code>.</noscript>
</body>
</html>
`;
}

interface CachedAsset {
  body: Buffer;
  encoding?: 'br' | 'gzip';
}

export function registerPlayground(app: FastifyInstance, options: PlaygroundOptions = {}): void {
  const assetsDir = options.assetsDir ?? join(PROJECT_ROOT, 'dist', 'playground');
  const graphqlPath = options.graphqlPath ?? '/graphql';
  const manifestFile = join(assetsDir, 'manifest.json');
  const notBuilt = `The playground is not built (no ${manifestFile}): run \`npm run build\`, then reload.`;
  if (!existsSync(manifestFile)) app.log.warn({ assetsDir }, 'playground bundle missing: run `npm run build`');

  /** Read on every page request (a small file): a rebuild while the gateway runs is picked up at once. */
  async function loadManifest(): Promise<PlaygroundManifest | undefined> {
    try {
      const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as PlaygroundManifest;
      return existsSync(join(assetsDir, manifest.js)) && existsSync(join(assetsDir, manifest.css))
        ? manifest
        : undefined;
    } catch {
      return undefined;
    }
  }

  async function sendPage(reply: FastifyReply): Promise<FastifyReply> {
    const manifest = await loadManifest();
    if (!manifest) {
      return reply
        .status(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(`${notBuilt}\n`);
    }
    return reply
      .header('content-security-policy', PLAYGROUND_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-cache')
      .header('vary', 'Accept')
      .type('text/html; charset=utf-8')
      .send(renderPage(manifest, graphqlPath));
  }

  app.get('/', (_req, reply) => sendPage(reply));

  // A browser navigating to the GraphQL endpoint gets the page; API clients (POST, JSON Accept, ?query=) reach
  // Apollo's route unchanged. A hook rather than a second route: the /graphql route stays Apollo's alone.
  app.addHook('onRequest', async (req, reply) => {
    if (req.method !== 'GET' || req.routeOptions.url !== graphqlPath) return;
    if (isGraphQLGet(req) || !prefersHtml(req.headers.accept)) return;
    return sendPage(reply);
  });

  // Files are immutable under their hashed names, so they are cached in memory once read.
  const cache = new Map<string, CachedAsset | null>();
  async function loadAsset(file: string, encoding: 'br' | 'gzip' | undefined): Promise<CachedAsset | null> {
    const key = `${file}\0${encoding ?? ''}`;
    const hashed = HASHED_NAME.test(file);
    if (hashed && cache.has(key)) return cache.get(key)!;
    const suffix = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '';
    const asset = await readFile(join(assetsDir, file + suffix)).then(
      (body): CachedAsset => ({ body, encoding }),
      () => null,
    );
    if (hashed && asset) cache.set(key, asset);
    return asset;
  }

  app.get(`${ASSET_PREFIX}*`, async (req, reply) => {
    const file = (req.params as Record<string, string>)['*'] ?? '';
    const type = CONTENT_TYPES[extname(file)];
    if (!ASSET_NAME.test(file) || !type) return reply.callNotFound();
    const accepted = String(req.headers['accept-encoding'] ?? '');
    const wanted: Array<'br' | 'gzip' | undefined> = [];
    if (/\bbr\b/.test(accepted)) wanted.push('br');
    if (/\bgzip\b/.test(accepted)) wanted.push('gzip');
    wanted.push(undefined);
    let asset: CachedAsset | null = null;
    for (const encoding of wanted) if ((asset = await loadAsset(file, encoding))) break;
    if (!asset) {
      if (!existsSync(manifestFile)) return reply.status(503).type('text/plain; charset=utf-8').send(`${notBuilt}\n`);
      return reply.callNotFound();
    }
    if (asset.encoding) reply.header('content-encoding', asset.encoding);
    return reply
      .header('vary', 'Accept-Encoding')
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', HASHED_NAME.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(type)
      .send(asset.body);
  });
}
