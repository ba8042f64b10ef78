import { z } from 'zod';

/** The schema under defaults, optionals and preprocessing: the one whose kind and bounds tell the allowed values. */
export function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable)
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.out as z.ZodType;
    else return s;
  }
}

function bounds(min: number | null | undefined, max: number | null | undefined, unit = ''): string {
  const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
  const safe = (n: number | null | undefined) => finite(n) && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  if (safe(min) && safe(max)) return ` ${min}–${max}${unit}`;
  if (safe(min)) return ` ≥ ${min}${unit}`;
  if (safe(max)) return ` ≤ ${max}${unit}`;
  return '';
}

const FORMATS: Readonly<Record<string, string>> = {
  url: 'URL',
  datetime: 'ISO 8601 date-time',
  ipv4: 'IPv4 address',
  ipv6: 'IPv6 address',
  regex: 'text',
};

/** The allowed values of a setting in a few words (`integer 0–65535`, `one of: a, b`, `list of …`). */
export function describeType(schema: z.ZodType): string {
  const s = unwrap(schema);
  const nullable =
    schema instanceof z.ZodNullable || (schema instanceof z.ZodDefault && schema.unwrap() instanceof z.ZodNullable);
  const text = ((): string => {
    if (s instanceof z.ZodNumber) return `${s.isInt ? 'integer' : 'number'}${bounds(s.minValue, s.maxValue)}`;
    if (s instanceof z.ZodBoolean) return 'boolean';
    if (s instanceof z.ZodEnum) return `one of: ${s.options.map(String).join(', ')}`;
    if (s instanceof z.ZodLiteral) return s.values.size === 1 ? String([...s.values][0]) : [...s.values].join(', ');
    if (s instanceof z.ZodUnion) return (s.options as z.ZodType[]).map(describeType).join(' or ');
    if (s instanceof z.ZodArray) return `list of ${describeType(s.element as z.ZodType)}`;
    if (s instanceof z.ZodRecord) return `map of name → ${describeType(s.valueType as z.ZodType)}`;
    if (s instanceof z.ZodObject) return 'section';
    if (s instanceof z.ZodString) {
      const format = s.format ? (FORMATS[s.format] ?? s.format) : 'text';
      if (format !== 'text') return format;
      return s.minLength === 1 && s.maxLength === null
        ? 'non-empty text'
        : `text${bounds(s.minLength, s.maxLength, ' characters')}`;
    }
    if (s instanceof z.ZodStringFormat && s.format) return FORMATS[s.format] ?? s.format;
    return 'value';
  })();
  return nullable ? `${text} or null` : text;
}

/** The value a setting takes when nothing sets it, or undefined (unset). */
export function defaultOf(schema: z.ZodType): unknown {
  const result = schema.safeParse(undefined);
  return result.success ? result.data : undefined;
}

/** A default as the documentation and `--help` show it. */
export function formatDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : value.map(String).join(',');
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) return 'empty';
  return JSON.stringify(value);
}
