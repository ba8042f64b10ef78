import { auditLine, eventId } from './audit';

describe('audit lines', () => {
  test('the original format, 12-hour clock, optional record and comment, one line each', () => {
    const at = new Date('2026-11-24T13:05:09Z');
    expect(
      auditLine({
        at,
        eid: '0123456789abcdef',
        user: 'ops',
        ip: '192.0.2.7',
        operation: 'create',
        record: 'www.example.test 60 A 192.0.2.1',
        comment: 'new\nweb',
      }),
    ).toBe(
      '11/24/2026 01:05:09 pm entry point: api.php eid: 0123456789abcdef user: ops ip: 192.0.2.7 operation: create record: www.example.test 60 A 192.0.2.1 comment: new web',
    );
    expect(
      auditLine({ at: new Date('2026-01-02T00:00:00Z'), eid: 'x', user: 'u', ip: '::1', operation: 'login_success' }),
    ).toBe('01/02/2026 12:00:00 am entry point: api.php eid: x user: u ip: ::1 operation: login_success');
    expect(eventId()).toMatch(/^[0-9a-f]{16}$/);
    expect(eventId()).not.toBe(eventId());
  });
});
