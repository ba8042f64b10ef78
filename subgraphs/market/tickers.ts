import type { Ticker } from './model';

/** The original service's ticker rule: `SYMBOL:EXCHANGE` or `BASE-QUOTE`, at most 40 characters. */
const EXCHANGE_FORM = /^[A-Za-z0-9._]{1,20}:[A-Za-z0-9_]{1,20}$/;
const PAIR_FORM = /^[A-Za-z0-9]{1,10}-[A-Za-z0-9]{1,10}$/;
export const MAX_TICKER_LENGTH = 40;

export type ParsedTicker =
  | { form: 'exchange'; ticker: Ticker; symbol: string; exchange: string }
  | { form: 'pair'; ticker: Ticker; base: string; quote: string };

export class InvalidTickerError extends Error {
  constructor(readonly input: string) {
    super(describeInvalidTicker(input));
    this.name = 'InvalidTickerError';
  }
}

function describeInvalidTicker(input: string): string {
  const shown = input.length > 60 ? `${input.slice(0, 60)}…` : input;
  const why =
    input.length === 0
      ? 'it is empty'
      : input.length > MAX_TICKER_LENGTH
        ? `it is longer than ${MAX_TICKER_LENGTH} characters`
        : 'it is not in either allowed form';
  return `invalid ticker "${shown}": ${why}; use SYMBOL:EXCHANGE (e.g. AAPL:NASDAQ) or BASE-QUOTE (e.g. BTC-USD)`;
}

/** Validates and normalises (upper case) a ticker; throws InvalidTickerError naming what is allowed. */
export function parseTicker(input: string): ParsedTicker {
  if (input.length === 0 || input.length > MAX_TICKER_LENGTH) throw new InvalidTickerError(input);
  const upper = input.toUpperCase();
  if (EXCHANGE_FORM.test(upper)) {
    const [symbol, exchange] = upper.split(':') as [string, string];
    return { form: 'exchange', ticker: upper, symbol, exchange };
  }
  if (PAIR_FORM.test(upper)) {
    const [base, quote] = upper.split('-') as [string, string];
    return { form: 'pair', ticker: upper, base, quote };
  }
  throw new InvalidTickerError(input);
}
