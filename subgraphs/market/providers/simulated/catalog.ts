/**
 * The shipped instrument catalog: real instruments with their public facts (names, listings, currencies, CEOs,
 * head counts, share counts, revenue and margins as of about mid-2025, rounded). Price levels are only the
 * neighbourhood the simulated path is anchored to; everything that moves is simulated.
 */
import type { InstrumentType, Ticker } from '../../model';
import { parseDay } from './calendar';
import { MARKETS, type Market, type MarketId } from './sessions';

export interface CompanyFacts {
  ceo: string;
  employees: number;
  sharesOutstanding: number;
  /** Annual revenue around mid-2025, in the financial-statement currency. */
  revenue: number;
  /** Net income / revenue, a fraction. */
  netMargin: number;
  /** Operating income / revenue, a fraction. */
  operatingMargin: number;
  /** Yearly revenue growth, a fraction. */
  growth: number;
}

export interface Instrument {
  ticker: Ticker;
  /** `quote.exchange`: the part after the colon; null for crypto and FX pairs. */
  exchange: string | null;
  type: InstrumentType;
  name: string;
  /** How headlines name it ("Apple", "Bitcoin"). */
  shortName: string;
  currency: string;
  market: Market;
  sector: string | null;
  description: string;
  /** Price level around the anchor date (2025-07-01), in `currency`. */
  anchorPrice: number;
  /** Annualised volatility of log price. */
  volatility: number;
  /** Annual drift of log price (growth, or inflation for lira prices). */
  drift: number;
  /** Decimals every price of the instrument is rounded to. */
  decimals: number;
  /** First day of the simulated history (listing date, or 1970-01-02 for older listings): the MAX chart starts here. */
  since: number;
  /** Typical daily volume in shares/units; null where the upstream reports none (indices, FX). */
  averageVolume: number | null;
  /** Stocks only. */
  company: CompanyFacts | null;
  /** Crypto: circulating supply, for market cap. */
  supply: number | null;
  /** Financial statements' currency and how many of it one unit of the quote currency is (GBX quotes, GBP books). */
  reportingCurrency: string;
  reportingUnit: number;
}

const OLD = '1970-01-02';

interface Common {
  name: string;
  short: string;
  price: number;
  vol: number;
  since: string;
  about: string;
  drift?: number;
  decimals?: number;
}

interface StockFacts extends Common {
  ticker: string;
  market: MarketId;
  currency: string;
  sector: string;
  ceo: string;
  employees: number;
  shares: number;
  revenue: number;
  netMargin: number;
  opMargin: number;
  volume: number;
  growth?: number;
}

function build(
  c: Common, ticker: string, type: InstrumentType, market: Market, currency: string, sector: string | null,
  averageVolume: number | null, company: CompanyFacts | null, supply: number | null, defaultDrift: number,
): Instrument {
  const colon = ticker.indexOf(':');
  const pence = currency === 'GBX';
  return {
    ticker,
    exchange: colon >= 0 ? ticker.slice(colon + 1) : null,
    type,
    name: c.name,
    shortName: c.short,
    currency,
    market,
    sector,
    description: c.about,
    anchorPrice: c.price,
    volatility: c.vol,
    drift: c.drift ?? defaultDrift,
    decimals: c.decimals ?? 2,
    since: parseDay(c.since),
    averageVolume,
    company,
    supply,
    reportingCurrency: pence ? 'GBP' : currency,
    reportingUnit: pence ? 0.01 : 1,
  };
}

function stock(s: StockFacts): Instrument {
  const company: CompanyFacts = {
    ceo: s.ceo, employees: s.employees, sharesOutstanding: s.shares, revenue: s.revenue,
    netMargin: s.netMargin, operatingMargin: s.opMargin, growth: s.growth ?? 0.05,
  };
  return build(s, s.ticker, 'stock', MARKETS[s.market], s.currency, s.sector, s.volume, company, null, 0.07);
}

function index(ticker: string, market: MarketId, currency: string, c: Common): Instrument {
  return build(c, ticker, 'index', MARKETS[market], currency, null, null, null, null, 0.06);
}

function etf(ticker: string, volume: number, c: Common): Instrument {
  return build(c, ticker, 'etf', MARKETS.US, 'USD', null, volume, null, null, 0.07);
}

