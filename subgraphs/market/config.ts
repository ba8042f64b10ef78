import { z } from 'zod';
import { setting } from '../../platform/settings';

const ttl = (seconds: number, help: string) =>
  setting(z.number().int().min(1).max(86_400).default(seconds), { help: `${help} (seconds)` });

/** TTL in seconds per kind of market data in the shared cache (upstream data changes at different paces). */
const CacheTtls = z
  .object({
    quote: ttl(10, 'Quotes'),
    company: ttl(3_600, 'Company profiles'),
    chartIntraday: ttl(60, 'Intraday charts'),
    chartDaily: ttl(900, 'Daily charts'),
    news: ttl(300, 'News'),
    financials: ttl(21_600, 'Financial statements'),
    related: ttl(900, 'Related tickers'),
    indices: ttl(15, 'Market indices'),
    movers: ttl(30, 'Market movers'),
    trending: ttl(60, 'Trending tickers'),
    earnings: ttl(3_600, 'Earnings'),
    headline: ttl(300, 'Headlines'),
    notFound: ttl(60, 'Answers that a ticker does not exist'),
  })
  .strict();
export type MarketCacheTtls = z.infer<typeof CacheTtls>;

/** The market subgraph's keys of the configuration (top-level keys of the file). */
export const MarketConfigSchema = z.object({
  marketProvider: setting(z.enum(['simulated', 'google']).default('simulated'), {
    env: 'MARKET_PROVIDER',
    flag: '--market-provider <name>',
    help: 'Market data provider',
  }),
  marketSeed: setting(z.string().min(1).max(200).default('onegraph'), {
    env: 'MARKET_SEED',
    flag: '--market-seed <seed>',
    help: 'Seed of the simulated market (the same seed gives the same prices)',
  }),
  marketClock: setting(z.iso.datetime({ offset: true }).optional(), {
    env: 'MARKET_CLOCK',
    flag: '--market-clock <iso>',
    help: "Freezes the simulated market's clock at this instant; unset: real time",
  }),
  googleFinanceUrl: setting(z.url({ protocol: /^https?$/ }).default('https://www.google.com'), {
    env: 'GOOGLE_FINANCE_URL',
    flag: '--google-finance-url <url>',
    help: 'Base URL of the upstream RPC of the google provider',
  }),
  upstreamTimeoutMs: setting(z.coerce.number().int().min(100).max(60_000).default(5_000), {
    env: 'UPSTREAM_TIMEOUT_MS',
    help: 'Longest one upstream market call may take (milliseconds)',
  }),
  upstreamRetries: setting(z.coerce.number().int().min(0).max(5).default(2), {
    env: 'UPSTREAM_RETRIES',
    help: 'Retries of a failed upstream market call',
  }),
  marketCacheTtl: setting(CacheTtls.default(CacheTtls.parse({})), {
    help: 'Seconds each kind of market data stays in the shared cache (file only)',
  }),
  maxQuotesPerRequest: setting(z.coerce.number().int().min(1).max(1_000).default(50), {
    env: 'MAX_QUOTES_PER_REQUEST',
    help: 'Tickers one quotes request may name',
  }),
  liveIntervalMs: setting(z.coerce.number().int().min(100).max(3_600_000).default(15_000), {
    env: 'LIVE_INTERVAL_MS',
    flag: '--live-interval-ms <ms>',
    help: 'Interval of live prices (milliseconds)',
  }),
  liveMaxTickersPerSubscription: setting(z.coerce.number().int().min(1).max(1_000).default(50), {
    env: 'LIVE_MAX_TICKERS_PER_SUBSCRIPTION',
    help: 'Tickers one live subscription (or /v1/live stream, or snapshot) may name',
  }),
});
export type MarketConfig = z.infer<typeof MarketConfigSchema>;
