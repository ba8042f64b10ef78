import { autoWorkerCount } from './answer-workers';

test('DNS_WORKERS=auto: none below 4 cores, one per core but one from 4 up', () => {
  expect([1, 2, 3, 4, 8, 64].map((cores) => autoWorkerCount(cores))).toEqual([0, 0, 0, 3, 7, 63]);
});
