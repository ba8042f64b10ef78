import { z } from 'zod';

/** What a setting means and how it is reached besides the configuration file: kept beside its validation. */
export interface SettingMeta {
  /** One line: what it does (help text, documentation). */
  readonly help: string;
  /** Environment variable; absent: the configuration file only (structured values, nested sections). */
  readonly env?: string;
  /** Command-line flag with its argument (`--port <n>`), or `--no-…` for a switch that only turns it off. */
  readonly flag?: string;
  /** Never shown: documentation and help name it but print no value of it. */
  readonly secret?: boolean;
}

/** Every setting's metadata, keyed by its schema (zod's registries keep metadata out of the parsed values). */
export const settingsRegistry = z.registry<SettingMeta>();

/** `schema` with its metadata: the one place a key's environment name, flag and meaning are written. */
export function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  settingsRegistry.add(schema, meta);
  return schema;
}

export function metaOf(schema: z.ZodType): SettingMeta | undefined {
  return settingsRegistry.get(schema);
}

/** The keys of a section (a zod object's shape) as a list, in their order. */
export type SettingsShape = Readonly<Record<string, z.ZodType>>;
