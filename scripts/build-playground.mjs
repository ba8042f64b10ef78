#!/usr/bin/env node
// Bundles the GraphQL playground (GraphiQL 5 + React 19 + Monaco, all from node_modules) into dist/playground/
// with esbuild: no CDN, no external URL at run time. Run by `npm run build`.
//
// Output (every name but manifest.json carries a content hash, so the server can cache them for a year):
//   app-HASH.js, app-HASH.css          the page's script (ES module) and style sheet
//   editor.worker-HASH.js, json.worker-HASH.js, graphql.worker-HASH.js   Monaco's web workers
//   font-HASH.woff2|woff|ttf           Roboto, Fira Code and Monaco's codicon, taken out of GraphiQL's style sheet
//   favicon-HASH.svg                   the tab icon
//   *.LEGAL.txt                        license comments of the bundled packages, moved out of the bundles
//   *.gz, *.br                         precompressed copies the server sends when the browser accepts them
//   manifest.json                      which file is which, read by gateway/playground/index.ts
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const srcDir = join(root, 'gateway', 'playground');
const outDir = join(root, 'dist', 'playground');
const require = (await import('node:module')).createRequire(import.meta.url);

/** The example tabs: gateway/playground/examples/NN-name.graphql, with optional NN-name.variables.json / .headers.json. */
export function loadExamples(dir = join(srcDir, 'examples')) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((file) => {
      const stem = join(dir, file.slice(0, -'.graphql'.length));
      const optional = (suffix) => {
        const path = `${stem}.${suffix}.json`;
        if (!existsSync(path)) return undefined;
        const text = readFileSync(path, 'utf8');
        JSON.parse(text); // a broken example file fails the build, not the browser
        return text.trim();
      };
      return {
        query: readFileSync(join(dir, file), 'utf8'),
        variables: optional('variables'),
        headers: optional('headers'),
      };
    });
}

const shared = {
  bundle: true,
  minify: true,
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  legalComments: 'external',
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
  metafile: true,
  write: true,
  outdir: outDir,
};

function outputsOf(result) {
  return Object.entries(result.metafile.outputs).map(([path, meta]) => ({
    file: relative(outDir, join(root, path)),
    meta,
  }));
}

