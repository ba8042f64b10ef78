import { MOVERS_COUNT_MAX, MOVERS_OFFSET_MAX } from '../../gateway/rest/market/routes';
import { MAX_MOVERS_COUNT, MAX_MOVERS_OFFSET } from '../../subgraphs/market/graphql/market-resolver';

// The REST interface checks the movers' paging itself (its own message); the subgraph's bounds are the same.
test('the REST bounds of /v1/market/movers are the subgraph’s', () => {
  expect([MOVERS_COUNT_MAX, MOVERS_OFFSET_MAX]).toEqual([MAX_MOVERS_COUNT, MAX_MOVERS_OFFSET]);
});
