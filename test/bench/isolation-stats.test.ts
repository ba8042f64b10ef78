import { LatencyHistogram, missedTargets, Silence, wallLine, type WindowStats } from './isolation-stats';

describe('LatencyHistogram', () => {
  it('gives quantiles within 2 % of the exact ones, and the exact largest', () => {
    const h = new LatencyHistogram();
    const values = Array.from({ length: 1000 }, (_, i) => (i + 1) * 0.37); // 0.37 ms … 370 ms
    for (const v of [...values].reverse()) h.record(v);
    const exact = (q: number): number => values[Math.ceil(q * values.length) - 1] ?? NaN;
    for (const q of [0.01, 0.5, 0.9, 0.99]) {
      expect(Math.abs(h.quantile(q) - exact(q)) / exact(q)).toBeLessThan(0.02);
    }
    expect(h.quantile(1)).toBe(370);
    expect(h.max).toBe(370);
    expect(h.count).toBe(1000);
  });

  it('is exact below 128 µs and NaN when empty', () => {
    const h = new LatencyHistogram();
    expect(h.quantile(0.5)).toBeNaN();
    h.record(0.05);
    h.record(0.1);
    expect(h.quantile(0.5)).toBe(0.05);
    expect(h.quantile(0.99)).toBe(0.1);
  });

  it('keeps values beyond its range in its last bucket', () => {
    const h = new LatencyHistogram();
    h.record(1e9);
    expect(h.quantile(0.5)).toBe(1e9);
  });
});

describe('Silence', () => {
  it('is the largest gap between answers, the window edges included', () => {
    const s = new Silence(100);
    for (const at of [101, 102, 150, 151]) s.answer(at);
    expect(s.close(160)).toBe(48);
  });

  it('counts the wait for the first answer and after the last', () => {
    expect(new Silence(0).close(2000)).toBe(2000);
    const late = new Silence(0);
    late.answer(1);
    expect(late.close(500)).toBe(499);
  });
});

describe('missedTargets', () => {
  const window: WindowStats = {
    label: 'x',
    ms: 1000,
    sent: 2000,
    answered: 2000,
    lost: 0,
    late: 0,
    errors: 0,
    mismatched: 0,
    p50: 0.2,
    p99: 4,
    max: 9,
    silence: 5,
    skipped: 0,
  };

  it('names each target missed', () => {
    expect(missedTargets(window, 1.2)).toEqual([]);
    expect(missedTargets({ ...window, lost: 3, p99: 12, errors: 1 }, 2)).toEqual([
      'lost 3 > 0',
      '1 error answers',
      'p99 12 ms > 10 ms',
      'RSS ×2.00 > ×1.5',
    ]);
  });

  it('counts a window without answers as missing the latency target', () => {
    expect(missedTargets({ ...window, answered: 0, lost: 2000, p99: NaN })).toEqual(['lost 2000 > 0', 'p99 — > 10 ms']);
  });
});

describe('wallLine', () => {
  it('gives ours/reference, and a dash where a time is missing', () => {
    expect(wallLine('import', 3000, 'PowerDNS', 6000)).toMatch(/ours +3\.00 s +PowerDNS +6\.00 s +ratio 0\.500 /);
    expect(wallLine('import', NaN, 'PowerDNS', 6000)).toMatch(/ours +— +PowerDNS +6\.00 s +ratio — /);
  });
});
