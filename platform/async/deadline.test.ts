import { DeadlineError, withDeadline } from './deadline';

describe('withDeadline', () => {
  test('gives the value or the failure of a promise that settles in time', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, 'late')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('broken')), 1000, 'late')).rejects.toThrow('broken');
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a library may reject with a string
    await expect(withDeadline(Promise.reject('text'), 1000, 'late')).rejects.toThrow('text');
  });

  test('fails with DeadlineError and the message once the time is up; a late result is dropped', async () => {
    let finish: (v: number) => void = () => {};
    const slow = new Promise<number>((resolve) => (finish = resolve));
    const bounded = withDeadline(slow, 20, 'the store did not answer within 20 ms');
    await expect(bounded).rejects.toThrow(new DeadlineError('the store did not answer within 20 ms'));
    await expect(bounded).rejects.toBeInstanceOf(DeadlineError);
    finish(1);
    await expect(slow).resolves.toBe(1);
  });
});