function crypto(ticker: string, volume: number, supply: number, c: Common): Instrument {
  return build(c, ticker, 'crypto', MARKETS.CRYPTO, 'USD', null, volume, null, supply, 0.45);
}

/** Currency pairs: the upstream has no type code for them, so they are `unknown`, as it reports them. */
function fx(ticker: string, c: Common): Instrument {
  const currency = ticker.slice(ticker.indexOf('-') + 1);
  return build({ decimals: 4, ...c }, ticker, 'unknown', MARKETS.FX, currency, null, null, null, null, 0);
}

const B = 1e9;
const M = 1e6;
const T = 1e12;
const TECH = 'Technology';
const COMMS = 'Communication Services';
const CYCLICAL = 'Consumer Cyclical';
const DEFENSIVE = 'Consumer Defensive';
const FINANCIAL = 'Financial Services';
const HEALTH = 'Healthcare';
const ENERGY = 'Energy';
const INDUSTRIALS = 'Industrials';
/** Lira prices inflate: Turkish listings drift up much faster than their real value. */
const LIRA_DRIFT = 0.3;

export const CATALOG: readonly Instrument[] = [
  // United States: NASDAQ
  stock({ ticker: 'AAPL:NASDAQ', market: 'US', currency: 'USD', sector: TECH, name: 'Apple Inc.', short: 'Apple',
    ceo: 'Tim Cook', employees: 164_000, shares: 14.9 * B, revenue: 400 * B, netMargin: 0.24, opMargin: 0.31,
    volume: 55 * M, price: 210, vol: 0.28, drift: 0.18, since: '1980-12-12',
    about: 'Apple designs the iPhone, Mac, iPad and wearables and runs services such as the App Store and iCloud.' }),
  stock({ ticker: 'MSFT:NASDAQ', market: 'US', currency: 'USD', sector: TECH, name: 'Microsoft Corporation', short: 'Microsoft',
    ceo: 'Satya Nadella', employees: 228_000, shares: 7.43 * B, revenue: 270 * B, netMargin: 0.36, opMargin: 0.45,
    volume: 20 * M, price: 490, vol: 0.25, drift: 0.16, since: '1986-03-13', growth: 0.14,
    about: 'Microsoft makes Windows, Office and the Azure cloud platform, and owns LinkedIn, GitHub and Xbox.' }),
  stock({ ticker: 'GOOGL:NASDAQ', market: 'US', currency: 'USD', sector: COMMS, name: 'Alphabet Inc. Class A', short: 'Alphabet',
    ceo: 'Sundar Pichai', employees: 183_000, shares: 12.1 * B, revenue: 360 * B, netMargin: 0.30, opMargin: 0.32,
    volume: 30 * M, price: 178, vol: 0.30, drift: 0.15, since: '2004-08-19', growth: 0.12,
    about: 'Alphabet is the parent of Google, running Search, YouTube, Android and Google Cloud.' }),
  stock({ ticker: 'AMZN:NASDAQ', market: 'US', currency: 'USD', sector: CYCLICAL, name: 'Amazon.com, Inc.', short: 'Amazon',
    ceo: 'Andy Jassy', employees: 1_556_000, shares: 10.6 * B, revenue: 650 * B, netMargin: 0.10, opMargin: 0.11,
    volume: 40 * M, price: 220, vol: 0.32, drift: 0.2, since: '1997-05-15', growth: 0.1,
    about: 'Amazon runs the largest online store in the world and the Amazon Web Services cloud.' }),
  stock({ ticker: 'NVDA:NASDAQ', market: 'US', currency: 'USD', sector: TECH, name: 'NVIDIA Corporation', short: 'Nvidia',
    ceo: 'Jensen Huang', employees: 36_000, shares: 24.4 * B, revenue: 150 * B, netMargin: 0.55, opMargin: 0.61,
    volume: 220 * M, price: 155, vol: 0.50, drift: 0.25, since: '1999-01-22', growth: 0.5,
    about: 'NVIDIA designs graphics processors and accelerated-computing platforms for gaming, data centres and AI.' }),
  stock({ ticker: 'META:NASDAQ', market: 'US', currency: 'USD', sector: COMMS, name: 'Meta Platforms, Inc.', short: 'Meta',
    ceo: 'Mark Zuckerberg', employees: 76_000, shares: 2.51 * B, revenue: 175 * B, netMargin: 0.38, opMargin: 0.42,
    volume: 14 * M, price: 720, vol: 0.38, drift: 0.2, since: '2012-05-18', growth: 0.18,
    about: 'Meta operates Facebook, Instagram, WhatsApp and Messenger and builds Reality Labs hardware.' }),
  stock({ ticker: 'TSLA:NASDAQ', market: 'US', currency: 'USD', sector: CYCLICAL, name: 'Tesla, Inc.', short: 'Tesla',
    ceo: 'Elon Musk', employees: 125_000, shares: 3.22 * B, revenue: 95 * B, netMargin: 0.06, opMargin: 0.07,
    volume: 95 * M, price: 310, vol: 0.60, drift: 0.3, since: '2010-06-29', growth: 0.02,
    about: 'Tesla makes electric vehicles, batteries and solar and energy-storage products.' }),
  stock({ ticker: 'NFLX:NASDAQ', market: 'US', currency: 'USD', sector: COMMS, name: 'Netflix, Inc.', short: 'Netflix',
    ceo: 'Ted Sarandos', employees: 14_000, shares: 4.25 * B, revenue: 42 * B, netMargin: 0.24, opMargin: 0.29,
    volume: 35 * M, price: 120, vol: 0.35, drift: 0.25, since: '2002-05-23', growth: 0.15,
    about: 'Netflix streams films and series to paying members in more than 190 countries.' }),
  stock({ ticker: 'AMD:NASDAQ', market: 'US', currency: 'USD', sector: TECH, name: 'Advanced Micro Devices, Inc.', short: 'AMD',
    ceo: 'Lisa Su', employees: 28_000, shares: 1.62 * B, revenue: 29 * B, netMargin: 0.08, opMargin: 0.09,
    volume: 45 * M, price: 140, vol: 0.50, since: '1972-09-27', growth: 0.2,
    about: 'AMD designs CPUs, GPUs and adaptive chips for PCs, servers, consoles and embedded systems.' }),
  stock({ ticker: 'PEP:NASDAQ', market: 'US', currency: 'USD', sector: DEFENSIVE, name: 'PepsiCo, Inc.', short: 'PepsiCo',
    ceo: 'Ramon Laguarta', employees: 319_000, shares: 1.37 * B, revenue: 92 * B, netMargin: 0.10, opMargin: 0.14,
    volume: 6 * M, price: 135, vol: 0.18, since: '1972-06-01', growth: 0.02,
    about: "PepsiCo makes snacks and drinks including Pepsi, Lay's, Doritos, Gatorade and Quaker." }),
  // United States: NYSE
  stock({ ticker: 'JPM:NYSE', market: 'US', currency: 'USD', sector: FINANCIAL, name: 'JPMorgan Chase & Co.', short: 'JPMorgan',
    ceo: 'Jamie Dimon', employees: 317_000, shares: 2.78 * B, revenue: 180 * B, netMargin: 0.32, opMargin: 0.41,
    volume: 9 * M, price: 285, vol: 0.22, drift: 0.1, since: OLD,
    about: 'JPMorgan Chase is the largest US bank, spanning consumer banking, investment banking and asset management.' }),
  stock({ ticker: 'V:NYSE', market: 'US', currency: 'USD', sector: FINANCIAL, name: 'Visa Inc.', short: 'Visa',
    ceo: 'Ryan McInerney', employees: 31_600, shares: 1.95 * B, revenue: 38 * B, netMargin: 0.53, opMargin: 0.66,
    volume: 7 * M, price: 350, vol: 0.20, drift: 0.15, since: '2008-03-19', growth: 0.1,
    about: 'Visa runs a global card-payments network linking consumers, merchants and banks.' }),
  stock({ ticker: 'JNJ:NYSE', market: 'US', currency: 'USD', sector: HEALTH, name: 'Johnson & Johnson', short: 'Johnson & Johnson',
    ceo: 'Joaquin Duato', employees: 138_000, shares: 2.41 * B, revenue: 90 * B, netMargin: 0.17, opMargin: 0.25,
    volume: 8 * M, price: 155, vol: 0.16, since: OLD,
    about: 'Johnson & Johnson develops prescription medicines and medical-technology products.' }),
  stock({ ticker: 'XOM:NYSE', market: 'US', currency: 'USD', sector: ENERGY, name: 'Exxon Mobil Corporation', short: 'Exxon Mobil',
    ceo: 'Darren Woods', employees: 61_000, shares: 4.3 * B, revenue: 340 * B, netMargin: 0.10, opMargin: 0.13,
    volume: 15 * M, price: 110, vol: 0.24, since: OLD, growth: 0,
    about: 'Exxon Mobil explores for and produces oil and natural gas, refines fuels and makes chemicals.' }),
  stock({ ticker: 'KO:NYSE', market: 'US', currency: 'USD', sector: DEFENSIVE, name: 'The Coca-Cola Company', short: 'Coca-Cola',
    ceo: 'James Quincey', employees: 69_700, shares: 4.3 * B, revenue: 47 * B, netMargin: 0.23, opMargin: 0.29,
    volume: 13 * M, price: 70, vol: 0.15, since: OLD, growth: 0.03,
    about: 'Coca-Cola makes and markets drink concentrates and brands such as Coca-Cola, Sprite and Fanta.' }),
  stock({ ticker: 'DIS:NYSE', market: 'US', currency: 'USD', sector: COMMS, name: 'The Walt Disney Company', short: 'Disney',
    ceo: 'Bob Iger', employees: 233_000, shares: 1.8 * B, revenue: 93 * B, netMargin: 0.07, opMargin: 0.14,
    volume: 9 * M, price: 120, vol: 0.28, since: OLD, growth: 0.04,
    about: 'Disney runs theme parks and cruise lines, film studios, ESPN and ABC, and the Disney+ streaming service.' }),
  stock({ ticker: 'BAC:NYSE', market: 'US', currency: 'USD', sector: FINANCIAL, name: 'Bank of America Corporation', short: 'Bank of America',
    ceo: 'Brian Moynihan', employees: 213_000, shares: 7.6 * B, revenue: 102 * B, netMargin: 0.27, opMargin: 0.31,
    volume: 38 * M, price: 47, vol: 0.26, since: '1978-01-03', growth: 0.04,
    about: 'Bank of America provides consumer banking, wealth management and investment banking services.' }),
  // Türkiye: Borsa Istanbul
  stock({ ticker: 'THYAO:IST', market: 'IST', currency: 'TRY', sector: INDUSTRIALS, name: 'Türk Hava Yolları A.O.', short: 'Turkish Airlines',
    ceo: 'Ahmet Olmuştur', employees: 90_000, shares: 1.38 * B, revenue: 800 * B, netMargin: 0.15, opMargin: 0.12,
    volume: 40 * M, price: 300, vol: 0.40, drift: LIRA_DRIFT, since: '1990-12-20', growth: 0.4,
    about: 'Turkish Airlines is the flag carrier of Türkiye and flies to more countries than any other airline.' }),
  stock({ ticker: 'GARAN:IST', market: 'IST', currency: 'TRY', sector: FINANCIAL, name: 'Türkiye Garanti Bankası A.Ş.', short: 'Garanti BBVA',
    ceo: 'Mahmut Akten', employees: 18_500, shares: 4.2 * B, revenue: 300 * B, netMargin: 0.30, opMargin: 0.40,
    volume: 30 * M, price: 125, vol: 0.40, drift: LIRA_DRIFT, since: '1990-06-04', growth: 0.4,
    about: 'Garanti BBVA is one of the largest private banks in Türkiye, majority-owned by Spain’s BBVA.' }),
  stock({ ticker: 'ASELS:IST', market: 'IST', currency: 'TRY', sector: INDUSTRIALS, name: 'Aselsan Elektronik Sanayi ve Ticaret A.Ş.', short: 'Aselsan',
    ceo: 'Ahmet Akyol', employees: 11_000, shares: 4.56 * B, revenue: 130 * B, netMargin: 0.15, opMargin: 0.18,
    volume: 60 * M, price: 150, vol: 0.45, drift: LIRA_DRIFT, since: '1990-06-04', growth: 0.45,
    about: 'Aselsan is the largest defence-electronics maker in Türkiye, building radar, communications and optics.' }),
  stock({ ticker: 'BIMAS:IST', market: 'IST', currency: 'TRY', sector: DEFENSIVE, name: 'BİM Birleşik Mağazalar A.Ş.', short: 'BIM',
    ceo: 'Galip Aykaç', employees: 90_000, shares: 0.6 * B, revenue: 480 * B, netMargin: 0.04, opMargin: 0.05,
    volume: 3 * M, price: 500, vol: 0.35, drift: LIRA_DRIFT, since: '2005-07-15', growth: 0.45,
    about: 'BIM runs the largest chain of hard-discount grocery stores in Türkiye.' }),
  // Germany: Xetra
  stock({ ticker: 'SAP:ETR', market: 'ETR', currency: 'EUR', sector: TECH, name: 'SAP SE', short: 'SAP',
    ceo: 'Christian Klein', employees: 109_000, shares: 1.17 * B, revenue: 36 * B, netMargin: 0.18, opMargin: 0.26,
    volume: 1.5 * M, price: 255, vol: 0.28, drift: 0.12, since: '1988-11-04', growth: 0.1,
    about: 'SAP makes enterprise software for finance, supply chain and HR, led by its S/4HANA ERP suite.' }),
  stock({ ticker: 'SIE:ETR', market: 'ETR', currency: 'EUR', sector: INDUSTRIALS, name: 'Siemens AG', short: 'Siemens',
    ceo: 'Roland Busch', employees: 312_000, shares: 0.79 * B, revenue: 77 * B, netMargin: 0.11, opMargin: 0.13,
    volume: 1.4 * M, price: 215, vol: 0.25, since: OLD, growth: 0.03,
    about: 'Siemens is an industrial technology group in factory automation, smart infrastructure and rail.' }),
  stock({ ticker: 'ALV:ETR', market: 'ETR', currency: 'EUR', sector: FINANCIAL, name: 'Allianz SE', short: 'Allianz',
    ceo: 'Oliver Bäte', employees: 157_000, shares: 0.39 * B, revenue: 180 * B, netMargin: 0.055, opMargin: 0.09,
    volume: 0.8 * M, price: 340, vol: 0.22, since: OLD, growth: 0.04,
    about: 'Allianz is one of the largest insurers and asset managers in the world and the owner of PIMCO.' }),
  // France: Euronext Paris
  stock({ ticker: 'MC:EPA', market: 'EPA', currency: 'EUR', sector: CYCLICAL, name: 'LVMH Moët Hennessy Louis Vuitton SE', short: 'LVMH',
    ceo: 'Bernard Arnault', employees: 215_000, shares: 0.5 * B, revenue: 84 * B, netMargin: 0.15, opMargin: 0.22,
    volume: 0.5 * M, price: 480, vol: 0.30, drift: 0.12, since: '1987-06-03', growth: 0.01,
    about: 'LVMH is the largest luxury group in the world, owning Louis Vuitton, Dior, Moët & Chandon and Sephora.' }),
  stock({ ticker: 'TTE:EPA', market: 'EPA', currency: 'EUR', sector: ENERGY, name: 'TotalEnergies SE', short: 'TotalEnergies',
    ceo: 'Patrick Pouyanné', employees: 102_000, shares: 2.25 * B, revenue: 180 * B, netMargin: 0.08, opMargin: 0.13,
    volume: 5 * M, price: 53, vol: 0.22, since: '1991-10-25', growth: 0,
    about: 'TotalEnergies is an integrated energy company producing oil, gas, LNG and renewable power.' }),
  stock({ ticker: 'AIR:EPA', market: 'EPA', currency: 'EUR', sector: INDUSTRIALS, name: 'Airbus SE', short: 'Airbus',
    ceo: 'Guillaume Faury', employees: 157_000, shares: 0.79 * B, revenue: 70 * B, netMargin: 0.06, opMargin: 0.08,
    volume: 1.2 * M, price: 175, vol: 0.30, drift: 0.1, since: '2000-07-10', growth: 0.06,
    about: 'Airbus is the largest aerospace company in Europe, building airliners, helicopters and defence systems.' }),
  // United Kingdom: London Stock Exchange (quoted in pence, GBX)
  stock({ ticker: 'HSBA:LON', market: 'LON', currency: 'GBX', sector: FINANCIAL, name: 'HSBC Holdings plc', short: 'HSBC',
    ceo: 'Georges Elhedery', employees: 211_000, shares: 17.5 * B, revenue: 52 * B, netMargin: 0.34, opMargin: 0.45,
    volume: 25 * M, price: 880, vol: 0.22, drift: 0.04, since: '1992-07-10', growth: 0.02,
    about: 'HSBC is one of the largest banks in the world, headquartered in London with most of its business in Asia.' }),
  stock({ ticker: 'SHEL:LON', market: 'LON', currency: 'GBX', sector: ENERGY, name: 'Shell plc', short: 'Shell',
    ceo: 'Wael Sawan', employees: 96_000, shares: 6.0 * B, revenue: 220 * B, netMargin: 0.06, opMargin: 0.10,
    volume: 8 * M, price: 2600, vol: 0.22, drift: 0.05, since: '2005-07-20', growth: 0,
    about: 'Shell is a global energy company producing oil, gas and LNG and selling fuels, power and lubricants.' }),
  stock({ ticker: 'AZN:LON', market: 'LON', currency: 'GBX', sector: HEALTH, name: 'AstraZeneca PLC', short: 'AstraZeneca',
    ceo: 'Pascal Soriot', employees: 94_000, shares: 1.55 * B, revenue: 43 * B, netMargin: 0.14, opMargin: 0.22,
    volume: 2 * M, price: 10_500, vol: 0.22, drift: 0.1, since: '1999-04-06', growth: 0.1,
    about: 'AstraZeneca develops medicines for cancer, cardiovascular, respiratory and rare diseases.' }),
  // Japan: Tokyo Stock Exchange
  stock({ ticker: '7203:TYO', market: 'TYO', currency: 'JPY', sector: CYCLICAL, name: 'Toyota Motor Corporation', short: 'Toyota',
    ceo: 'Koji Sato', employees: 380_000, shares: 13.0 * B, revenue: 48 * T, netMargin: 0.10, opMargin: 0.10,
    volume: 25 * M, price: 2_600, vol: 0.28, since: OLD, growth: 0.04,
    about: 'Toyota is the largest carmaker in the world by volume, maker of Toyota and Lexus vehicles.' }),
  stock({ ticker: '6758:TYO', market: 'TYO', currency: 'JPY', sector: TECH, name: 'Sony Group Corporation', short: 'Sony',
    ceo: 'Hiroki Totoki', employees: 112_000, shares: 6.0 * B, revenue: 13 * T, netMargin: 0.09, opMargin: 0.11,
    volume: 12 * M, price: 3_600, vol: 0.30, drift: 0.1, since: OLD, growth: 0.05,
    about: 'Sony makes PlayStation consoles, image sensors and electronics and owns music, film and anime businesses.' }),
  // Canada: Toronto Stock Exchange
  stock({ ticker: 'RY:TSE', market: 'TSE', currency: 'CAD', sector: FINANCIAL, name: 'Royal Bank of Canada', short: 'Royal Bank of Canada',
    ceo: 'Dave McKay', employees: 98_000, shares: 1.41 * B, revenue: 62 * B, netMargin: 0.26, opMargin: 0.33,
    volume: 5 * M, price: 175, vol: 0.18, drift: 0.09, since: OLD, growth: 0.06,
    about: 'Royal Bank of Canada is the largest Canadian bank, with retail, wealth-management and capital-markets arms.' }),
  stock({ ticker: 'SHOP:TSE', market: 'TSE', currency: 'CAD', sector: TECH, name: 'Shopify Inc.', short: 'Shopify',
    ceo: 'Tobias Lütke', employees: 8_100, shares: 1.3 * B, revenue: 13 * B, netMargin: 0.20, opMargin: 0.14,
    volume: 3 * M, price: 155, vol: 0.55, drift: 0.3, since: '2015-05-21', growth: 0.25,
    about: 'Shopify provides commerce software that lets merchants run online and in-person stores.' }),

  // Indices (quoted in points; the currency is that of their constituents)
  index('.DJI:INDEXDJX', 'US_INDEX', 'USD', { name: 'Dow Jones Industrial Average', short: 'The Dow', price: 44_000, vol: 0.16, since: OLD,
    about: 'A price-weighted index of 30 prominent US blue-chip companies.' }),
  index('.INX:INDEXSP', 'US_INDEX', 'USD', { name: 'S&P 500', short: 'The S&P 500', price: 6_200, vol: 0.17, drift: 0.08, since: OLD,
    about: 'A market-cap-weighted index of 500 leading US-listed companies.' }),
  index('.IXIC:INDEXNASDAQ', 'US_INDEX', 'USD', { name: 'Nasdaq Composite', short: 'The Nasdaq', price: 20_300, vol: 0.22, drift: 0.1, since: '1971-02-05',
    about: 'An index of all common stocks listed on the Nasdaq Stock Market, weighted towards technology.' }),
  index('DAX:INDEXDB', 'ETR', 'EUR', { name: 'DAX Performance Index', short: 'The DAX', price: 24_000, vol: 0.19, drift: 0.08, since: '1988-07-01',
    about: 'Tracks the 40 largest companies listed on the Frankfurt Stock Exchange.' }),
  index('UKX:INDEXFTSE', 'LON', 'GBP', { name: 'FTSE 100 Index', short: 'The FTSE 100', price: 8_800, vol: 0.15, drift: 0.05, since: '1984-01-03',
    about: 'An index of the 100 largest companies listed on the London Stock Exchange.' }),
  index('NI225:INDEXNIKKEI', 'TYO', 'JPY', { name: 'Nikkei 225', short: 'The Nikkei', price: 40_000, vol: 0.20, drift: 0.05, since: OLD,
    about: 'A price-weighted index of 225 leading companies on the Tokyo Stock Exchange.' }),
  index('XU100:INDEXIST', 'IST', 'TRY', { name: 'BIST 100', short: 'The BIST 100', price: 10_000, vol: 0.28, drift: LIRA_DRIFT, since: '1988-01-04',
    about: 'The benchmark index of the 100 largest companies on Borsa Istanbul.' }),
  index('PX1:INDEXEURO', 'EPA', 'EUR', { name: 'CAC 40', short: 'The CAC 40', price: 7_700, vol: 0.18, drift: 0.05, since: '1987-12-31',
    about: 'The benchmark index of 40 large companies listed on Euronext Paris.' }),
  index('OSPTX:INDEXTSI', 'TSE', 'CAD', { name: 'S&P/TSX Composite Index', short: 'The TSX', price: 26_500, vol: 0.15, since: '1977-01-03',
    about: 'The benchmark index of the largest companies on the Toronto Stock Exchange.' }),

  // Exchange-traded funds (US-listed)
  etf('SPY:NYSEARCA', 60 * M, { name: 'SPDR S&P 500 ETF Trust', short: 'SPY', price: 620, vol: 0.17, drift: 0.08, since: '1993-01-29',
    about: 'Tracks the S&P 500; the oldest and most traded US-listed ETF.' }),
  etf('QQQ:NASDAQ', 40 * M, { name: 'Invesco QQQ Trust, Series 1', short: 'QQQ', price: 550, vol: 0.22, drift: 0.12, since: '1999-03-10',
    about: 'Tracks the Nasdaq-100 index of the largest non-financial companies listed on Nasdaq.' }),
  etf('VOO:NYSEARCA', 6 * M, { name: 'Vanguard S&P 500 ETF', short: 'VOO', price: 570, vol: 0.17, drift: 0.1, since: '2010-09-09',
    about: 'A low-cost Vanguard fund that tracks the S&P 500.' }),
  etf('IWM:NYSEARCA', 30 * M, { name: 'iShares Russell 2000 ETF', short: 'IWM', price: 215, vol: 0.24, since: '2000-05-26',
    about: 'Tracks the Russell 2000 index of US small-cap stocks.' }),
  etf('GLD:NYSEARCA', 9 * M, { name: 'SPDR Gold Shares', short: 'GLD', price: 305, vol: 0.15, since: '2004-11-18',
    about: 'Holds physical gold bullion and tracks the price of gold.' }),
  etf('VTI:NYSEARCA', 3.5 * M, { name: 'Vanguard Total Stock Market ETF', short: 'VTI', price: 305, vol: 0.17, drift: 0.08, since: '2001-05-31',
    about: 'Tracks the CRSP US Total Market index, which covers nearly every US-listed stock.' }),

  // Crypto (USD pairs, 24/7; volume in coins)
  crypto('BTC-USD', 350_000, 19.9 * M, { name: 'Bitcoin', short: 'Bitcoin', price: 107_000, vol: 0.55, drift: 0.5, since: '2014-09-17',
    about: 'The first decentralised cryptocurrency, with a fixed supply capped at 21 million coins.' }),
  crypto('ETH-USD', 5 * M, 120.7 * M, { name: 'Ethereum', short: 'Ethereum', price: 2_500, vol: 0.70, drift: 0.35, since: '2017-11-09',
    about: 'The native currency of Ethereum, a programmable blockchain for smart contracts and decentralised apps.' }),
  crypto('SOL-USD', 25 * M, 530 * M, { name: 'Solana', short: 'Solana', price: 155, vol: 0.85, since: '2020-04-10',
    about: 'The native token of Solana, a high-throughput proof-of-stake blockchain.' }),
  crypto('XRP-USD', 2.5 * B, 59 * B, { name: 'XRP', short: 'XRP', price: 2.25, vol: 0.80, since: '2017-11-09', decimals: 4,
    about: 'The native token of the XRP Ledger, designed for fast cross-border payments.' }),
  crypto('DOGE-USD', 8 * B, 150 * B, { name: 'Dogecoin', short: 'Dogecoin', price: 0.18, vol: 0.90, since: '2017-11-09', decimals: 4,
    about: 'A cryptocurrency that began as a joke based on the Doge meme and became one of the most traded coins.' }),
  crypto('ADA-USD', 1 * B, 36 * B, { name: 'Cardano', short: 'Cardano', price: 0.62, vol: 0.85, since: '2017-11-09', decimals: 4,
    about: 'The native token of Cardano, a proof-of-stake blockchain developed with peer-reviewed research.' }),

  // Currency pairs (24/5)
  fx('EUR-USD', { name: 'Euro / U.S. Dollar', short: 'The euro', price: 1.17, vol: 0.07, since: '1999-01-04',
    about: 'The exchange rate of the euro in U.S. dollars, the most traded currency pair in the world.' }),
  fx('USD-JPY', { name: 'U.S. Dollar / Japanese Yen', short: 'The dollar-yen rate', price: 144, vol: 0.10, since: '1971-01-04',
    about: 'The exchange rate of the U.S. dollar in Japanese yen.' }),
  fx('GBP-USD', { name: 'British Pound / U.S. Dollar', short: 'Sterling', price: 1.37, vol: 0.08, since: '1971-01-04',
    about: 'The exchange rate of the pound sterling in U.S. dollars, known as "cable".' }),
  fx('USD-TRY', { name: 'U.S. Dollar / Turkish Lira', short: 'The lira', price: 39.8, vol: 0.12, drift: 0.25, since: '2005-01-03',
    about: 'The exchange rate of the U.S. dollar in Turkish lira.' }),
  fx('EUR-TRY', { name: 'Euro / Turkish Lira', short: 'The euro-lira rate', price: 46.7, vol: 0.13, drift: 0.25, since: '2005-01-03',
    about: 'The exchange rate of the euro in Turkish lira.' }),
  fx('USD-CAD', { name: 'U.S. Dollar / Canadian Dollar', short: 'The loonie', price: 1.36, vol: 0.06, since: '1971-01-04',
    about: 'The exchange rate of the U.S. dollar in Canadian dollars.' }),
  fx('USD-CHF', { name: 'U.S. Dollar / Swiss Franc', short: 'The Swiss franc', price: 0.80, vol: 0.08, since: '1971-01-04',
    about: 'The exchange rate of the U.S. dollar in Swiss francs.' }),
];

const BY_TICKER = new Map(CATALOG.map((i) => [i.ticker, i]));

export function findInstrument(ticker: Ticker): Instrument | null {
  return BY_TICKER.get(ticker) ?? null;
}

export const SIMULATED_TICKERS: readonly Ticker[] = Object.freeze(CATALOG.map((i) => i.ticker));
