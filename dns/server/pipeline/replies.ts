/**
 * The messages that answer one request, in order: a list, or a stream — a zone transfer is made while it is sent, so
 * that a large zone is never held as messages whole and the transport can wait for the client to read.
 */
export type Replies = Buffer[] | AsyncIterable<Buffer>;

/** `replies` with `each` applied to every message (to a stream's as they come); `each` gets the message's index. */
export function mapReplies(replies: Replies, each: (message: Buffer, index: number) => Buffer): Replies {
  if (Array.isArray(replies)) return replies.map(each);
  return (async function* mapped(): AsyncGenerator<Buffer> {
    let index = 0;
    for await (const message of replies) yield each(message, index++);
  })();
}

/** Every message of `replies` (a stream read to its end): for callers that need them all, e.g. tests. */
export async function collectReplies(replies: Replies): Promise<Buffer[]> {
  if (Array.isArray(replies)) return replies;
  const all: Buffer[] = [];
  for await (const message of replies) all.push(message);
  return all;
}
