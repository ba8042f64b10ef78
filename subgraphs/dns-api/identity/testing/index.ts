/** Test helpers for the identity library (used by its tests only). */
import { KeyVault } from '../../../../dns/dnssec';
import { IdentityError, type AuthFailure, type IdentityErrorCode } from '../errors';

/** One master key for every identity of a test (as replicas share theirs), so one opens what another sealed. */
export const TEST_VAULT = KeyVault.of(Buffer.alloc(32, 7));

/** A clock the test moves by hand. */
export class TestClock {
  private t: number;
  constructor(iso: string) {
    this.t = Date.parse(iso);
  }
  readonly now = (): Date => new Date(this.t);
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  tick(ms: number): void {
    this.t += ms;
  }
}

export interface ExpectedError {
  field?: string;
  reason?: AuthFailure;
  message?: string | RegExp;
}

/** Awaits `promise`, which must reject with an IdentityError of `code` (and the field, reason, message given). */
export async function expectIdentityError(
  promise: Promise<unknown>,
  code: IdentityErrorCode,
  expected: ExpectedError = {},
): Promise<IdentityError> {
  let outcome: { resolved: true } | { resolved: false; err: unknown };
  try {
    await promise;
    outcome = { resolved: true };
  } catch (err) {
    outcome = { resolved: false, err };
  }
  if (outcome.resolved) throw new Error(`expected an IdentityError ${code}, but the call succeeded`);
  const err = outcome.err;
  if (!(err instanceof IdentityError)) throw new Error(`expected an IdentityError ${code}, got ${String(err)}`);
  const seen = { code: err.code, field: err.field, reason: err.reason, message: err.message };
  const want: Record<string, unknown> = { code };
  want.field = expected.field ?? (code === 'INVALID' ? expect.any(String) : undefined);
  want.reason = expected.reason ?? (code === 'UNAUTHENTICATED' ? expect.any(String) : undefined);
  want.message =
    expected.message === undefined
      ? expect.any(String)
      : typeof expected.message === 'string'
        ? expected.message
        : expect.stringMatching(expected.message);
  expect(seen).toEqual(want);
  return err;
}
