import { docPath } from '../route-docs';
import { responses, schemas, type PathItem } from './openapi-components';
import { operationResponses, operationSchemas } from './openapi-operations';
import { DNS_API_ROUTES } from './routes';

export type { Operation, PathItem } from './openapi-components';

/**
 * The DNS API's machine-readable contract (OpenAPI 3.1), served at /api/v1/openapi.json, generated from the route
 * table (routes.ts). Every status a route answers with is listed (test/dns-api/openapi.test.ts drives each path and
 * fails on an undescribed answer).
 */
const paths: Record<string, PathItem> = {};
for (const route of DNS_API_ROUTES) {
  const item = (paths[docPath(route.path)] ??= route.pathParameters ? { parameters: [...route.pathParameters] } : {});
  item[route.method.toLowerCase() as 'get' | 'put' | 'post' | 'delete'] = route.openapi;
}

export const OPENAPI = {
  openapi: '3.1.0',
  jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
  info: {
    title: 'onegraph DNS server API',
    version: '1.0.0',
    description:
      'Zones, records, batches, DNSSEC and users of the embedded authoritative DNS server. Every write is answered over ' +
      'DNS by the time its response arrives. Errors are `{"error": "<one sentence>", "errors"?: [{field, message}]}`.',
  },
  servers: [{ url: '/api/v1' }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'auth', description: 'Tokens and the keys that sign them' },
    { name: 'zones', description: 'Zones and their SOA settings' },
    { name: 'records', description: 'Records, one id each' },
    { name: 'dnssec', description: 'Zone signing: keys, DS records and ZSK rollovers' },
    { name: 'operations', description: 'Long writes run in the background (Prefer: respond-async)' },
    { name: 'users', description: 'Users and roles: admin, operator, viewer' },
    { name: 'meta', description: 'This document' },
  ],
  paths,
  components: {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'A token from POST /auth/login (EdDSA; keys at /.well-known/jwks.json)',
      },
    },
    parameters: {
      zone: {
        name: 'zone',
        in: 'path',
        required: true,
        description: 'Zone name (case-insensitive, trailing dot allowed)',
        schema: { type: 'string' },
      },
      secondaryZone: {
        name: 'name',
        in: 'path',
        required: true,
        description: 'Secondary zone name (case-insensitive, trailing dot allowed)',
        schema: { type: 'string' },
      },
      recordId: { name: 'id', in: 'path', required: true, description: 'Record id', schema: { type: 'string' } },
      userId: { name: 'id', in: 'path', required: true, description: 'User id', schema: { type: 'string' } },
      ifMatch: {
        name: 'If-Match',
        in: 'header',
        description: 'The ETag of a GET: change only if it still matches (else 412)',
        schema: { type: 'string' },
      },
    },
    schemas: { ...schemas, ...operationSchemas },
    responses: { ...responses, ...operationResponses },
  },
};
