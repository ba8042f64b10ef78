import { createClient, type Client } from 'graphql-sse';
import { startSystem, type RunningSystem } from '../support/system';
import { waitFor } from '../support/sse';
import { startFixture, type Fixture } from './fixture';
import { publishReview, reviewListeners } from './fixture/reviews';

/**
 * Subscriptions through the general gateway (`--supergraph FILE`): the root field lives in a foreign subgraph that
 * serves graphql-sse with the library's own reference handler; the gateway opens it over graphql-sse and completes
 * each event with two other subgraphs (a compound-key entity and a @provides field). Apollo's own Node gateway
 * cannot execute subscriptions at all.
 */
let fixture: Fixture;
let gateway: RunningSystem;
let client: Client;

beforeAll(async () => {
  fixture = await startFixture();
  gateway = await startSystem({ SUPERGRAPH_FILE: fixture.supergraphFile });
  client = createClient({ url: `${gateway.url}/graphql/stream`, retryAttempts: 0 });
});

afterAll(async () => {
  client?.dispose();
  await gateway?.close();
  await fixture?.close();
});

const QUERY = 'subscription { reviewAdded { id body author { name } product { sku name price inStock } } }';

test('events from a foreign subgraph are completed through two more subgraphs (compound key, then @override)', async () => {
  const it = client.iterate({ query: QUERY });
  try {
    const first = it.next();
    await waitFor(() => reviewListeners() === 1);
    publishReview({
      id: 'r9',
      body: 'Lovely lamp.',
      rating: 5,
      product: { sku: 'LMP-BRS', variant: 'std' },
      author: { id: 'u3', name: 'Alan Turing' },
      likedBy: [],
    });
    const event = await first;
    expect(event.value).toEqual({
      data: {
        reviewAdded: {
          id: 'r9',
          body: 'Lovely lamp.',
          author: { name: 'Alan Turing' },
          product: { sku: 'LMP-BRS', name: 'Brass Lamp', price: 5_900, inStock: false },
        },
      },
    });
    // products resolved the compound key; users was never asked (reviews @provides the author's name)
    expect(fixture.subgraphs.products.rec.representations).toContainEqual({
      __typename: 'Product',
      sku: 'LMP-BRS',
      variant: { id: 'std' },
    });
    expect(fixture.subgraphs.users.rec.requests).toBe(0);
  } finally {
    await it.return?.();
  }
  await waitFor(() => reviewListeners() === 0); // the disconnect reached the subgraph
});

test('the subgraph going away ends the subscription with an error naming it', async () => {
  const it = client.iterate({ query: 'subscription { reviewAdded { id } }' });
  const next = it.next();
  await waitFor(() => reviewListeners() === 1);
  await fixture.subgraphs.reviews.stop();
  const result = await next;
  expect(result.value?.errors?.[0]).toMatchObject({
    extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName: 'reviews' },
  });
  expect(result.value?.errors?.[0]?.message).toMatch(/^subgraph reviews is unavailable/);
  expect((await it.next()).done).toBe(true);
  await waitFor(() => gateway.system.live.endpoint?.stats().operations === 0);
});
