import type { Subgraph, SubgraphContext } from '../subgraph';
import type { ToolAuth } from './auth';
import { createDnsToolContext, type DnsToolContext, type DnsToolServices } from './context';
import { buildDnsToolSchema } from './schema';
import type { SessionStore } from './tool/sessions';
import type { AuditEntry, ToolService } from './tool/service';

export { buildDnsToolSchema };

export interface DnsToolSubgraphOptions {
  tool: ToolService;
  auth: ToolAuth;
  /** Closed with the subgraph. */
  sessions: SessionStore;
  version: string;
  audit: (entry: AuditEntry) => void;
  /** Called on close (stops following the embedded server's zone list, ends the Redis connection). */
  onClose?: () => Promise<void> | void;
}

export interface DnsToolSubgraph extends Subgraph<DnsToolContext> {
  readonly dnsTool: DnsToolServices;
}

/**
 * The DNS record tool as a subgraph: its zones, records and changes, spoken to DNS servers over the wire (queries,
 * RFC 2136 UPDATE, AXFR with TSIG), its own sessions and tokens, and the DNS API's tokens when it trusts them.
 */
export async function createDnsToolSubgraph(options: DnsToolSubgraphOptions): Promise<DnsToolSubgraph> {
  const schema = await buildDnsToolSchema();
  const dnsTool: DnsToolServices = {
    tool: options.tool,
    auth: options.auth,
    version: options.version,
    audit: options.audit,
  };
  return {
    name: 'dns-tool',
    schema,
    dnsTool,
    createContext: (base: SubgraphContext) => createDnsToolContext(base, dnsTool),
    async health() {
      return { status: 'ok', zones: options.tool.zoneCount, sessions: options.sessions.kind };
    },
    async close() {
      await options.sessions.close();
      await options.onClose?.();
    },
  };
}
