/**
 * Incremental delivery over HTTP as Apollo Router and Apollo Server write it (`multipart/mixed`, boundary `-`,
 * deferSpec=20220824), which Apollo Client, GraphiQL and meros read: each part is a JSON payload with its own
 * content-type, a delimiter follows every part at once (a reader needs nothing more to take it), and the last
 * delimiter closes the body.
 */

export const MULTIPART_CONTENT_TYPE = 'multipart/mixed;boundary="-";deferSpec=20220824';

const PART_HEADERS = 'content-type: application/json; charset=utf-8\r\n\r\n';
const DELIMITER = '\r\n---\r\n';
const CLOSE = '\r\n-----\r\n';

/** A payload after the first: `hasNext` says whether more follow. */
export interface Payload {
  hasNext: boolean;
}

/**
 * Whether an Accept header takes `multipart/mixed` (with `deferSpec=20220824` when it names a deferSpec at all), as
 * Apollo Client (`multipart/mixed;deferSpec=20220824,application/json`) and GraphiQL (`multipart/mixed`) send it.
 */
export function acceptsMultipart(accept: string | undefined): boolean {
  if (!accept || !/multipart\/mixed/i.test(accept)) return false;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'multipart/mixed') continue;
    const param = (name: string) => params.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1);
    const spec = param('deferspec')?.replace(/"/g, '');
    const q = param('q');
    if ((spec === undefined || spec === '20220824') && (q === undefined || Number(q) > 0)) return true;
  }
  return false;
}

/** The initial result's JSON (as Apollo Server serialised it) with `"hasNext":true` added. */
export function withHasNext(json: string): string {
  const end = json.lastIndexOf('}');
  if (end < 0) throw new Error('the initial result is not a JSON object');
  const empty = /^\s*\{\s*$/.test(json.slice(0, end));
  return `${json.slice(0, end)}${empty ? '' : ','}"hasNext":true}`;
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
