import { UsageError } from "./errors";

// Kept apart from lib/http.ts so that checking a URL does not load undici.

/** Rejects plain-HTTP URLs unless they point at this machine. */
export function assertSecureUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} is not an absolute URL: ${JSON.stringify(value)}`);
  }
  // Checked first, and the URL is not repeated: it holds a credential.
  if (url.username || url.password) throw new UsageError(`${name} must not carry a user name or password`);
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return url;
  throw new UsageError(
    `${name} must use https (plain http is accepted only for loopback hosts such as 127.0.0.1 or localhost): ${JSON.stringify(value)}`,
  );
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
