/**
 * Records per zone as of one version of its zone row. Counting a zone's records walks its whole index (milliseconds
 * for a large zone) and every `getZone` and `change` reports the count; a change knows how many rows it inserted and
 * deleted, so the count after it follows from the one before. A count is only used for the exact row version it was
 * taken at, and every committed change of a zone writes its row (the serial rises), so changes made elsewhere miss;
 * what tells versions apart is the store's business (see `version` in each store).
 */
export class RecordCounts {
  private readonly byZone = new Map<string, { version: string; count: number }>();

  get(zone: string, version: string): number | undefined {
    const known = this.byZone.get(zone);
    return known && known.version === version ? known.count : undefined;
  }

  set(zone: string, version: string, count: number): void {
    this.byZone.set(zone, { version, count });
  }

  delete(zone: string): void {
    this.byZone.delete(zone);
  }

  clear(): void {
    this.byZone.clear();
  }
}
