import { quoteValue } from "./printable";

// Kept apart from lib/http.ts so that checking a URL does not load undici.

/**
 * Why `value` is no URL to send a secret to, or undefined: absolute, with no
 * user name or password, https (plain http only for a loopback host). The
 * value is quoted only once it parsed without a credential in it, and by
 * `quote` (a caller whose value is a secret shows none of it).
 */
export function secureUrlProblem(value: string, quote: (value: string) => string = quoteValue): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not repeated: a URL that does not parse may still hold a password.
    return "is not an absolute URL";
  }
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return undefined;
  return `must use https (plain http is accepted only for loopback hosts such as 127.0.0.1 or localhost): ${quote(value)}`;
}

/** Whether `value` is a URL on this machine (the local emulator's); anything that does not parse is not. */
export function isLoopbackUrl(value: string): boolean {
  try {
    return isLoopbackHost(new URL(value).hostname);
  } catch {
    return false;
  }
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
