import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The docs beside the code (docs/development.md, "Writing docs"): the README stays a short entry point, every relative
 * link in the Markdown resolves, and no source comment cites a document outside the repository.
 */
const ROOT = resolve(__dirname, '..', '..');
const SOURCE_FOLDERS = ['gateway', 'subgraphs', 'dns', 'platform', 'scripts', 'test'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'build', 'coverage', 'test-artifacts']);

/** Every file under `dir`, build output and dependencies left out. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED_FOLDERS.has(name) ? [] : filesUnder(path);
    return [path];
  });
}

/** The Markdown the docs are made of: the README, docs/ and each module's README. */
function markdownFiles(): string[] {
  const moduleReadmes = SOURCE_FOLDERS.flatMap((folder) => filesUnder(join(ROOT, folder))).filter((path) =>
    path.endsWith('/README.md'),
  );
  return [
    join(ROOT, 'README.md'),
    ...filesUnder(join(ROOT, 'docs')).filter((p) => p.endsWith('.md')),
    ...moduleReadmes,
  ];
}

/** Markdown without its fenced code blocks and inline code, where `[x](y)` is not a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(readFileSync(path, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  file: string;
  target: string;
}

function relativeLinks(): Link[] {
  return markdownFiles().flatMap((file) =>
    [...prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map((m) => m[1] ?? '')
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ file: relative(ROOT, file), target })),
  );
}

test('README.md stays a short entry point (at most 15 000 bytes)', () => {
  expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(15_000);
});

test('the docs have their guides', () => {
  for (const guide of [
    'design',
    'market',
    'live',
    'dns-server',
    'dns-api',
    'dns-tool',
    'dnssec',
    'gateway',
    'operations',
  ])
    expect(existsSync(join(ROOT, 'docs', `${guide}.md`))).toBe(true);
});

test('every relative link in README.md and docs/ points at an existing file and heading', () => {
  const links = relativeLinks();
  expect(links.length).toBeGreaterThan(20);
  const broken = links.filter(({ file, target }) => {
    const [path = '', anchor] = target.split('#');
    const resolved = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURI(path));
    if (!existsSync(resolved)) return true;
    return anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor);
  });
  expect(broken).toEqual([]);
});

/** Citations of documents that are not in the repository. */
const OUTSIDE_DOCUMENT = /DESIGN\.md|reference\/[a-z-]+\.md|seeds\/|\/work\/shared/;
const ISSUE = /\bissue #?\d+/i;

test('no source file cites a document outside the repository (DESIGN.md, reference/, seeds/, "issue N")', () => {
  const self = __filename;
  const citations = SOURCE_FOLDERS.flatMap((folder) => filesUnder(join(ROOT, folder)))
    .filter((path) => path !== self)
    .flatMap((path) => {
      const bytes = readFileSync(path);
      if (bytes.includes(0)) return []; // binary
      return bytes
        .toString('utf8')
        .split('\n')
        .flatMap((line, i) =>
          OUTSIDE_DOCUMENT.test(line) || ISSUE.test(line) ? [`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`] : [],
        );
    });
  expect(citations).toEqual([]);
});
