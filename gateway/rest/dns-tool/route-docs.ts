import { ACTIONS } from '../../../subgraphs/dns-tool/protocol';
import type { RouteDoc } from '../route-docs';
import { DNS_TOOL_ACTIONS, DNS_TOOL_STATUSES } from './routes';

/** The actions of `/api.php` as the docs show them: the protocol's rules beside the route table's operation. */
export function dnsToolRouteDocs(): RouteDoc[] {
  return ACTIONS.map((a) => {
    const required = a.required.map((p) => p.name);
    const optional = a.optional.map((p) => `${p.name}?`);
    const notes = [a.requiresLogin ? 'login required' : '', a.changes ? 'changes state' : ''].filter(Boolean);
    return {
      method: a.postOnly ? 'POST' : 'GET, POST',
      path: `/api.php?action=${a.name}`,
      summary: `${a.short}${notes.length ? ` (${notes.join(', ')})` : ''}`,
      ...(DNS_TOOL_ACTIONS[a.name] ? { operation: DNS_TOOL_ACTIONS[a.name]?.operation.name } : {}),
      ...(required.length + optional.length ? { input: [...required, ...optional].join(', ') } : {}),
      statuses: DNS_TOOL_STATUSES,
    };
  });
}
