import { randomBytes } from 'node:crypto';

export type AuditOperation = 'login_success' | 'login_fail' | 'create' | 'delete' | 'replace_delete' | 'replace_create';

/** PHP's date('m/d/Y h:i:s a') in UTC: 11/24/2026 01:05:09 am. */
function phpDate(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const h = at.getUTCHours();
  return (
    `${two(at.getUTCMonth() + 1)}/${two(at.getUTCDate())}/${at.getUTCFullYear()} ` +
    `${two(h % 12 === 0 ? 12 : h % 12)}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())} ${h < 12 ? 'am' : 'pm'}`
  );
}

/** An event id: 16 hex digits, one per request, so the lines of one request can be found together. */
export function eventId(): string {
  return randomBytes(8).toString('hex');
}

/**
 * One audit line as the original writes it: `m/d/Y h:i:s a entry point: api.php eid: <16 hex> user: <u> ip: <addr>
 * operation: <op>[ record: <text>][ comment: <c>]`. Newlines in values are flattened so one line stays one event.
 */
export function auditLine(e: {
  at: Date;
  eid: string;
  user: string;
  ip: string;
  operation: AuditOperation;
  record?: string;
  comment?: string;
}): string {
  const flat = (s: string) => s.replace(/[\r\n]+/g, ' ');
  return (
    `${phpDate(e.at)} entry point: api.php eid: ${e.eid} user: ${flat(e.user)} ip: ${flat(e.ip)} operation: ${e.operation}` +
    (e.record === undefined ? '' : ` record: ${flat(e.record)}`) +
    (e.comment === undefined ? '' : ` comment: ${flat(e.comment)}`)
  );
}
