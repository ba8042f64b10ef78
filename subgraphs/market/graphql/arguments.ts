import { badUserInput } from '../../errors';
import { InvalidTickerError, parseTicker } from '../tickers';
import type { Ticker } from '../model';

/** Validates a ticker argument; a bad one is a BAD_USER_INPUT naming the argument and the allowed forms. */
export function tickerArg(value: string, field = 'ticker'): Ticker {
  try {
    return parseTicker(value).ticker;
  } catch (err) {
    if (err instanceof InvalidTickerError) throw badUserInput(field, err.message);
    throw err;
  }
}

export function intInRange(field: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw badUserInput(field, `${field} must be an integer from ${min} to ${max} (got ${value})`);
  }
  return value;
}
