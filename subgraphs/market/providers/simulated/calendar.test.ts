import fc from 'fast-check';
import { addMonths, civilFromDays, daysFromCivil, formatDay, mondayOf, weekdayOf } from './calendar';
import { isTradingDay, MARKETS, tradingOrdinal } from './sessions';
import { formatInZone, offsetMinutes, utcFromLocal } from './timezones';
import { DAY, localTime, MINUTE } from './testing/index';

const dayArb = fc.integer({ min: -3000, max: 30000 });
const ZONES = [
  'America/New_York',
  'Europe/Istanbul',
  'Europe/London',
  'Europe/Berlin',
  'Europe/Paris',
  'Asia/Tokyo',
  'America/Toronto',
  'UTC',
];

describe('calendar arithmetic', () => {
  test('day numbers agree with Date for dates and weekdays', () => {
    fc.assert(
      fc.property(dayArb, (days) => {
        const d = new Date(days * DAY);
        expect(civilFromDays(days)).toEqual({
          year: d.getUTCFullYear(),
          month: d.getUTCMonth() + 1,
          day: d.getUTCDate(),
        });
        expect(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())).toBe(days);
        expect(weekdayOf(days)).toBe(d.getUTCDay());
        expect(formatDay(days)).toBe(d.toISOString().slice(0, 10));
        expect(weekdayOf(mondayOf(days))).toBe(1);
        expect(days - mondayOf(days)).toBeLessThan(7);
      }),
      { numRuns: 500 },
    );
  });

  test('addMonths clamps to the end of shorter months', () => {
    expect(formatDay(addMonths(daysFromCivil(2025, 3, 31), -1))).toBe('2025-02-28');
    expect(formatDay(addMonths(daysFromCivil(2024, 3, 31), -1))).toBe('2024-02-29');
    expect(formatDay(addMonths(daysFromCivil(2025, 1, 15), -12))).toBe('2024-01-15');
    expect(formatDay(addMonths(daysFromCivil(2025, 1, 31), 1))).toBe('2025-02-28');
  });
});

describe('time zones', () => {
  test('offsets, local dates and formatted times agree with Intl, across DST changes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1975, 0, 1), max: Date.UTC(2030, 0, 1) }),
        fc.constantFrom(...ZONES),
        (t, zone) => {
          const lt = localTime(zone, t);
          const local = t + offsetMinutes(zone, t) * MINUTE;
          expect(new Date(local).toISOString().slice(0, 10)).toBe(lt.date);
          expect(Math.floor((local % DAY) / MINUTE)).toBe(lt.minutes);
          const text = formatInZone(zone, t);
          expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
          expect(Date.parse(text)).toBe(Math.floor(t / 1000) * 1000);
        },
      ),
      { numRuns: 800 },
    );
  });

  test('utcFromLocal inverts local wall time (away from DST gaps)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2000, max: 22000 }),
        fc.integer({ min: 4 * 60, max: 23 * 60 }),
        fc.constantFrom(...ZONES),
        (day, minute, zone) => {
          const t = utcFromLocal(zone, day, minute);
          const lt = localTime(zone, t);
          expect(lt.date).toBe(formatDay(day));
          expect(lt.minutes).toBe(minute);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('the Spring 2025 US DST change moves the New York open from 14:30 to 13:30 UTC', () => {
    expect(new Date(utcFromLocal('America/New_York', daysFromCivil(2025, 3, 7), 570)).toISOString()).toBe(
      '2025-03-07T14:30:00.000Z',
    );
    expect(new Date(utcFromLocal('America/New_York', daysFromCivil(2025, 3, 10), 570)).toISOString()).toBe(
      '2025-03-10T13:30:00.000Z',
    );
    // On the change days themselves, a few hours after the switch.
    expect(new Date(utcFromLocal('America/New_York', daysFromCivil(2025, 3, 9), 4 * 60)).toISOString()).toBe(
      '2025-03-09T08:00:00.000Z',
    );
    expect(new Date(utcFromLocal('America/New_York', daysFromCivil(2025, 11, 2), 4 * 60)).toISOString()).toBe(
      '2025-11-02T09:00:00.000Z',
    );
    expect(new Date(utcFromLocal('Europe/Berlin', daysFromCivil(2025, 10, 26), 4 * 60)).toISOString()).toBe(
      '2025-10-26T03:00:00.000Z',
    );
  });
});

describe('trading-day ordinals', () => {
  test('count exactly the trading days (Monday–Friday; every day for crypto)', () => {
    fc.assert(
      fc.property(dayArb, fc.constantFrom(...Object.values(MARKETS)), (day, market) => {
        const weekday = new Date(day * DAY).getUTCDay();
        const trades = market.id === 'CRYPTO' || (weekday >= 1 && weekday <= 5);
        expect(isTradingDay(market, day)).toBe(trades);
        expect(tradingOrdinal(market, day + 1) - tradingOrdinal(market, day)).toBe(trades ? 1 : 0);
        expect(tradingOrdinal(market, day + 7) - tradingOrdinal(market, day)).toBe(market.id === 'CRYPTO' ? 7 : 5);
      }),
      { numRuns: 500 },
    );
    expect(tradingOrdinal(MARKETS.US, 0)).toBe(0);
  });
});
