// Talking to the daemon from the page: fetch with the session cookie (same origin) and the CSRF token.
let csrf = '';

/** JSON from the daemon: { status, body } (body is the parsed JSON, or undefined). Never throws on HTTP errors. */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-mcpx-csrf'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let parsed;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed };
}

/**
 * Signs in: trades a one-time code from the URL fragment (never sent to any server, so it reaches no log and no
 * Referer) for the session cookie, or finds the session the cookie already holds. Returns whether signed in.
 */
export async function signIn() {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code) {
    // Out of the address bar and the history at once, whatever the exchange says.
    history.replaceState(null, '', location.pathname + location.search);
    const { status, body } = await api('/ui/session', { method: 'POST', body: { code } });
    if (status === 200) {
      csrf = body.csrf;
      return { ok: true };
    }
    const signedIn = await api('/ui/session');
    if (signedIn.status === 200) {
      csrf = signedIn.body.csrf;
      return { ok: true };
    }
    return { ok: false, message: body && body.error ? body.error.message : 'The sign-in link did not work.' };
  }
  const { status, body } = await api('/ui/session');
  if (status === 200) {
    csrf = body.csrf;
    return { ok: true };
  }
  return { ok: false };
}

/** Builds an element; strings become text nodes, so server text is never parsed as HTML. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false || value === null) continue;
    if (name === 'class') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** "1h 02m", "4m 05s", "12s": the shape `mcpx elicit list` uses. */
export function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}
