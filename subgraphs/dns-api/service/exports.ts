import { ZoneNameError } from '../../../dns/records';
import type { ZoneStore } from '../../../dns/store';
import { ZoneChangedError, ZoneFileCursorError, ZoneFilePages, type ZoneFilePage } from '../../../dns/zonefile';
import { Admission, AdmissionFullError } from '../../../platform/async';
import { apiError, asApi, invalid } from '../errors';
import { MAX_RECORD_PAGE } from './records';
import { zoneRef, type ZoneService } from './zones';

/** Seconds a whole-zone read refused for being one too many suggests waiting (`retryAfter`, REST's Retry-After). */
export const WHOLE_ZONE_RETRY_AFTER_S = 2;

/** The cap's defaults (DNS_API_WHOLE_ZONE_READS, DNS_API_WHOLE_ZONE_QUEUE). */
export const WHOLE_ZONE_READS_DEFAULTS = { running: 4, waiting: 32 };

/** The answer to a whole-zone read beyond the cap and its queue: BUSY, with the seconds to wait. */
export function busy(err: AdmissionFullError): Error {
  return apiError(
    'BUSY',
    `too many whole-zone reads at once (${err.running} running, ${err.waiting} waiting): try again in ` +
      `${WHOLE_ZONE_RETRY_AFTER_S} seconds, or read the zone a page at a time`,
    { retryAfter: WHOLE_ZONE_RETRY_AFTER_S },
  );
}

/**
 * Zones as master files: whole (GraphQL `zoneFile`, one of the whole-zone reads the cap admits) or a page at a time
 * (`zoneFilePage`, which REST's export walks under the same cap). docs/dns-api.md#whole-zone-reads.
 */
export class ExportService {
  private readonly pages: ZoneFilePages;

  constructor(
    private readonly zones: ZoneService,
    store: ZoneStore,
    /** Whole-zone reads of this process (shared with the REST interface in the all-in-one process). */
    private readonly wholeZoneReads = new Admission(WHOLE_ZONE_READS_DEFAULTS),
  ) {
    this.pages = new ZoneFilePages(store);
  }

  /** The whole master file, once one of the whole-zone reads is free (BUSY beyond the queue). */
  async file(name: string, signal?: AbortSignal): Promise<string> {
    let release: () => void;
    try {
      release = await this.wholeZoneReads.enter(signal);
    } catch (err) {
      if (err instanceof AdmissionFullError) throw busy(err);
      throw err;
    }
    try {
      return await this.zones.export(name, signal);
    } finally {
      release();
    }
  }

  /**
   * A page of the master file: `limit` records or so (whole names) after `cursor`. BAD_USER_INPUT for a limit out of
   * range, BAD_REQUEST for a foreign cursor, CONFLICT once the zone changed after the first page (export again).
   */
  async page(name: string, cursor: string | null, limit: number, signal?: AbortSignal): Promise<ZoneFilePage> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECORD_PAGE)
      throw invalid('limit', `limit must be an integer from 1 to ${MAX_RECORD_PAGE} (got ${limit})`);
    const zoneName = zoneRef(name);
    try {
      return await asApi(() => this.pages.page(zoneName, cursor, limit, signal));
    } catch (err) {
      if (err instanceof ZoneFileCursorError) throw apiError('BAD_REQUEST', err.message, { field: 'cursor' });
      if (err instanceof ZoneChangedError) throw apiError('CONFLICT', err.message);
      if (err instanceof ZoneNameError)
        throw apiError('CONFLICT', `zone ${zoneName} cannot be exported: ${err.message}; delete it and create it anew`);
      throw err;
    }
  }
}
