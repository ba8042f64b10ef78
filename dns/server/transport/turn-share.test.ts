/** Long answers sharing each turn of the loop: together no more than the budget (plus the slice that crossed it). */
import { performance } from 'node:perf_hooks';
import { TurnShare } from './turn-share';

const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

it('lets many holders run at most the budget per turn together, in turn, and every one to its end', async () => {
  const share = new TurnShare(2);
  // the turns of the loop, counted by a ticker: the slices run within one turn keep a query waiting meanwhile
  let ticking = true;
  let turn = 0;
  const tick = (): void => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const order: number[] = [];
  const turns: number[] = [];
  const holder = async (id: number, slices: number): Promise<void> => {
    let holding = false;
    for (let i = 0; i < slices; i++) {
      await share.next(holding);
      holding = true;
      order.push(id);
      turns.push(turn);
      busy(0.5);
    }
    share.release();
  };
  const holders = Array.from({ length: 10 }, (_, id) => holder(id, 10));
  await Promise.all(holders);
  ticking = false;
  expect(order).toHaveLength(100);
  // 50 ms of work in all. Ten holders yielding each on their own would run all ten slices in every turn (5 ms);
  // sharing, a turn runs slices until the 2 ms budget is crossed: at most 2 / 0.5 + 1 of them. Counted in slices,
  // not measured in time, so a busy machine (slower slices) can only make fewer per turn.
  const perTurn = new Map<number, number>();
  for (const t of turns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
  expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(5);
  expect(perTurn.size).toBeGreaterThanOrEqual(100 / 5);
  // in turn: no holder runs twice while another waits
  for (let i = 0; i + 9 < 100; i += 10) expect(new Set(order.slice(i, i + 10)).size).toBe(10);
});

it('a holder that releases (waiting for its socket) lets the others go on at once', async () => {
  const share = new TurnShare(1000);
  const order: string[] = [];
  await share.next(false);
  const other = share.next(false).then(() => order.push('other'));
  order.push('first');
  share.release();
  await other;
  expect(order).toEqual(['first', 'other']);
  share.release();
});
