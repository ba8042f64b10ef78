import { Command, Option } from 'commander';
import { z } from 'zod';
import { defaultOf, formatDefault, metaOf, unwrap, type SettingMeta } from '../../../platform/settings';
import { ConfigError, CONFIG_FILE_SETTING } from './load';
import { ConfigSchema, type Config } from './schema';

type Key = keyof Config;
const SHAPE = ConfigSchema.shape as Readonly<Record<Key, z.ZodType>>;
const KEYS = Object.keys(SHAPE) as Key[];

/** `name=value` pairs of a repeatable flag, into one map. */
function pairs(flag: string, what: string) {
  return (value: string, previous: Record<string, string> = {}): Record<string, string> => {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new ConfigError(`${flag} expects ${what} (got "${value}")`);
    return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
  };
}

/** What `--help` and the documentation show as a key's default (never the value of a secret). */
export function defaultText(schema: z.ZodType, meta: SettingMeta | undefined): string {
  if (unwrap(schema) instanceof z.ZodObject) return 'per key';
  const text = formatDefault(defaultOf(schema));
  return meta?.secret && text !== 'unset' && text !== 'empty' ? '(secret)' : text;
}

/** `PORT (--port)`: a key's environment name and flag, as --help and the documentation show them, for messages. */
export function settingName(key: Key): string {
  const meta = metaOf(SHAPE[key]);
  const flag = meta?.flag?.split(' ')[0];
  const name = meta?.env ?? key;
  return flag ? `${name} (${flag})` : name;
}

/** A help line without its closing full stop (the brackets follow it). */
const line = (help: string): string => help.replace(/\.$/, '');

/** The option of one key, help text from its metadata: meaning [ENV] (default: …). */
function optionOf(key: Key): Option | undefined {
  const schema = SHAPE[key];
  const meta = metaOf(schema);
  if (!meta?.flag) return undefined;
  const inner = unwrap(schema);
  if (meta.flag.startsWith('--no-'))
    return new Option(meta.flag, `turn off: ${line(meta.help)}${meta.env ? ` [${meta.env}=false]` : ''}`);
  const env = meta.env ? ` [${meta.env}]` : '';
  const repeatable = inner instanceof z.ZodRecord ? ' (repeatable)' : '';
  const option = new Option(meta.flag, `${line(meta.help)}${env}${repeatable} (default: ${defaultText(schema, meta)})`);
  if (inner instanceof z.ZodEnum) option.choices(inner.options.map(String));
  if (inner instanceof z.ZodRecord) {
    const [name, arg] = meta.flag.split(' ');
    option.argParser(pairs(name ?? meta.flag, (arg ?? '').replace(/[<>]/g, '').toUpperCase()));
  }
  return option;
}

/** Every key without a flag, one line each: its environment variable (or `file only`), its key and its default. */
export function settingsWithoutFlagHelp(): string {
  const lines = KEYS.flatMap((key) => {
    const meta = metaOf(SHAPE[key]);
    if (meta?.flag) return [];
    const reach = meta?.env ? `${meta.env} (${key})` : `${key} (file only)`;
    return [`  ${reach.padEnd(64)} default: ${defaultText(SHAPE[key], meta)}`];
  });
  return `\nSettings without a flag (environment variable, or key of the ${CONFIG_FILE_SETTING.env} file):\n${lines.join('\n')}\n`;
}

/** A command with `--config` and a flag for every key whose metadata names one; `flagValues` reads them back. */
export function configCommand(name: string, description: string, version: string): Command {
  const program = new Command().name(name).description(description).version(version);
  program.addOption(new Option(CONFIG_FILE_SETTING.flag, `${CONFIG_FILE_SETTING.help} [${CONFIG_FILE_SETTING.env}]`));
  for (const key of KEYS) {
    const option = optionOf(key);
    if (option) program.addOption(option);
  }
  program.addHelpText('after', settingsWithoutFlagHelp());
  return program;
}

/** The keys the command line set (only those given: the environment and the file fill the rest), and `--config`. */
export function flagValues(program: Command): Partial<Record<Key, unknown>> & { config?: string } {
  const opts = program.opts<Record<string, unknown>>();
  const out: Partial<Record<Key, unknown>> & { config?: string } = {};
  const config = opts[CONFIG_FILE_SETTING.flag.slice(2).split(' ')[0] ?? ''];
  if (typeof config === 'string') out.config = config;
  for (const key of KEYS) {
    const option = program.options.find((o) => o.flags === metaOf(SHAPE[key])?.flag);
    if (option && program.getOptionValueSource(option.attributeName()) === 'cli')
      out[key] = opts[option.attributeName()];
  }
  return out;
}
