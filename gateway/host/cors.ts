/** The Access-Control-Allow-Origin a request gets under the CORS setting (`*` or a list), or none. */
export function allowedOrigin(setting: string | string[], origin: string | undefined): string | undefined {
  if (setting === '*') return '*';
  return origin !== undefined && setting.includes(origin) ? origin : undefined;
}
