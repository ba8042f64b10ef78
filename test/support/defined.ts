/** The value, or an error naming what was missing: a checked read where a test or bench knows an element exists. */
export function defined<T>(value: T | undefined | null, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`expected ${what} to be present`);
  return value;
}
