import { toolErrors } from './errors';

/** Values of a query string or form body: a name given twice keeps its last value, as PHP's $_GET/$_POST do. */
export type Params = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Parameters read from the form body only: secrets never come from the URL (where logs and histories keep them). */
const BODY_ONLY: ReadonlySet<string> = new Set(['token', 'loginusername', 'loginpassword']);

/**
 * One `/api.php` request as the original reads it (docs/dns-tool.md, "Transport"): the action from the query
 * string first, else the form body, case-insensitive; a request whose action is in the query string counts as a GET
 * even when POSTed; parameters from the query string first, then the form body; secrets from the body only.
 */
export class ToolRequest {
  readonly action: string | undefined;
  /** POSTed with the action in the body (the POST-only actions need this). */
  readonly isPost: boolean;

  constructor(
    method: string,
    private readonly query: Params,
    private readonly body: Params,
  ) {
    const fromQuery = last(query.action);
    const action = fromQuery ?? last(body.action);
    this.action = action === undefined || action === '' ? undefined : action.toLowerCase();
    this.isPost = method.toUpperCase() === 'POST' && fromQuery === undefined;
  }

  /** An optional parameter (undefined when absent); a newline in it is refused. */
  optional(name: string): string | undefined {
    const value = BODY_ONLY.has(name.toLowerCase())
      ? last(this.body[name])
      : (last(this.query[name]) ?? last(this.body[name]));
    if (value !== undefined && /[\r\n]/.test(value)) throw toolErrors.newline();
    return value;
  }

  /** A required parameter: absent or empty is `Missing parameter: <name>`. */
  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined || value === '') throw toolErrors.missing(name);
    return value;
  }
}

function last(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : value?.[value.length - 1];
}
