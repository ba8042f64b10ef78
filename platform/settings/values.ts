import { z } from 'zod';

/** A TCP or UDP port; 0 lets the system choose (or turns a listener off, where the setting says so). */
export const portNumber = z.coerce.number().int().min(0).max(65_535);

const TRUTH: Readonly<Record<string, boolean>> = {
  true: true,
  '1': true,
  yes: true,
  false: false,
  '0': false,
  no: false,
  on: true,
  off: false,
};

/** A boolean that the environment may spell true/false, 1/0, yes/no or on/off. */
export const textBool = z.preprocess((v) => (typeof v === 'string' ? (TRUTH[v.toLowerCase()] ?? v) : v), z.boolean());

/** A list that the environment gives comma-separated (blanks around items and empty items dropped). */
export function commaList<T extends z.ZodType>(list: T) {
  return z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean)
        : v,
    list,
  );
}

/** One of `values` (each written in lower case), given in any letter case (OpenTelemetry's enumerations are). */
export function anyCaseEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(values));
}
