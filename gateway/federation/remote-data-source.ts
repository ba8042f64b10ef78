import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLDataSourceRequestKind } from '@apollo/gateway/dist/datasources/types';
import type { GatewayGraphQLRequestContext, GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import type { GatewayContext } from '../context';

/** `max-age` of a Cache-Control header; private, no-store, no-cache or none at all mean 0 (not shareable). */
export function sharedMaxAge(header: string | null | undefined): number {
  if (!header || /(^|,)\s*(private|no-store|no-cache)\s*(,|$)/i.test(header)) return 0;
  const m = /(^|,)\s*max-age\s*=\s*(\d+)/i.exec(header);
  return m ? Number(m[2]) : 0;
}

/**
 * A subgraph over HTTP. Passes the request id and the caller's Authorization header on, and feeds the subgraph's Cache-Control into the response cache
 * policy, so a remote subgraph's data is cached exactly as long as an in-process one's.
 */
export class RemoteSubgraphDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest(options: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    if (options.kind !== GraphQLDataSourceRequestKind.INCOMING_OPERATION) return;
    const { requestId, authorization, clientAddress } = options.context;
    if (requestId) options.request.http?.headers.set('x-request-id', requestId);
    if (clientAddress) options.request.http?.headers.set('x-forwarded-for', clientAddress);
    if (authorization) options.request.http?.headers.set('authorization', authorization); // the caller, passed on as sent
  }

  override didReceiveResponse(
    rc: Required<Pick<GatewayGraphQLRequestContext<GatewayContext>, 'request' | 'response' | 'context'>>,
  ): GatewayGraphQLResponse {
    rc.context.cachePolicy?.restrict(sharedMaxAge(rc.response.http?.headers.get('cache-control')));
    return rc.response;
  }
}
