// @needs build
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../gateway/host/config/load';
import { ENV_NAMES } from '../../gateway/host/config/schema';
import { PROJECT_ROOT } from '../../gateway/host/paths';
import { freePort } from '../bench/processes';
import { gatewayStarted, launchGateway, stopGateway } from '../support/gateway-process';

/**
 * deploy/Dockerfile (docs/operations.md, "Running in a container"), checked without Docker: this machine has the
 * client but no daemon and no registry to pull node:20-bookworm-slim from, so the image is not built here. What the
 * file says is checked against the repository and the built program instead, and each check is shown to catch a
 * broken copy.
 */
const DOCKERFILE = join(PROJECT_ROOT, 'deploy', 'Dockerfile');
const DOCKERIGNORE = join(PROJECT_ROOT, '.dockerignore');
const NODE_MAJOR = readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim();
const BASE = `node:${NODE_MAJOR}-bookworm-slim`;

interface Instruction {
  readonly op: string;
  readonly args: string;
  readonly stage: number;
}

/** The instructions, continuation lines joined and comments left out, each with the index of its stage. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  const logical = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  for (const line of logical.split('\n')) {
    const match = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const [, op = '', args = ''] = match;
    if (op === 'FROM') stage++;
    out.push({ op, args: args.replace(/\s+/g, ' ').trim(), stage });
  }
  return out;
}

/** Whether `path` (relative to the context) is left out of the build context by .dockerignore's `patterns`. */
function ignored(path: string, patterns: string[]): boolean {
  const parts = path.split('/');
  return patterns.some((pattern) => {
    const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    return parts.some((_, i) => re.test(parts.slice(0, i + 1).join('/')));
  });
}

/** Exec form (a JSON array) of CMD or HEALTHCHECK … CMD; undefined for the shell form. */
function execForm(args: string): string[] | undefined {
  const json = args.slice(args.indexOf('['));
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** ENV's `NAME=value` pairs. */
const envPairs = (args: string): Array<[string, string]> =>
  [...args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']);

/** Every problem of `text` as the Dockerfile of this repository (none: it is right). */
function dockerfileProblems(text: string, dockerignore: string): string[] {
  const problems: string[] = [];
  const all = instructions(text);
  const patterns = dockerignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const froms = all.filter((i) => i.op === 'FROM');
  if (froms.length !== 2) problems.push(`two stages expected (build, runtime), found ${froms.length}`);
  if (froms[0]?.args !== `${BASE} AS build`) problems.push(`the first stage must be "FROM ${BASE} AS build"`);
  if (froms[1]?.args !== `${BASE} AS runtime`) problems.push(`the last stage must be "FROM ${BASE} AS runtime"`);
  const build = all.filter((i) => i.stage === 0);
  const runtime = all.filter((i) => i.stage === 1);
  const buildRuns = build.filter((i) => i.op === 'RUN').map((i) => i.args);
  for (const step of [
    /apt-get install .*\bg\+\+ make python3\b/,
    /npm ci\b/,
    /npm run build\b/,
    /npm prune --omit=dev/,
  ])
    if (!buildRuns.some((run) => step.test(run))) problems.push(`the build stage does not run ${step.source}`);

  // the build stage's sources: in the repository, in the build context, and everything the build compiles
  const copied = new Set<string>();
  for (const copy of build.filter((i) => i.op === 'COPY')) {
    const sources = copy.args.split(' ').slice(0, -1);
    for (const source of sources) {
      copied.add(source);
      if (!existsSync(join(PROJECT_ROOT, source))) problems.push(`COPY ${source}: no such file in the repository`);
      else if (ignored(source, patterns)) problems.push(`COPY ${source}: .dockerignore leaves it out of the context`);
    }
  }
  const compiled = (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'tsconfig.build.json'), 'utf8').replace(/\/\/.*$/gm, '')) as {
      include: string[];
    }
  ).include;
  for (const needed of [...compiled, 'schema', 'package.json', 'package-lock.json', 'tsconfig.json'])
    if (!copied.has(needed)) problems.push(`the build stage does not copy ${needed}`);

  // the runtime stage: the built program from the build stage, everything it reads at run time
  const fromBuild = runtime.filter((i) => i.op === 'COPY');
  const runtimeCopies = new Set<string>();
  for (const copy of fromBuild) {
    const match = /^--from=build \/src\/(\S+) (\S+)$/.exec(copy.args);
    if (!match) {
      problems.push(`runtime COPY ${copy.args}: only what the build stage made is copied`);
      continue;
    }
    const source = match[1] ?? '';
    runtimeCopies.add(source.split('/')[0] ?? '');
    if (!existsSync(join(PROJECT_ROOT, source))) problems.push(`runtime COPY ${source}: not in a built tree`);
  }
  for (const needed of ['package.json', 'node_modules', 'dist', 'schema', 'dns'])
    if (!runtimeCopies.has(needed)) problems.push(`the runtime stage does not copy ${needed}`);

  const workdir = runtime.filter((i) => i.op === 'WORKDIR').pop()?.args;
  if (workdir !== '/opt/onegraph') problems.push('the runtime WORKDIR must be /opt/onegraph');
  const cmdIndex = runtime.findIndex((i) => i.op === 'CMD');
  const cmd = execForm(runtime[cmdIndex]?.args ?? '');
  if (!cmd || cmd[0] !== 'node' || cmd.length !== 2) problems.push('CMD must be the exec form ["node", "<script>"]');
  else if (!existsSync(join(PROJECT_ROOT, cmd[1] ?? '')) || !cmd[1]?.startsWith('dist/'))
    problems.push(`CMD ${cmd[1]}: not a script of the built program (dist/)`);

  const userIndex = runtime.findIndex((i) => i.op === 'USER');
  const user = runtime[userIndex]?.args;
  if (!user) problems.push('the runtime stage sets no USER: it would run as root');
  else {
    if (/^(root|0)(:|$)/.test(user)) problems.push(`USER ${user} is root`);
    if (cmdIndex !== -1 && userIndex > cmdIndex) problems.push('USER comes after CMD');
    const created = runtime.flatMap((i) =>
      i.op === 'RUN' ? [...(/useradd [^&]*\s(\S+)\s*(?:&&|$)/.exec(i.args) ?? [])] : [],
    );
    if (created[1] !== user) problems.push(`USER ${user}: no useradd of it in the runtime stage`);
  }

  const env = new Map(runtime.filter((i) => i.op === 'ENV').flatMap((i) => envPairs(i.args)));
  const known = new Set([...Object.values(ENV_NAMES), 'NODE_ENV']);
  for (const name of env.keys()) if (!known.has(name)) problems.push(`ENV ${name}: not a setting of the program`);
  for (const [name, value] of [
    ['DATA_DIR', '/data'],
    ['HOST', '0.0.0.0'],
    ['DNS_HOST', '0.0.0.0'],
  ] as const)
    if (env.get(name) !== value) problems.push(`ENV ${name} must be ${value}`);
  if (!runtime.some((i) => i.op === 'VOLUME' && i.args === env.get('DATA_DIR')))
    problems.push('VOLUME must be the DATA_DIR');

  const defaults = loadConfig({ env: {} });
  const exposed = runtime.filter((i) => i.op === 'EXPOSE').flatMap((i) => i.args.split(' '));
  const wanted = [`${defaults.port}`, `${defaults.dnsApiPort}`, `${defaults.dnsPort}/udp`, `${defaults.dnsPort}/tcp`];
  if (exposed.join(' ') !== wanted.join(' '))
    problems.push(`EXPOSE ${exposed.join(' ')}: the ports are ${wanted.join(' ')}`);
  if (
    !execForm(runtime.find((i) => i.op === 'HEALTHCHECK')?.args ?? '')
      ?.join(' ')
      .includes('/livez')
  )
    problems.push('HEALTHCHECK must ask /livez in exec form');
  return problems;
}

