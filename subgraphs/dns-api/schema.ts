import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { buildFederatedSchema, type ReferenceResolvers } from '../federation';
import { allowed, type DnsApiContext } from './context';
import {
  AuthResolver,
  ChangeResolver,
  DnssecResolver,
  RecordResolver,
  SigningKeyResolver,
  UserResolver,
  SecondaryZoneResolver,
  ZoneResolver,
} from './graphql/resolvers';
import type { Zone } from '../../dns/model';
import { OperationResolver } from './graphql/operations';

let built: Promise<GraphQLSchema> | undefined;

/** The dns-api subgraph schema; static, so built once per process. */
export function buildDnsApiSchema(): Promise<GraphQLSchema> {
  built ??= buildFederatedSchema(
    {
      resolvers: [
        AuthResolver,
        SigningKeyResolver,
        ZoneResolver,
        RecordResolver,
        DnssecResolver,
        UserResolver,
        SecondaryZoneResolver,
        ChangeResolver,
        OperationResolver,
      ],
      validate: false,
    },
    {
      Zone: {
        // Another subgraph hands us { name }: the zone as the store has it (the caller must be allowed to read).
        async __resolveReference(
          ref: { name: string },
          ctx: DnsApiContext,
          _info: GraphQLResolveInfo,
        ): Promise<Zone | null> {
          await allowed(ctx, 'read');
          return ctx.api.zones.get(ref.name).catch(() => null);
        },
      },
    } as unknown as ReferenceResolvers, // @apollo/subgraph calls __resolveReference(reference, context, info)
  );
  return built;
}
