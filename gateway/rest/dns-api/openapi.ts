/** The DNS API's machine-readable contract (OpenAPI 3.1), served at /api/v1/openapi.json. */
export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'onegraph DNS server API', version: '1.0.0' },
  servers: [{ url: '/api/v1' }],
  paths: {},
} as const;
