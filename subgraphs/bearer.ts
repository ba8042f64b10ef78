/**
 * The credential of an `Authorization: Bearer <credential>` header (RFC 6750 §2.1; the scheme in any case), or
 * undefined for any other header. Each subgraph decides what the credential may be (docs/design.md, "Identity").
 */
export function bearerCredential(authorization: string | undefined): string | undefined {
  return /^[ \t]*bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
}
