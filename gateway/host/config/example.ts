import { join } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { defaultOf, describeType, metaOf, unwrap, type SettingsShape } from '../../../platform/settings';
import { PROJECT_ROOT } from '../paths';
import { DOCS_COMMAND } from './docs';
import { CONFIG_FILE_SETTING } from './load';
import { CONFIG_SECTIONS } from './schema';

/** The example configuration file (the format `CONFIG` takes), generated from the schema by `npm run docs`. */
export const EXAMPLE_CONFIG = join(PROJECT_ROOT, 'deploy', 'onegraph.example.yaml');

const WIDTH = 120;

/** Words of `text` in lines of at most `width` characters (a longer word stays whole on its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  return lines;
}

/** A value as YAML on one line (collections in flow style): what a key line shows after the colon. */
const yamlValue = (value: unknown): string => stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();

/**
 * Where a key's lines go. In an active block (a key whose default is written out) a setting line is `#` and the
 * indentation before the key, so deleting that first `#` sets it; explanations are YAML comments inside the block
 * (`# text` at the top, `#  # text` nested). In an inert block (a key with no default, and everything inside it)
 * every line is a comment even once the `#` of the block around it is deleted.
 */
interface Place {
  /** Prefix of the key's own line. */
  readonly key: string;
  /** Prefix of its explanation lines. */
  readonly note: string;
  /** Whether the key line is a setting (deleting the first `#` sets it) or an explanation only. */
  readonly active: boolean;
}

const topLevel: Place = { key: '#', note: '# ', active: true };

/** The place of a key nested one level inside a key at `parent`. */
function childPlace(parent: Place, activeChild: boolean): Place {
  if (parent.active && activeChild) {
    const indent = `${parent.key.slice(1)}  `;
    return { key: `#${indent}`, note: `#${indent}# `, active: true };
  }
  if (parent.active) {
    const prefix = `#${parent.key.slice(1)}  # `;
    return { key: prefix, note: prefix, active: false };
  }
  // inside an inert block: the same comment prefix, two more spaces of indentation
  const key = `${parent.key}  `;
  return { key, note: `${key}# `, active: false };
}

/** The inner shape a key nests, with the name its entries stand under: a section's keys, or a map's `<name>` entry. */
function nested(schema: z.ZodType): { shape: SettingsShape; entry?: string } | undefined {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) return { shape: inner.shape };
  if (inner instanceof z.ZodRecord) {
    const value = unwrap(inner.valueType as z.ZodType);
    if (value instanceof z.ZodObject) return { shape: value.shape, entry: '<name>' };
  }
  return undefined;
}

/** The explanation of one key: its meaning, then how else it is reached, what it allows and its default. */
function explanation(key: string, schema: z.ZodType, nestedKey: boolean): string[] {
  const meta = metaOf(schema);
  const value = defaultOf(schema);
  const reach = [
    meta?.env ? `Environment: ${meta.env}.` : nestedKey ? '' : 'File only.',
    meta?.flag ? `Flag: ${meta.flag}.` : '',
  ].filter(Boolean);
  const secret = meta?.secret ? ' Secret: never logged.' : '';
  const def = value === undefined ? ' Default: unset.' : '';
  return [
    ...wrap(meta?.help ?? key, WIDTH - 8),
    ...wrap(`${reach.join(' ')} Allowed: ${describeType(schema)}.${def}${secret}`, WIDTH - 8),
  ];
}

/**
 * Whether a key's line is a setting with its default written out: not when it has no default, not for a secret's
 * default (never written out), and not for a section none of whose keys has a default of its own to write.
 */
function shownDefault(schema: z.ZodType): boolean {
  const value = defaultOf(schema);
  if (value === undefined) return false;
  if (metaOf(schema)?.secret && !['[]', '{}', '""'].includes(yamlValue(value))) return false;
  const inner = nested(schema);
  return !inner || inner.entry !== undefined || Object.values(inner.shape).some(shownDefault);
}

/** The lines of one key (and of the keys nested in it) at `place`. */
function keyLines(key: string, schema: z.ZodType, parent: Place | undefined): string[] {
  const value = defaultOf(schema);
  const inner = nested(schema);
  const shown = shownDefault(schema);
  const place = parent ? childPlace(parent, shown) : shown ? topLevel : { key: '# ', note: '# ', active: false };
  const out = explanation(key, schema, parent !== undefined).map((line) => `${place.note}${line}`);
  if (!inner) {
    out.push(`${place.key}${key}:${shown ? ` ${yamlValue(value)}` : ''}`);
    return out;
  }
  // a section: its keys below it, each with its own default (a map of sections: one `<name>` entry to copy)
  out.push(`${place.key}${key}:`);
  let holder = place;
  if (inner.entry) {
    holder = childPlace(place, false);
    out.push(`${holder.key}${inner.entry}:`);
  }
  for (const [childKey, childSchema] of Object.entries(inner.shape))
    out.push(...keyLines(childKey, childSchema, holder));
  return out;
}

/** deploy/onegraph.example.yaml: every key of every section with its meaning and default, from the schemas. */
export function renderExampleConfig(): string {
  const out = [
    '# onegraph: example configuration file (YAML), every key with its meaning and its default.',
    `# Generated by \`${DOCS_COMMAND}\` (scripts/config-docs.ts) from the configuration schema; do not edit by hand: a`,
    '# test fails when this file is stale. The same keys, as a table: docs/configuration.md.',
    '#',
    ...wrap(
      `Point ${CONFIG_FILE_SETTING.env} (or ${CONFIG_FILE_SETTING.flag}) at a copy of this file: ${CONFIG_FILE_SETTING.help}. ` +
        'Every key here is commented out, so each takes its default. A line with `#` directly before a key ' +
        '(`#port: 4000`) is a setting: delete that `#` to set it (in a section: on its line and on the lines of the ' +
        'keys inside it that you set; the explanations may stay). A key shown as `# key:` has no default (or, for a ' +
        'section, no key inside it has one): delete `# ` and give it a value.',
      WIDTH - 2,
    ).map((line) => `# ${line}`),
    '',
  ];
  for (const section of CONFIG_SECTIONS) {
    out.push(`# ${'='.repeat(WIDTH - 2)}`, `# ${section.title} (${section.source})`, `# ${'='.repeat(WIDTH - 2)}`, '');
    for (const [key, schema] of Object.entries(section.schema.shape as SettingsShape))
      out.push(...keyLines(key, schema, undefined), '');
  }
  return out.join('\n');
}

/**
 * The example file with every setting line uncommented: the `#` deleted where it stands directly before a key's
 * indentation (an even number of spaces, then the key). Explanations stay comments.
 */
export function uncommentSettings(text: string): string {
  return text.replace(/^#(?=(?: {2})*[^\s#])/gm, '');
}

/** Why `current` (the file's text, undefined when missing) is not what the schema gives now; undefined when fresh. */
export function exampleConfigProblem(current: string | undefined): string | undefined {
  if (current === undefined) return `deploy/onegraph.example.yaml is missing: run ${DOCS_COMMAND}`;
  const want = renderExampleConfig().split('\n');
  const have = current.split('\n');
  const at = want.findIndex((line, i) => line !== have[i]);
  if (at === -1 && have.length === want.length) return undefined;
  const line = at === -1 ? want.length : at;
  return `deploy/onegraph.example.yaml is stale from line ${line + 1} (${JSON.stringify(want[line] ?? '')}): run ${DOCS_COMMAND}`;
}
