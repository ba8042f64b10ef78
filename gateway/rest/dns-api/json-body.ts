import type { FastifyInstance } from 'fastify';
import { RestError } from '../errors';

/**
 * The DNS API's request bodies (its Fastify scope only; /graphql, /v1 and /api.php keep their own parsers):
 * - `application/json` and any `…/…+json` type are parsed as JSON; an empty one is no body (the route decides: a
 *   DELETE or a rotate takes none, a create answers 400 "the request body is empty"), as common clients send a
 *   JSON content-type on every request;
 * - a key `__proto__` (or `constructor` holding `prototype`) is a 400 naming the forbidden key, not "malformed";
 * - any other content-type with a body is a 415.
 * Fastify's body limit applies to all of them (413).
 */
export function registerJsonBodyParser(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, (_req, text, done) => {
    try {
      done(null, parseJsonBody(String(text)));
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)), undefined);
    }
  });
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, raw, done) => {
    if (raw.length === 0) return done(null, undefined);
    done(new RestError(415, 'unsupported content-type: send the body as application/json'), undefined);
  });
}

/** `application/json` or a structured-syntax `+json` type (RFC 6839), parameters allowed (Fastify's form). */
export const JSON_TYPE = /^(?:application\/json|[^/;\s]+\/[^/;\s]+\+json)(?:;|$)/;

/** A JSON body; undefined when empty (or only white space). Throws a RestError 400 saying what is wrong. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RestError(400, 'malformed JSON: the request body is not valid JSON');
  }
  const forbidden = forbiddenKey(value);
  if (forbidden)
    throw new RestError(400, `the request body has the key ${forbidden}, which is not allowed (a forbidden key)`);
  return value;
}

const has = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/**
 * The first key that could reach an object's prototype once the body is copied or merged: `__proto__`, or
 * `constructor` holding `prototype` (what Fastify's own parser refuses). Iterative: a deeply nested body cannot
 * overflow the stack.
 */
function forbiddenKey(root: unknown): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (!Array.isArray(value)) {
      if (has(value, '__proto__')) return '"__proto__"';
      const ctor: unknown = (value as Record<string, unknown>).constructor;
      if (has(value, 'constructor') && ctor !== null && typeof ctor === 'object' && has(ctor, 'prototype'))
        return '"constructor" with "prototype"';
    }
    for (const child of Object.values(value)) stack.push(child);
  }
  return undefined;
}
