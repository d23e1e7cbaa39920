import { quoteValue } from "./printable";

/**
 * An id that goes into a URL path as one segment. encodeURIComponent keeps
 * "." and "..", which URL parsing then resolves (and "%2e%2e" too), so an id
 * of ".." from a hostile answer or a bad input would point a request, and its
 * bearer token, at another path. Such an id is refused: the reason, or
 * undefined when the id is a proper segment.
 */
export function badSegment(value: string): string | undefined {
  if (value === "") return "is empty";
  let decoded = value;
  try {
    // Repeated: %252e%252e decodes to %2e%2e, which a server may decode again.
    for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(decoded); i++) decoded = decodeURIComponent(decoded);
  } catch {
    return "holds a malformed percent-escape";
  }
  if (decoded === "." || decoded === "..") return `is ${quoteValue(value)}, a path step rather than an id`;
  if (/[/\\]/.test(decoded)) return `holds a "/" or "\\\\" (${quoteValue(value)})`;
  return undefined;
}

/** The id as one encoded path segment, or `refuse(reason)`'s error. */
export function pathSegment(value: string, refuse: (reason: string) => Error): string {
  const reason = badSegment(value);
  if (reason) throw refuse(reason);
  return encodeURIComponent(value);
}
