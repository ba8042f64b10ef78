import { ConnectionLimiter } from './connection-limits';

describe('ConnectionLimiter', () => {
  test('refuses past the total limit, naming it, and frees a slot on release (once)', () => {
    const limiter = new ConnectionLimiter({ maxConnections: 2, maxConnectionsPerClient: 10 });
    const a = limiter.tryOpen('10.0.0.1');
    const b = limiter.tryOpen('10.0.0.2');
    expect('release' in a && 'release' in b).toBe(true);
    const c = limiter.tryOpen('10.0.0.3');
    expect(c).toEqual({
      refused: {
        limit: 'liveMaxConnections',
        message: 'too many live connections: at most 2 are served at once (liveMaxConnections)',
      },
    });
    if ('release' in a) {
      a.release();
      a.release(); // idempotent: must not free a second slot
    }
    expect(limiter.open).toBe(1);
    expect('release' in limiter.tryOpen('10.0.0.3')).toBe(true);
    expect('refused' in limiter.tryOpen('10.0.0.4')).toBe(true);
  });

  test('refuses past the per-client limit for that address only', () => {
    const limiter = new ConnectionLimiter({ maxConnections: 100, maxConnectionsPerClient: 1 });
    const first = limiter.tryOpen('10.0.0.1');
    expect(limiter.tryOpen('10.0.0.1')).toEqual({
      refused: {
        limit: 'liveMaxConnectionsPerClient',
        message: 'too many live connections from 10.0.0.1: at most 1 per client address (liveMaxConnectionsPerClient)',
      },
    });
    expect('release' in limiter.tryOpen('10.0.0.2')).toBe(true);
    expect(limiter.clients).toBe(2);
    if ('release' in first) first.release();
    expect(limiter.clients).toBe(1);
  });
});
