import type { SubgraphContext } from '../subgraph';
import type { AuthenticatedCaller, ToolAuth } from './auth';
import { asTool } from './errors';
import { eventId } from './tool/audit';
import { toolErrors } from './protocol';
import type { AuditEntry, ToolService } from './tool/service';

/** The DNS tool's parts, one set per subgraph instance. */
export interface DnsToolServices {
  tool: ToolService;
  auth: ToolAuth;
  version: string;
  /** Writes one audit line (changes and logins). */
  audit: (entry: AuditEntry) => void;
}

export interface DnsToolContext extends SubgraphContext {
  dnsTool: DnsToolServices;
  /** The caller from the Authorization header, resolved once per request (null: anonymous). */
  caller(): Promise<AuthenticatedCaller | null>;
}

export function createDnsToolContext(base: SubgraphContext, dnsTool: DnsToolServices): DnsToolContext {
  let caller: Promise<AuthenticatedCaller | null> | undefined;
  return {
    ...base,
    dnsTool,
    // One event id per request: every audit line of the request carries it.
    caller: () => (caller ??= dnsTool.auth.caller(base.authorization, base.clientAddress, eventId())),
  };
}

/** The caller, who must be logged in (`Not authenticated` otherwise). Caller-dependent: no cache hint is set. */
export async function loggedIn(ctx: DnsToolContext): Promise<AuthenticatedCaller> {
  return asTool(async () => {
    const caller = await ctx.caller();
    if (!caller) throw toolErrors.notAuthenticated();
    return caller;
  });
}
