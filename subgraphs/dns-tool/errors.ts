import { GraphQLError } from 'graphql';
import type { ErrorCode } from '../errors';
import { ToolError, toolErrorBody } from './protocol';

function codeOf(err: ToolError): ErrorCode {
  if (err.badInput) return 'BAD_USER_INPUT';
  // A login refused for any reason (the session limit included) leaves the caller unauthenticated.
  if (err.error === 'Not authenticated' || err.error === 'Login failed' || err.loginFailure) return 'UNAUTHENTICATED';
  if (err.error === 'Permission denied' || err.error.startsWith('Unable to write')) return 'FORBIDDEN';
  if (err.error === 'No such zone') return 'NOT_FOUND';
  if (err.error.startsWith('ERROR: ')) return 'UPSTREAM_UNAVAILABLE';
  return 'BAD_USER_INPUT';
}

/** A tool error as a GraphQL error: the graph's code, and the original's error, message and code beside it. */
export function toolGraphQLError(err: ToolError): GraphQLError {
  const field = err.badInput ? { field: err.badInput.field } : {};
  return new GraphQLError(err.badInput?.message ?? err.message, {
    extensions: { code: codeOf(err), ...field, tool: toolErrorBody(err) },
  });
}

/** Runs a resolver's work; tool errors become GraphQL errors with the original's body in extensions.tool. */
export async function asTool<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ToolError) throw toolGraphQLError(err);
    throw err;
  }
}
