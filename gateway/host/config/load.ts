import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ConfigSchema, ENV_NAMES, type Config } from './schema';

/** A configuration value that does not validate; the message names the key(s) and what is allowed. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ConfigSources {
  /** Parsed command-line flags (they win over everything). */
  flags?: Partial<Record<keyof Config, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** Path of a YAML or JSON file; defaults to $CONFIG. */
  file?: string;
}

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

function fromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const value = env[name];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

function keyLabel(path: PropertyKey[]): string {
  const key = path.map(String).join('.');
  const env = ENV_NAMES[path[0] as keyof Config];
  return env ? `${env} (${key})` : key;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const label = issue.path.length ? keyLabel(issue.path) : 'config';
  switch (issue.code) {
    case 'invalid_value':
      return `${label} must be one of: ${issue.values.map(String).join(', ')}`;
    case 'unrecognized_keys':
      return `${label}: unknown key(s) ${issue.keys.join(', ')}`;
    default:
      return `${label}: ${issue.message}`;
  }
}

/** Merges defaults < file < environment < flags and validates the result. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const file = sources.file ?? env.CONFIG;
  const merged: Record<string, unknown> = {
    ...(file ? readConfigFile(file) : {}),
    ...fromEnv(env),
    ...Object.fromEntries(Object.entries(sources.flags ?? {}).filter(([, v]) => v !== undefined)),
  };
  const result = ConfigSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigError(
      `Invalid configuration:\n${result.error.issues.map((i) => `  - ${describeIssue(i)}`).join('\n')}`,
    );
  }
  return result.data;
}
