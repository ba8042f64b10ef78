// Browser entry of the playground, bundled by scripts/build-playground.mjs into dist/playground/.
// A .jsx file on purpose: tsc (which only picks up .ts/.tsx) leaves it to esbuild.
//
// Build-time constants (esbuild `define`):
//   __PLAYGROUND_WORKERS__  file names of the Monaco web workers, relative to this bundle
//   __PLAYGROUND_TABS__     the example tabs from gateway/playground/examples/
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-sse';
import { StrictMode } from 'react';
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

// createGraphiQLFetcher posts `content-type: application/json`, which Apollo's CSRF prevention accepts.
const httpFetcher = createGraphiQLFetcher({ url: new URL(graphqlPath, window.location.href).toString() });

function isSubscription(query, operationName) {
  try {
    return getOperationAST(parse(query), operationName || undefined)?.operation === 'subscription';
  } catch {
    return false; // let the server report the syntax error
  }
}

// Subscriptions go over graphql-sse (one stream per subscription, with the headers editor's headers); GraphiQL
// shows each event as it arrives and stops the stream (the iterator's return) when the user stops it.
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
  const client = createClient({
    url: new URL(streamPath, window.location.href).toString(),
    headers: options?.headers ?? {},
    retryAttempts: 0,
  });
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
      <GraphiQL.Logo>onegraph</GraphiQL.Logo>
    </GraphiQL>
  </StrictMode>,
);
