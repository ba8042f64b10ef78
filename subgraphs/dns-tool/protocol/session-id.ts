/** A session id as the tool issues them (anything else is not looked up, nor read from the cookie). */
export function isSessionId(id: string): boolean {
  return /^[0-9a-f]{32}$/.test(id);
}

/** The session cookie of the original tool. */
export const SESSION_COOKIE = 'dnsphpadmin';
