/**
 * Imported first by the entry points: a server process runs in production mode unless told otherwise. GraphQL-js
 * reads NODE_ENV once, when it loads, and outside production checks every `instanceof` for duplicate modules (a
 * few percent of each request); NODE_ENV=development brings those checks back.
 */
process.env.NODE_ENV ??= 'production';
