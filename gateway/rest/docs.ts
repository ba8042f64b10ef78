import { dnsApiRouteDocs } from './dns-api/routes';
import { dnsToolRouteDocs } from './dns-tool/route-docs';
import { marketRouteDocs } from './market/routes';
import { routeTableMarkdown } from './route-docs';

/** docs/routes/<file> → its text, generated from the three interfaces' route tables. */
export function routeDocs(): Record<string, string> {
  return {
    'market.md': routeTableMarkdown(
      'Market REST interface (`/v1`)',
      'Each path runs a fixed GraphQL operation through the gateway. Errors are `{"error", "message"}`; the status of ' +
        'each error code is in the error-code registry (`platform/errors`).',
      marketRouteDocs(),
    ),
    'dns-tool.md': routeTableMarkdown(
      'DNS tool (`/api.php`)',
      'One path; the action comes from the query string or the form body. Each action runs a fixed GraphQL ' +
        'operation through the gateway; every failure is a 400 with `{"error", "message", "code"}`. Without an ' +
        'action the answer is the help page (200, HTML).',
      dnsToolRouteDocs(),
    ),
    'dns-api.md': routeTableMarkdown(
      'DNS server API (`/api/v1`)',
      'JSON in and out, snake_case fields; the full contract is the OpenAPI document at `GET /api/v1/openapi.json`, ' +
        'generated from the same table. Errors are `{"error", "errors"?}`.',
      dnsApiRouteDocs(),
    ),
  };
}
