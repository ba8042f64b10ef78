import type { IncrementalFormat, Payload } from './incremental-formats';

/**
 * Incremental delivery over HTTP as Apollo Router and Apollo Server write it (`multipart/mixed`, boundary `-`), which
 * Apollo Client, GraphiQL and meros read: each part is a JSON payload with its own content-type, a delimiter follows
 * every part at once (a reader needs nothing more to take it), and the last delimiter closes the body. The payloads
 * are in the format the client asked for (incremental-formats.ts), named in the content type.
 */

export function multipartContentType(format: IncrementalFormat): string {
  return `multipart/mixed;boundary="-";${format}`;
}

const PART_HEADERS = 'content-type: application/json; charset=utf-8\r\n\r\n';
const DELIMITER = '\r\n---\r\n';
const CLOSE = '\r\n-----\r\n';

/**
 * The incremental format an Accept header takes, if any: of its `multipart/mixed` ranges (q above 0) the one with
 * the highest q, the first of equals. `incrementalSpec=v0.2` is graphql-js 17's format (Apollo Client's
 * GraphQL17Alpha9Handler sends it); `deferSpec=20220824` or no spec at all (Apollo Client's Defer20220824Handler,
 * GraphiQL's `multipart/mixed`) is Apollo Router's. A range naming another spec is not taken.
 */
export function multipartFormat(accept: string | undefined): IncrementalFormat | undefined {
  if (!accept || !/multipart\/mixed/i.test(accept)) return undefined;
  let best: { format: IncrementalFormat; q: number } | undefined;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'multipart/mixed') continue;
    const param = (name: string) =>
      params
        .find((p) => p.startsWith(`${name}=`))
        ?.slice(name.length + 1)
        .replace(/"/g, '');
    const q = Number(param('q') ?? 1);
    if (!(q > 0) || (best && best.q >= q)) continue;
    const incremental = param('incrementalspec');
    const defer = param('deferspec');
    if (incremental === 'v0.2' && defer === undefined) best = { format: 'incrementalSpec=v0.2', q };
    else if (incremental === undefined && (defer === undefined || defer === '20220824'))
      best = { format: 'deferSpec=20220824', q };
  }
  return best?.format;
}

/** The initial result's JSON (as Apollo Server serialised it) with `fields` and `"hasNext":true` added. */
export function withHasNext(json: string, fields: Record<string, unknown> = {}): string {
  const end = json.lastIndexOf('}');
  if (end < 0) throw new Error('the initial result is not a JSON object');
  const empty = /^\s*\{\s*$/.test(json.slice(0, end));
  const added = JSON.stringify({ ...fields, hasNext: true }).slice(1, -1);
  return `${json.slice(0, end)}${empty ? '' : ','}${added}}`;
}

/**
 * The body: the initial part (JSON text carrying `hasNext: true`), then one part per later payload as each comes;
 * closed after the payload saying `hasNext: false` (or with one of its own if the payloads end without it).
 */
export async function* multipartBody(initial: string, later: AsyncIterable<Payload>): AsyncGenerator<string> {
  yield `${DELIMITER}${PART_HEADERS}${initial}${DELIMITER}`;
  for await (const payload of later) {
    yield `${PART_HEADERS}${JSON.stringify(payload)}${payload.hasNext ? DELIMITER : CLOSE}`;
    if (!payload.hasNext) return;
  }
  yield `${PART_HEADERS}{"hasNext":false}${CLOSE}`;
}
