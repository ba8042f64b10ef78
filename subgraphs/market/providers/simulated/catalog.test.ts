import { parseTicker } from '../../tickers';
import { CATALOG } from './catalog';
import { SIMULATED_TICKERS } from './index';
import { Market } from './testing/index';

const quotesAt = async (now: number) => {
  const m = new Market(now);
  return Promise.all(SIMULATED_TICKERS.map((t) => m.quote(t)));
};

describe('catalog', () => {
  test('holds at least 40 distinct instruments, including the live-stream defaults and the documented examples', () => {
    expect(SIMULATED_TICKERS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(SIMULATED_TICKERS).size).toBe(SIMULATED_TICKERS.length);
    expect(SIMULATED_TICKERS).toEqual(
      expect.arrayContaining([
        'GOOGL:NASDAQ',
        'AAPL:NASDAQ',
        'MSFT:NASDAQ',
        'BTC-USD',
        'THYAO:IST',
        'USD-TRY',
        'EUR-TRY',
        'EUR-USD',
        'JPM:NYSE',
        'SAP:ETR',
        'MC:EPA',
        'HSBA:LON',
        '7203:TYO',
        'RY:TSE',
        '.DJI:INDEXDJX',
        '.INX:INDEXSP',
        '.IXIC:INDEXNASDAQ',
        'DAX:INDEXDB',
        'UKX:INDEXFTSE',
        'NI225:INDEXNIKKEI',
        'XU100:INDEXIST',
        'SPY:NYSEARCA',
        'QQQ:NASDAQ',
        'VOO:NYSEARCA',
        'ETH-USD',
        'SOL-USD',
        'USD-JPY',
        'GBP-USD',
      ]),
    );
  });

  test('every ticker is already in normalised form', () => {
    for (const ticker of SIMULATED_TICKERS) expect(parseTicker(ticker.toLowerCase()).ticker).toBe(ticker);
  });

  test('every instrument has a name, a currency, a valid IANA time zone and a type; exchange is the listing suffix', async () => {
    const quotes = await quotesAt(Date.UTC(2026, 2, 4, 15));
    for (const q of quotes) {
      expect(q.name).toEqual(expect.stringMatching(/\S/));
      expect(q.currency).toMatch(/^[A-Z]{3}$/);
      expect(() => new Intl.DateTimeFormat('en-US', { timeZone: q.timezone as string })).not.toThrow();
      expect(q.timezone).toMatch(/^(UTC|[A-Z][a-z]+\/[A-Za-z_]+)$/);
      const colon = q.ticker.indexOf(':');
      expect(q.exchange).toBe(colon >= 0 ? q.ticker.slice(colon + 1) : null);
    }
  });

  test('covers stocks on several exchanges, indices, ETFs, crypto pairs and FX pairs with the right types', async () => {
    const quotes = await quotesAt(Date.UTC(2026, 2, 4, 15));
    const byType = (type: string) => quotes.filter((q) => q.type === type);
    expect(new Set(byType('stock').map((q) => q.exchange)).size).toBeGreaterThanOrEqual(6);
    expect(byType('index').length).toBeGreaterThanOrEqual(7);
    expect(byType('etf').length).toBeGreaterThanOrEqual(6);
    expect(byType('crypto').map((q) => q.ticker)).toEqual(expect.arrayContaining(['BTC-USD', 'ETH-USD', 'SOL-USD']));
    // FX pairs are 'unknown', as the upstream reports currencies; coins are 'crypto'; both have no exchange.
    for (const ticker of ['EUR-USD', 'USD-JPY', 'GBP-USD', 'USD-TRY', 'EUR-TRY']) {
      expect(quotes.find((q) => q.ticker === ticker)).toMatchObject({ type: 'unknown', exchange: null });
    }
    expect(quotes.find((q) => q.ticker === 'BTC-USD')).toMatchObject({
      type: 'crypto',
      exchange: null,
      currency: 'USD',
    });
    expect(quotes.find((q) => q.ticker === 'THYAO:IST')).toMatchObject({
      type: 'stock',
      currency: 'TRY',
      timezone: 'Europe/Istanbul',
    });
    expect(quotes.find((q) => q.ticker === '7203:TYO')).toMatchObject({ currency: 'JPY', timezone: 'Asia/Tokyo' });
    expect(quotes.find((q) => q.ticker === 'QQQ:NASDAQ')).toMatchObject({ type: 'etf', exchange: 'NASDAQ' });
    expect(quotes.find((q) => q.ticker === 'USD-TRY')).toMatchObject({ currency: 'TRY' });
  });

  test('stocks carry company facts; other instruments carry none', () => {
    for (const i of CATALOG) {
      if (i.type === 'stock') {
        expect(i.company).not.toBeNull();
        expect(i.company?.ceo).toMatch(/\S/);
        expect(i.company?.employees).toBeGreaterThan(1000);
        expect(i.company?.sharesOutstanding).toBeGreaterThan(1e8);
        expect(i.sector).toMatch(/\S/);
        expect(i.description).toMatch(/\.$/);
      } else {
        expect(i.company).toBeNull();
        expect(i.sector).toBeNull();
      }
    }
  });
});
