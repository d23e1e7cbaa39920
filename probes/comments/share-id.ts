import { quoteValue } from "../../lib/printable";
import { UsageError } from "../../lib/errors";

const HINT = 'give the sharing link exactly as "Copy link" produced it, e.g. https://contoso.sharepoint.com/:w:/s/site/E...';
const STEP = "share URL";

/**
 * Checks a sharing URL before anything is sent: absolute, https and with a
 * host. Unlike the Graph and authority URLs, no loopback exception: the link
 * is never fetched, only encoded, and Graph resolves only https links.
 */
export function validateShareUrl(value: string | undefined): string {
  const text = value?.trim() ?? "";
  if (text === "") throw new UsageError("missing <share_url>, the sharing link of the file whose comments to capture", HINT, STEP);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`not an absolute URL: ${quoteValue(text)}`, HINT, STEP);
  }
  if (url.protocol !== "https:") throw new UsageError(`must use https, got ${url.protocol.replace(/:$/, "")}: ${quoteValue(text)}`, HINT, STEP);
  // The URL parser repairs "https:host" and "https:///host" into a host; a link written that way was not copied whole.
  if (!/^https:\/\/[^/?#]/i.test(text)) throw new UsageError(`no host after "https://": ${quoteValue(text)}`, HINT, STEP);
  return text;
}

/** Graph's share id: "u!" and the unpadded base64url of the link's UTF-8 bytes. */
export function shareIdFor(shareUrl: string): string {
  return `u!${Buffer.from(shareUrl, "utf8").toString("base64url")}`;
}
