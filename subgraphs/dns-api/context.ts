import type { SubgraphContext } from '../subgraph';
import { apiErrorOf } from './errors';
import { authorize, type Action, type Caller, type Identity } from './identity';
import type { ChangeFeed } from './service/changes';
import type { DnssecService } from './service/dnssec';
import type { ExportService } from './service/exports';
import type { Operations } from './service/operations';
import type { RecordService } from './service/records';
import type { SecondaryZoneService } from './service/secondary-zones';
import type { ZoneService } from './service/zones';

/** The DNS API's services, one set per subgraph instance. */
export interface DnsApiServices {
  zones: ZoneService;
  records: RecordService;
  dnssec: DnssecService;
  secondaryZones: SecondaryZoneService;
  exports: ExportService;
  identity: Identity;
  feed: ChangeFeed;
  /** Long writes started in the background, by id. */
  operations: Operations;
}

export interface DnsApiContext extends SubgraphContext {
  api: DnsApiServices;
  /** The caller, authenticated once per request from its Authorization header (UNAUTHENTICATED if it cannot be). */
  caller(): Promise<Caller>;
}

export function createDnsApiContext(base: SubgraphContext, api: DnsApiServices): DnsApiContext {
  let caller: Promise<Caller> | undefined;
  return {
    ...base,
    api,
    caller: () => (caller ??= api.identity.authenticate(base.authorization)),
  };
}

/**
 * The caller, if its role may do `action`: UNAUTHENTICATED without a valid token, FORBIDDEN for a role that may
 * not. Every protected field and mutation starts with it; nothing caller-dependent declares a cache hint.
 */
export async function allowed(ctx: DnsApiContext, action: Action): Promise<Caller> {
  try {
    const caller = await ctx.caller();
    authorize(caller, action);
    return caller;
  } catch (err) {
    throw apiErrorOf(err);
  }
}
