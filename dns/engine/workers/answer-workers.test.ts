import { autoWorkerCount } from './answer-workers';
import { boundedSender } from './answer-worker-protocol';

test('DNS_WORKERS=auto: none below 4 cores, one per core but one from 4 up', () => {
  expect([1, 2, 3, 4, 8, 64].map((cores) => autoWorkerCount(cores))).toEqual([0, 0, 0, 3, 7, 63]);
});

describe('boundedSender: what a worker hands to the primary', () => {
  it('drops messages past the bound until the channel has written some, and counts each written once', () => {
    const written: Array<() => void> = [];
    const send = boundedSender<number>((_, done) => written.push(done), 3);
    expect([1, 2, 3, 4, 5].map(send)).toEqual([true, true, true, false, false]);
    expect(written).toHaveLength(3);
    written[0]?.();
    written[0]?.(); // a second call for the same message frees nothing more
    expect([6, 7].map(send)).toEqual([true, false]);
    for (const done of written.splice(0)) done();
    expect([8, 9, 10, 11].map(send)).toEqual([true, true, true, false]);
  });

  it('lets every message through when the channel writes them at once', () => {
    const send = boundedSender<number>((_, done) => done(), 1);
    expect(Array.from({ length: 2000 }, (_, i) => send(i)).every(Boolean)).toBe(true);
  });
});