function precompress(file) {
  const path = join(outDir, file);
  const data = readFileSync(path);
  writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
  // Quality 9: within 10 % of the maximum (11) at a twentieth of the time on the 5 MB app bundle.
  writeFileSync(
    `${path}.br`,
    brotliCompressSync(data, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
  );
}

const hash8 = (data) => createHash('sha256').update(data).digest('hex').slice(0, 8).toUpperCase();
const FONT_EXT = {
  'font/ttf': 'ttf',
  'font/woff': 'woff',
  'font/woff2': 'woff2',
  'application/font-woff': 'woff',
  'application/x-font-ttf': 'ttf',
};

/**
 * GraphiQL's style sheet inlines its fonts (Roboto, Fira Code, Monaco's codicon) as data: URLs. Move each into a
 * hashed file next to the style sheet: the sheet shrinks from ~800 KiB to ~200 KiB, the browser fetches only the
 * unicode ranges a page uses, and the page's CSP can say `font-src 'self'` (no data:).
 * Returns the style sheet's new (re-hashed) name.
 */
function extractFonts(cssFile) {
  const css = readFileSync(join(outDir, cssFile), 'utf8');
  let fonts = 0;
  const out = css.replace(
    /url\(\s*(["']?)data:([a-z0-9/+.-]+);base64,([A-Za-z0-9+/=]+)\1\s*\)/gi,
    (all, _q, mime, b64) => {
      const ext = FONT_EXT[mime.toLowerCase()];
      if (!ext) return all;
      const data = Buffer.from(b64, 'base64');
      const name = `font-${hash8(data)}.${ext}`;
      writeFileSync(join(outDir, name), data);
      fonts += 1;
      return `url(${name})`;
    },
  );
  if (/url\(\s*["']?data:font/i.test(out))
    throw new Error('build-playground: a font is still inlined after extraction');
  const renamed = cssFile.replace(/-[A-Z0-9]+\.css$/, `-${hash8(out)}.css`);
  rmSync(join(outDir, cssFile));
  writeFileSync(join(outDir, renamed), out);
  if (existsSync(join(outDir, `${cssFile}.LEGAL.txt`))) {
    writeFileSync(join(outDir, `${renamed}.LEGAL.txt`), readFileSync(join(outDir, `${cssFile}.LEGAL.txt`)));
    rmSync(join(outDir, `${cssFile}.LEGAL.txt`));
  }
  return { css: renamed, fonts };
}

export async function buildPlayground() {
  const started = Date.now();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  // 1. Monaco's workers, each a self-contained classic script.
  const workerEntries = {
    editor: require.resolve('monaco-editor/esm/vs/editor/editor.worker.js'),
    json: require.resolve('monaco-editor/esm/vs/language/json/json.worker.js'),
    graphql: require.resolve('monaco-graphql/esm/graphql.worker.js'),
  };
  const workerResult = await build({
    ...shared,
    entryPoints: Object.entries(workerEntries).map(([name, path]) => ({ in: path, out: `${name}.worker` })),
    entryNames: '[name]-[hash]',
    format: 'iife',
  });
  const workers = {};
  for (const { file, meta } of outputsOf(workerResult)) {
    if (!meta.entryPoint || !file.endsWith('.js')) continue;
    const name = basename(file).split('.worker-')[0];
    workers[name] = file;
  }
  for (const name of Object.keys(workerEntries)) {
    if (!workers[name]) throw new Error(`build-playground: no output for the ${name} worker`);
  }

  // 2. The page: React + GraphiQL + Monaco, one ES module and one style sheet.
  const tabs = loadExamples();
  if (tabs.length === 0) throw new Error('build-playground: no example in gateway/playground/examples/');
  const appResult = await build({
    ...shared,
    entryPoints: [{ in: join(srcDir, 'app.jsx'), out: 'app' }],
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    format: 'esm',
    splitting: false,
    jsx: 'automatic',
    loader: { '.ttf': 'dataurl', '.woff': 'dataurl', '.woff2': 'dataurl', '.svg': 'file' },
    define: {
      ...shared.define,
      __PLAYGROUND_WORKERS__: JSON.stringify(workers),
      __PLAYGROUND_TABS__: JSON.stringify(tabs),
    },
  });
  const app = {};
  for (const { file, meta } of outputsOf(appResult)) {
    if (meta.entryPoint && file.endsWith('.js')) app.js = file;
    if (file.endsWith('.css') && !file.endsWith('.LEGAL.txt')) app.css = file;
  }
  if (!app.js || !app.css) throw new Error('build-playground: the app bundle has no .js or no .css output');
  const { css, fonts } = extractFonts(app.css);
  app.css = css;

  // 3. Favicon (so the browser's automatic /favicon.ico request never 404s: the page links this one).
  const icon = readFileSync(join(srcDir, 'favicon.svg'));
  const favicon = `favicon-${hash8(icon)}.svg`;
  writeFileSync(join(outDir, favicon), icon);

  // 4. Precompressed copies and the manifest.
  const files = readdirSync(outDir).filter((f) => statSync(join(outDir, f)).isFile());
  for (const f of files) if (/\.(js|css|svg|ttf)$/.test(f)) precompress(f);
  const manifest = {
    builtAt: new Date().toISOString(),
    js: app.js,
    css: app.css,
    favicon,
    workers,
    fonts,
    tabs: tabs.length,
  };
  writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const sizes = files.map((f) => ({ f, bytes: statSync(join(outDir, f)).size }));
  const total = sizes.reduce((n, s) => n + s.bytes, 0);
  const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
  const br = (f) => statSync(join(outDir, `${f}.br`)).size;
  console.log(`playground: dist/playground/ in ${Date.now() - started} ms, ${kb(total)} (${sizes.length} files)`);
  for (const { f, bytes } of sizes.filter((s) => /\.(js|css)$/.test(s.f)))
    console.log(`  ${f.padEnd(36)} ${kb(bytes).padStart(9)}  brotli ${kb(br(f))}`);
  return manifest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildPlayground().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
