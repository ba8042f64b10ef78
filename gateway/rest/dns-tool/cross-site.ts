import type { IncomingHttpHeaders } from 'node:http';

/**
 * Where a request comes from, as far as a browser tells: `own` (the tool's own origin, or the user typing the URL),
 * `foreign` (another origin: another site, or another port or subdomain of the same site), or `no-browser` (neither
 * Origin nor Sec-Fetch-Site: curl, Ansible, scripts — nothing a page can make a victim's browser send).
 */
export type RequestOrigin = 'own' | 'foreign' | 'no-browser';

/** Sec-Fetch-Site values that say a browser sent the request on behalf of the tool's own origin or its user. */
const OWN_FETCH_SITES: ReadonlySet<string> = new Set(['same-origin', 'none']);

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The scheme the client used: https when the socket is TLS or the proxy in front says so (X-Forwarded-Proto). The
 * header is believed from any peer: it can only make the cookie Secure and the tool's own origin https, and a page
 * cannot add it to a request that carries the cookie (a custom header needs a CORS preflight, which credentials fail).
 */
export function requestScheme(encrypted: boolean, forwardedProto: string | string[] | undefined): 'http' | 'https' {
  if (encrypted) return 'https';
  const first = single(forwardedProto)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https' ? 'https' : 'http';
}

/** The origin of scheme and Host header, serialized as browsers write Origin (default port left out); null if none. */
function ownOrigin(scheme: string, host: string | undefined): string | null {
  if (!host) return null;
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return null;
  }
}

/** Whether an Origin header names `own` (`null`, and anything that is no origin, is foreign). */
function sameOrigin(origin: string, own: string | null): boolean {
  if (own === null) return false;
  try {
    return new URL(origin).origin === own;
  } catch {
    return false;
  }
}

/**
 * Classifies a request by Sec-Fetch-Site and Origin. A `same-site` request is foreign too: another port or
 * subdomain is another origin, and SameSite cookies travel to it.
 */
export function requestOrigin(headers: IncomingHttpHeaders, scheme: 'http' | 'https'): RequestOrigin {
  const fetchSite = single(headers['sec-fetch-site'])?.trim().toLowerCase();
  const origin = single(headers.origin);
  if (fetchSite === undefined && origin === undefined) return 'no-browser';
  if (fetchSite !== undefined && !OWN_FETCH_SITES.has(fetchSite)) return 'foreign';
  if (origin !== undefined && !sameOrigin(origin.trim(), ownOrigin(scheme, headers.host))) return 'foreign';
  return 'own';
}
