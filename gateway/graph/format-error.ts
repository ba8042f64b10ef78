import type { GraphQLFormattedError } from 'graphql';

/** Only what a client should see of an error: message, location, path and the documented extensions. */
export function formatError(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const ext = formatted.extensions ?? {};
  const extensions: Record<string, unknown> = { code: ext.code ?? 'INTERNAL_SERVER_ERROR' };
  // `tool`: the DNS tool's own error, message and code, which /api.php answers with exactly.
  for (const k of ['field', 'serviceName', 'limit', 'errors', 'retryAfter', 'tool'])
    if (ext[k] !== undefined) extensions[k] = ext[k];
  return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions };
}
