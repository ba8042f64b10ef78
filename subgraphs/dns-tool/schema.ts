import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { buildFederatedSchema, type ReferenceResolvers } from '../federation';
import type { DnsToolContext } from './context';
import { ToolMutationResolver, ToolQueryResolver, ToolZoneResolver, zoneOf } from './graphql/resolvers';
import type { Zone } from './graphql/types';

let built: Promise<GraphQLSchema> | undefined;

/** The dns-tool subgraph schema; static, so built once per process. */
export function buildDnsToolSchema(): Promise<GraphQLSchema> {
  built ??= buildFederatedSchema(
    { resolvers: [ToolQueryResolver, ToolZoneResolver, ToolMutationResolver], validate: false },
    {
      Zone: {
        // Another subgraph hands us { name }: the tool's view of it, when the tool manages it and the caller may read it.
        async __resolveReference(
          ref: { name: string },
          ctx: DnsToolContext,
          _info: GraphQLResolveInfo,
        ): Promise<Zone | null> {
          const caller = await ctx.caller().catch(() => null);
          const zone = caller ? ctx.dnsTool.tool.zone(caller, ref.name) : null;
          return zone ? zoneOf(zone) : null;
        },
      },
    } as unknown as ReferenceResolvers, // @apollo/subgraph calls __resolveReference(reference, context, info)
  );
  return built;
}
