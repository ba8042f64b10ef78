/** One Server-Sent Events message as the tests read it. */
export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Splits complete `\n\n`-terminated messages off `buffer`; returns the frames and what is left. */
export function parseFrames(buffer: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  let end: number;
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    const frame: Frame = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      else if (line.startsWith('id: ')) frame.id = line.slice(4);
      else if (line.startsWith('event: ')) frame.event = line.slice(7);
      else if (line.startsWith('data: ')) frame.data = line.slice(6);
    }
    frames.push(frame);
  }
  return { frames, rest: buffer };
}

export const dataFrames = (frames: Frame[]): Frame[] => frames.filter((f) => f.data !== undefined);

/** An event stream read in the background: frames accumulate until `close()` (or the server ends it). */
export interface OpenStream {
  status: number;
  frames: Frame[];
  /** Resolves when the server ended the stream (or it failed); `close()` does not resolve it. */
  ended: Promise<void>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers: { ...headers, accept: 'text/event-stream' } });
  const frames: Frame[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const parsed = parseFrames(buffer + decoder.decode(value, { stream: true }));
        frames.push(...parsed.frames);
        buffer = parsed.rest;
      }
    } catch {
      // aborted by close(), or the server went away
    }
  })();
  return { status: res.status, frames, ended, close: () => abort.abort() };
}

/** Polls `check` every 20 ms until it holds; fails after `timeoutMs` with `what`. */
export async function waitFor(check: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
