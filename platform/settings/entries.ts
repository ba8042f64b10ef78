import { z } from 'zod';
import { unwrap } from './describe';
import { metaOf, type SettingMeta, type SettingsShape } from './setting';

/** One key of the configuration, nested ones included, as the documentation and the checks walk them. */
export interface SettingEntry {
  /** Where it sits in the configuration file: `port`, `dnsTool.ldap.url`, `dnsTool.zones.<name>.tsigKey`. */
  readonly path: string;
  readonly schema: z.ZodType;
  readonly meta: SettingMeta | undefined;
}

/** Every key of `shape` in order, each followed by the keys nested in it (sections, and maps of sections). */
export function settingEntries(shape: SettingsShape, prefix = ''): SettingEntry[] {
  const out: SettingEntry[] = [];
  for (const [key, schema] of Object.entries(shape)) {
    const path = `${prefix}${key}`;
    out.push({ path, schema, meta: metaOf(schema) });
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) out.push(...settingEntries(inner.shape, `${path}.`));
    else if (inner instanceof z.ZodRecord) {
      const value = unwrap(inner.valueType as z.ZodType);
      if (value instanceof z.ZodObject) out.push(...settingEntries(value.shape, `${path}.<name>.`));
    }
  }
  return out;
}

/** Each key's environment variable, from the metadata. */
export function envNames(shape: SettingsShape): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, schema] of Object.entries(shape)) {
    const env = metaOf(schema)?.env;
    if (env) out[key] = env;
  }
  return out;
}

/** The values the environment sets, by key (an empty variable counts as unset), still as text for the schema. */
export function fromEnv(shape: SettingsShape, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, name] of Object.entries(envNames(shape))) {
    const value = env[name];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}
