// Browser entry of the playground, bundled by scripts/build-playground.mjs into dist/playground/.
// A .jsx file on purpose: tsc (which only picks up .ts/.tsx) leaves it to esbuild.
//
// Build-time constants (esbuild `define`):
//   __PLAYGROUND_WORKERS__  file names of the Monaco web workers, relative to this bundle
//   __PLAYGROUND_TABS__     the example tabs from gateway/playground/examples/
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { getOperationAST, parse } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'graphiql/style.css';
import './playground.css';

/* global __PLAYGROUND_WORKERS__, __PLAYGROUND_TABS__ */
const workers = __PLAYGROUND_WORKERS__;

// Monaco runs its language services in web workers. They are bundled next to this file and loaded from the
// same origin (no blob: or CDN URLs, so the page's Content-Security-Policy can stay `worker-src 'self'`).
globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    const file = label === 'json' ? workers.json : label === 'graphql' ? workers.graphql : workers.editor;
    return new Worker(new URL(file, import.meta.url), { name: `monaco-${label}` });
  },
};

const root = document.getElementById('playground');
const graphqlPath = root.dataset.graphqlPath || '/graphql';
const streamPath = root.dataset.streamPath || `${graphqlPath}/stream`;
const wsPath = root.dataset.wsPath || `${graphqlPath}/ws`;

// Subscriptions go over graphql-ws (graphql-transport-ws) unless `?transport=sse` or the transport control says
// graphql-sse. The choice is kept in the address (so a reload keeps it) and read by the fetcher on each run.
const TRANSPORTS = { ws: 'graphql-ws', sse: 'graphql-sse' };
let transport = new URLSearchParams(window.location.search).get('transport') === 'sse' ? 'sse' : 'ws';

function setTransport(next) {
  transport = next;
  const url = new URL(window.location.href);
  if (next === 'ws') url.searchParams.delete('transport');
  else url.searchParams.set('transport', next);
  window.history.replaceState(null, '', url);
}

function TransportControl() {
  const [value, setValue] = useState(transport);
  return (
    <label className="onegraph-transport" title="How subscriptions reach the gateway">
      subscriptions over{' '}
      <select
        aria-label="Subscription transport"
        value={value}
        onChange={(e) => {
          setTransport(e.target.value);
          setValue(e.target.value);
        }}
      >
        {Object.entries(TRANSPORTS).map(([key, name]) => (
          <option key={key} value={key}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

// createGraphiQLFetcher posts `content-type: application/json`, which Apollo's CSRF prevention accepts.
const httpFetcher = createGraphiQLFetcher({ url: new URL(graphqlPath, window.location.href).toString() });

function isSubscription(query, operationName) {
  try {
    return getOperationAST(parse(query), operationName || undefined)?.operation === 'subscription';
  } catch {
    return false; // let the server report the syntax error
  }
}

// Each subscription gets its own client (graphql-ws: a socket, the headers editor's headers in its connection_init
// payload, e.g. Authorization; graphql-sse: a stream with them as HTTP headers); GraphiQL shows each event as it
// arrives and stops it (the iterator's return, which also disposes of the client) when the user stops it.
// GraphiQL 5 may send the operation name of the tab shown a moment before (right after a tab switch or an edit it
// has not parsed yet): a name the document does not have, when it holds one operation, means that operation.
function withOperationName(params) {
  try {
    const operations = parse(params.query).definitions.filter((d) => d.kind === 'OperationDefinition');
    if (!params.operationName || operations.some((d) => d.name?.value === params.operationName)) return params;
    return operations.length === 1 ? { ...params, operationName: operations[0].name?.value ?? null } : params;
  } catch {
    return params; // let the server report the syntax error
  }
}

function fetcher(given, options) {
  const params = withOperationName(given);
  if (!isSubscription(params.query, params.operationName)) return httpFetcher(params, options);
  const headers = options?.headers ?? {};
  const client = transport === 'sse' ? sseClient(headers) : wsClient(headers);
  const events = client.iterate({
    query: params.query,
    variables: params.variables ?? undefined,
    operationName: params.operationName ?? undefined,
  });
  const stop = events.return.bind(events);
  events.return = async (value) => {
    const result = await stop(value);
    client.dispose();
    return result;
  };
  return events;
}

function sseClient(headers) {
  return createSseClient({ url: new URL(streamPath, window.location.href).toString(), headers, retryAttempts: 0 });
}

function wsClient(headers) {
  const url = new URL(wsPath, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return createWsClient({ url: url.toString(), connectionParams: headers, retryAttempts: 0, lazy: true });
}

const tabs = __PLAYGROUND_TABS__;
// GraphiQL 5.4 opens the first default tab with its query but not its variables or headers (it only takes them from
// the initial* props or from storage), so hand them over on a first visit; later visits restore the stored tabs.
const firstVisit = (() => {
  try {
    return window.localStorage.getItem('graphiql:tabState') === null;
  } catch {
    return true; // storage blocked: GraphiQL starts from the default tabs every time
  }
})();

createRoot(root).render(
  <StrictMode>
    <GraphiQL
      fetcher={fetcher}
      defaultTabs={tabs}
      initialVariables={firstVisit ? tabs[0].variables : undefined}
      initialHeaders={firstVisit ? tabs[0].headers : undefined}
      isHeadersEditorEnabled
      shouldPersistHeaders={false}
      defaultEditorToolsVisibility="variables"
    >
      <GraphiQL.Logo>
        onegraph <TransportControl />
      </GraphiQL.Logo>
    </GraphiQL>
  </StrictMode>,
);
