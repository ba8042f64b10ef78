import { metaOf } from '../../../platform/settings';
import { configCommand, defaultText, flagValues } from './flags';
import { ConfigSchema } from './schema';

const program = () => configCommand('npm start --', 'test', '0.0.0');
const parse = (...args: string[]) => flagValues(program().parse(['node', 'main', ...args]));

/** The whole `--help` output, as the user sees it (the text after the options included). */
function helpText(): string {
  let out = '';
  const p = program().configureOutput({ writeOut: (s) => (out += s) });
  p.outputHelp();
  return out;
}

test('--help lists every key: its flag, environment variable and default, from the metadata', () => {
  const help = helpText();
  for (const [key, schema] of Object.entries(ConfigSchema.shape)) {
    const meta = metaOf(schema);
    expect({ key, meta: meta !== undefined }).toEqual({ key, meta: true });
    if (meta?.flag) expect(help).toContain(meta.flag);
    if (meta?.env) expect(help).toContain(meta.env);
    if (!meta?.env && !meta?.flag) expect(help).toContain(`${key} (file only)`);
  }
  const flat = help.replace(/\s+/g, ' ');
  expect(flat).toMatch(/--port <n> Gateway HTTP port [^[]*\[PORT\] \(default: 4000\)/);
  expect(flat).toContain(
    '--no-response-cache turn off: The whole-response cache of GraphQL results [RESPONSE_CACHE=false]',
  );
  expect(help).toMatch(/UPSTREAM_TIMEOUT_MS \(upstreamTimeoutMs\)\s+default: 5000/);
  expect(help).toContain('[MARKET_PROVIDER]');
  expect(help).toContain('--config <file>');
  expect(help).toContain('[CONFIG]');
});

test('the flags the gateway always had are all there', () => {
  const help = helpText();
  for (const flag of [
    '--port <n>',
    '--host <addr>',
    '--config <file>',
    '--data-dir <dir>',
    '--market-provider <name>',
    '--market-seed <seed>',
    '--market-clock <iso>',
    '--google-finance-url <url>',
    '--redis-url <url>',
    '--live-interval-ms <ms>',
    '--cors-origins <list>',
    '--no-response-cache',
    '--dns-host <addr>',
    '--dns-port <n>',
    '--database-url <url>',
    '--zone <name=file>',
    '--tsig-keyfile <file>',
    '--notify <host:port>',
    '--supergraph <file>',
    '--workers <n|auto>',
    '--subgraph <name=url>',
    '--log-level <level>',
    '--log-format <format>',
  ])
    expect(help).toContain(flag);
});

test('only the flags given are returned (the environment and the file fill the rest)', () => {
  expect(parse()).toEqual({});
  expect(
    parse(
      '--port',
      '5000',
      '--no-response-cache',
      '--zone',
      'a.test=a.zone',
      '--zone',
      'b.test=b.zone',
      '--subgraph',
      'market=http://127.0.0.1:4101/graphql',
      '--tsig-keyfile',
      'keys.conf',
      '--notify',
      '192.0.2.1:53',
      '--supergraph',
      'sg.graphql',
      '--config',
      'c.yaml',
    ),
  ).toEqual({
    port: '5000',
    responseCache: false,
    zoneFiles: { 'a.test': 'a.zone', 'b.test': 'b.zone' },
    subgraphUrls: { market: 'http://127.0.0.1:4101/graphql' },
    tsigKeyFile: 'keys.conf',
    notifyTargets: '192.0.2.1:53',
    supergraphFile: 'sg.graphql',
    config: 'c.yaml',
  });
});

test('a NAME=VALUE flag without "=" is a ConfigError naming the flag', () => {
  expect(() => parse('--zone', 'nofile')).toThrow(/--zone expects NAME=FILE \(got "nofile"\)/);
});

test('defaults as shown: unset, empty, and secrets never printed', () => {
  expect(defaultText(ConfigSchema.shape.databaseUrl, metaOf(ConfigSchema.shape.databaseUrl))).toBe('unset');
  expect(defaultText(ConfigSchema.shape.zoneFiles, metaOf(ConfigSchema.shape.zoneFiles))).toBe('empty');
  expect(defaultText(ConfigSchema.shape.subgraphTrustedProxies, undefined)).toBe('127.0.0.1,::1,::ffff:127.0.0.1');
});
