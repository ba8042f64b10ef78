import { ACTIONS, type ActionParameter } from './actions';

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function parameters(title: string, list: readonly ActionParameter[]): string {
  if (list.length === 0) return '';
  const items = list
    .map((p) => `<li><b>${escape(p.name)}</b> (<code>${p.type}</code>): ${escape(p.description)}</li>`)
    .join('');
  return `<p>${title}</p><ul>${items}</ul>`;
}

/** How a session travels, and what the cookie alone may carry (docs/dns-tool.md, "Requests from other origins"). */
const SESSIONS =
  'Sessions: send the session id from login as Authorization: Bearer <session_id>, or keep the dnsphpadmin cookie. ' +
  'A request carried by the cookie alone is refused when a browser says it comes from another origin (Origin, Sec-Fetch-Site), and so is a login from another origin. Scripts that send neither header are not affected.';

const COOKIE_CHANGES = "With only the session cookie, this action must be POSTed from the tool's own origin";

/**
 * The help page `/api.php` answers without an action: titled "API: help", each action in the original's order with
 * its descriptions, requirements, parameters and an example. Self-contained (inline style, no CDN): it works offline.
 */
export function helpPage(): string {
  const sections = ACTIONS.map((a) => {
    const notes = [
      a.requiresLogin ? '<p><i>This action requires authentication</i></p>' : '',
      a.postOnly ? '<p><i>This action must be called via POST method</i></p>' : '',
      a.changes ? `<p><i>${escape(COOKIE_CHANGES)}</i></p>` : '',
    ].join('');
    const params =
      a.required.length + a.optional.length === 0
        ? '<p>This action has no parameters</p>'
        : parameters('Parameters (required)', a.required) + parameters('Parameters (optional)', a.optional);
    return (
      `<section id="${a.name}"><h3>${a.name}</h3><p>${escape(a.short)}</p>${notes}${params}` +
      `<p>${escape(a.long)}</p><p>Example: <code>${escape(a.example)}</code></p></section>`
    );
  }).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>API: help</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.4}
code{background:#f3f3f3;padding:0 .2em}section{border-top:1px solid #ddd;margin-top:1rem}</style></head>
<body><h1>API documentation</h1>
<p>${escape(SESSIONS)}</p>
<h2>Action APIs</h2>
${sections}
</body></html>
`;
}