const dockerfile = readFileSync(DOCKERFILE, 'utf8');
const dockerignore = readFileSync(DOCKERIGNORE, 'utf8');

test('deploy/Dockerfile: two stages, the sources it copies exist and reach the context, a non-root user runs dist/', () => {
  expect(dockerfileProblems(dockerfile, dockerignore)).toEqual([]);
});

test('each check catches a broken copy', () => {
  const broken = (from: string | RegExp, to: string, ignore = dockerignore): string[] =>
    dockerfileProblems(dockerfile.replace(from, to), ignore);
  expect(broken('USER onegraph', 'USER root')).toContain('USER root is root');
  expect(broken(/^USER onegraph\n/m, '')).toContain('the runtime stage sets no USER: it would run as root');
  expect(broken('USER onegraph', 'USER nobody2')).toContain('USER nobody2: no useradd of it in the runtime stage');
  expect(broken('COPY platform platform', 'COPY platfrom platform')).toEqual(
    expect.arrayContaining(['COPY platfrom: no such file in the repository', 'the build stage does not copy platform']),
  );
  expect(broken('COPY schema schema', 'COPY schema schema', `${dockerignore}\nschema\n`)).toContain(
    'COPY schema: .dockerignore leaves it out of the context',
  );
  expect(broken('dist/gateway/main.js', 'dist/gateway/mian.js')).toContain(
    'CMD dist/gateway/mian.js: not a script of the built program (dist/)',
  );
  expect(broken(/^COPY --from=build \/src\/schema schema\n/m, '')).toContain('the runtime stage does not copy schema');
  expect(broken('FROM node:20-bookworm-slim AS runtime', 'FROM node:18-bookworm-slim AS runtime')).toContain(
    `the last stage must be "FROM ${BASE} AS runtime"`,
  );
  expect(broken('npm prune --omit=dev', 'true')).toContain('the build stage does not run npm prune --omit=dev');
  expect(broken('HOST=0.0.0.0 \\', 'HOTS=0.0.0.0 \\')).toEqual(
    expect.arrayContaining(['ENV HOTS: not a setting of the program', 'ENV HOST must be 0.0.0.0']),
  );
  expect(broken('5353/udp', '53/udp')).toContain(
    'EXPOSE 4000 8081 53/udp 5353/tcp: the ports are 4000 8081 5353/udp 5353/tcp',
  );
});

test('the HEALTHCHECK command says healthy of a running gateway and unhealthy where none answers', async () => {
  const command = execForm(instructions(dockerfile).find((i) => i.op === 'HEALTHCHECK')?.args ?? '') ?? [];
  expect(command[0]).toBe('node');
  const check = (port: string) =>
    spawnSync(process.execPath, command.slice(1), { env: { ...process.env, PORT: port }, timeout: 10_000 }).status;
  expect(check(String(await freePort()))).toBe(1);
  const gateway = await gatewayStarted(await launchGateway({}));
  try {
    expect(check(new URL(gateway.base).port)).toBe(0);
  } finally {
    expect(await stopGateway(gateway)).toBe(0);
  }
}, 90_000);
