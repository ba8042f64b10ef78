/** The transaction loop against a fake pool: commit, rollback, retries of serialization failures, giving up. */
import { MAX_TRANSACTION_ATTEMPTS, inTransaction, type TransactionClient } from './transaction';

class FakeClient implements TransactionClient {
  readonly sql: string[] = [];
  released?: boolean;
  constructor(private readonly failRollback = false) {}
  async query(sql: string): Promise<unknown> {
    this.sql.push(sql);
    if (sql === 'ROLLBACK' && this.failRollback) throw new Error('connection lost');
    return {};
  }
  release(destroy?: boolean): void {
    this.released = destroy === true;
  }
}

function fakePool(failRollback = false) {
  const clients: FakeClient[] = [];
  return {
    clients,
    connect: async () => {
      const c = new FakeClient(failRollback);
      clients.push(c);
      return c;
    },
  };
}

const pgError = (code: string, message = `error ${code}`) => Object.assign(new Error(message), { code });
const wrap = (err: unknown) => ({ mapped: err });

test('commits what resolves, on one client, released intact', async () => {
  const pool = fakePool();
  await expect(inTransaction(pool, async () => 42, { mapError: wrap })).resolves.toBe(42);
  expect(pool.clients.map((c) => c.sql)).toEqual([['BEGIN', 'COMMIT']]);
  expect(pool.clients[0]!.released).toBe(false);
});

test('a serialization failure is run again on a fresh client, and the retry can succeed', async () => {
  const pool = fakePool();
  let calls = 0;
  const result = await inTransaction(
    pool,
    async () => {
      if (++calls === 1) throw pgError('40001');
      return 'second time';
    },
    { mapError: wrap },
  );
  expect(result).toBe('second time');
  expect(pool.clients.map((c) => c.sql)).toEqual([
    ['BEGIN', 'ROLLBACK'],
    ['BEGIN', 'COMMIT'],
  ]);
});

test.each(['40001', '40P01'])('%s on every attempt: given up after 3 attempts with that same error', async (code) => {
  const pool = fakePool();
  const failure = pgError(code);
  const mapError = jest.fn(wrap);
  await expect(
    inTransaction(
      pool,
      async () => {
        throw failure;
      },
      { mapError },
    ),
  ).rejects.toEqual({ mapped: failure });
  expect(MAX_TRANSACTION_ATTEMPTS).toBe(3);
  expect(pool.clients).toHaveLength(3);
  for (const c of pool.clients) expect(c.sql).toEqual(['BEGIN', 'ROLLBACK']);
  expect(mapError).toHaveBeenCalledTimes(1);
  expect(mapError.mock.calls[0]![0]).toBe(failure);
});

test('any other error is not retried', async () => {
  const pool = fakePool();
  const failure = pgError('23505');
  await expect(
    inTransaction(
      pool,
      async () => {
        throw failure;
      },
      { mapError: wrap },
    ),
  ).rejects.toEqual({ mapped: failure });
  expect(pool.clients).toHaveLength(1);
});

test('a client whose ROLLBACK fails is dropped from the pool', async () => {
  const pool = fakePool(true);
  await expect(
    inTransaction(
      pool,
      async () => {
        throw new Error('boom');
      },
      { mapError: wrap },
    ),
  ).rejects.toEqual({ mapped: expect.objectContaining({ message: 'boom' }) });
  expect(pool.clients[0]!.released).toBe(true);
});

test('beforeAttempt runs before each attempt and stops the loop by throwing; connect errors are mapped', async () => {
  const pool = fakePool();
  let attempts = 0;
  const closed = new Error('closed');
  await expect(
    inTransaction(
      pool,
      async () => {
        throw pgError('40P01');
      },
      {
        mapError: wrap,
        beforeAttempt: () => {
          if (++attempts === 2) throw closed;
        },
      },
    ),
  ).rejects.toBe(closed);
  expect(pool.clients).toHaveLength(1);
  const refused = pgError('ECONNREFUSED');
  const unreachable = {
    connect: async (): Promise<FakeClient> => {
      throw refused;
    },
  };
  await expect(inTransaction(unreachable, async () => 1, { mapError: wrap })).rejects.toEqual({ mapped: refused });
});
