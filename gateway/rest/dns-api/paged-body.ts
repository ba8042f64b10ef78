import { Readable } from 'node:stream';

/**
 * A response body made a page at a time from `chunks`, with backpressure: a chunk is asked for only when the one
 * before has left this stream, and the HTTP response pipes it on and pauses until the socket's 'drain'. So a walk
 * holds at most two pages — one the socket is writing, one waiting here — however slowly its client reads. When the
 * body is destroyed (the client went away, the response failed) the walk is told to stop (`chunks.return()`), which it
 * does once the page it is reading arrives: no page is read after that.
 */
export class PagedBody extends Readable {
  private asking = false;

  constructor(private readonly chunks: AsyncIterator<Buffer, void>) {
    // Bytes, and a chunk fills the buffer: the next one is asked for once this one is taken.
    super({ highWaterMark: 1 });
  }

  override _read(): void {
    if (this.asking) return;
    this.asking = true;
    void this.ask();
  }

  private async ask(): Promise<void> {
    try {
      // An empty chunk is not pushed (it would end nothing and ask for nothing more): the next one is asked for.
      for (;;) {
        const step = await this.chunks.next();
        if (this.destroyed) return;
        if (step.done) {
          this.push(null);
          return;
        }
        if (step.value.length > 0) {
          this.asking = false;
          this.push(step.value);
          return;
        }
      }
    } catch (err) {
      this.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    // Stops the walk: at once when it waits at a page boundary, else after the page it is reading.
    this.chunks.return?.().then(
      () => undefined,
      () => undefined,
    );
    callback(err);
  }
}
