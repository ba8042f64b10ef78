/**
 * Simulated news. Time is cut into slots of a per-instrument length (5–24 h); each slot holds exactly one
 * article at a hashed instant inside it, so the newest N articles before `now` are found by walking back a few
 * slots, and an article, once published, never changes. Outlets are invented and links point at the reserved
 * `news.example` host, so nothing here can be mistaken for real reporting.
 */
import type { Headline, NewsItem } from '../../model';
import { CATALOG, type Instrument } from './catalog';
import { civilFromDays } from './calendar';
import { choose, hashInts, pick } from './hash';
import type { Simulation } from './simulation';

const SOURCES = [
  'Market Ledger',
  'Tape Reader',
  'The Closing Bell',
  'Capital Brief',
  'Open Interest Daily',
  'Ticker Wire',
] as const;

const STOCK_TITLES = [
  '{name} shares move as investors weigh the outlook for {year}',
  'What analysts expect from {name} next quarter',
  '{name} draws fresh attention from fund managers',
  'Is {name} stock still a buy after its latest run?',
  '{name} outlines priorities at investor meeting',
  'Options traders position for a bigger move in {name}',
  '{name} executives discuss demand trends',
  'Three things to watch in {name} this week',
] as const;

const MARKET_TITLES = [
  '{name} in focus as traders digest economic data',
  'Why {name} moved today',
  '{name}: what strategists expect for the rest of {year}',
  'Volatility check: how {name} is trading this week',
  '{name} steadies after a busy session',
  'Technical view: key levels for {name}',
] as const;

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

interface Article extends NewsItem {
  title: string;
  source: string;
  url: string;
  timestamp: number;
}

function article(instrument: Instrument, key: number, slot: number, slotSeconds: number): Article {
  const timestamp = slot * slotSeconds + pick(hashInts(key, 31, slot), slotSeconds);
  const templates = instrument.type === 'stock' ? STOCK_TITLES : MARKET_TITLES;
  const year = civilFromDays(Math.floor(timestamp / 86400)).year;
  const title = choose(hashInts(key, 32, slot), templates)
    .replace('{name}', instrument.shortName)
    .replace('{year}', String(year));
  return {
    title,
    source: choose(hashInts(key, 33, slot), SOURCES),
    url: `https://news.example/${slug(instrument.ticker)}/${timestamp}-${slug(title)}`,
    timestamp,
  };
}

/** 3–10 articles published before `utcMs`, newest first. */
export function newsOf(sim: Simulation, instrument: Instrument, utcMs: number): Article[] {
  const key = sim.model(instrument).key;
  const slotSeconds = (5 + pick(hashInts(key, 30), 20)) * 3600;
  const nowSeconds = Math.floor(utcMs / 1000);
  // How many articles the feed shows changes day to day.
  const count = 3 + pick(hashInts(key, 34, Math.floor(nowSeconds / 86400)), 8);
  const items: Article[] = [];
  for (let slot = Math.floor(nowSeconds / slotSeconds); items.length < count; slot--) {
    const a = article(instrument, key, slot, slotSeconds);
    if (a.timestamp < nowSeconds) items.push(a);
  }
  return items;
}

/** The newest article across the whole catalog (ties: ticker order). */
export function headlineOf(sim: Simulation, utcMs: number): Headline {
  let best: Article | null = null;
  let bestTicker = '';
  for (const instrument of CATALOG) {
    const a = newsOf(sim, instrument, utcMs)[0] as Article;
    if (
      best === null ||
      a.timestamp > best.timestamp ||
      (a.timestamp === best.timestamp && instrument.ticker < bestTicker)
    ) {
      best = a;
      bestTicker = instrument.ticker;
    }
  }
  const top = best as Article;
  return { title: top.title, url: top.url, source: top.source };
}
