import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError, fromEnv, parseSettings } from '../../../platform/settings';
import { ConfigSchema, ENV_NAMES, type Config } from './schema';

export { ConfigError } from '../../../platform/settings';

export interface ConfigSources {
  /** Parsed command-line flags (they win over everything). */
  flags?: Partial<Record<keyof Config, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** Path of a YAML or JSON file; defaults to $CONFIG. */
  file?: string;
}

/** The configuration file: `--config`, else the CONFIG environment variable (it cannot name itself in the file). */
export const CONFIG_FILE_SETTING = {
  env: 'CONFIG',
  flag: '--config <file>',
  help: 'YAML or JSON configuration file; environment variables and flags win over it',
} as const;

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`CONFIG: cannot read config file ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(
      `CONFIG: ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  if (parsed == null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`CONFIG: ${path} must hold an object of settings`);
  }
  return parsed as Record<string, unknown>;
}

/** One key's value as the environment sets it (its variable from the metadata), for a start-up that needs it early. */
export function envSetting(key: keyof Config, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = ENV_NAMES[key];
  const value = name === undefined ? undefined : env[name];
  return value === '' ? undefined : value;
}

/** Merges defaults < file < environment < flags and validates the result. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const file = sources.file ?? env[CONFIG_FILE_SETTING.env];
  const merged: Record<string, unknown> = {
    ...(file ? readConfigFile(file) : {}),
    ...fromEnv(ConfigSchema.shape, env),
    ...Object.fromEntries(Object.entries(sources.flags ?? {}).filter(([, v]) => v !== undefined)),
  };
  return parseSettings(ConfigSchema, merged, ENV_NAMES as Readonly<Record<string, string>>);
}
