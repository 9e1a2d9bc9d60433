/**
 * What a url-mode question may open: `https:` anywhere, `http:` only on this machine (loopback, where an OAuth
 * redirect or a local tool listens). Everything else (javascript:, file:, data:, plain http to a remote host) is
 * shown for what it is and never opened. The domain is the URL's hostname as the URL parser gives it (punycode for
 * look-alike names), which is what a person should judge.
 */

export type UrlCheck = { openable: true; href: string; domain: string } | { openable: false; domain?: string; reason: string };

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Whether mcpx may open this URL for a person, and its domain. */
export function checkUrl(url: string | undefined): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url ?? '');
  } catch {
    return { openable: false, reason: 'it is not a URL' };
  }
  const domain = parsed.hostname;
  if (parsed.protocol === 'https:' && domain) return { openable: true, href: parsed.href, domain };
  if (parsed.protocol === 'http:' && isLoopbackHost(domain)) return { openable: true, href: parsed.href, domain };
  if (parsed.protocol === 'http:')
    return { openable: false, domain, reason: 'plain http to another machine is opened only over https' };
  return {
    openable: false,
    ...(domain ? { domain } : {}),
    reason: `mcpx opens only https: (and http: on this machine), not ${parsed.protocol}`,
  };
}
