/**
 * The one token cache of the hop chain and the provisioner: its margin, its
 * single request in flight per key, `fresh`, and failures.
 */
import { EXPIRY_MARGIN_MS, TokenCache } from "../../../lib/token-cache";

type Token = { token: string; deadline: number };
const HOUR = 3_600_000;

/** A mint function that counts its calls and settles when told. */
function minter() {
  const pending: Array<{ resolve: (t: Token) => void; reject: (e: Error) => void }> = [];
  const mint = () => new Promise<Token>((resolve, reject) => pending.push({ resolve, reject }));
  return { mint, pending };
}

it("a token is served until EXPIRY_MARGIN_MS before it expires, then no more", async () => {
  const cache = new TokenCache<Token>();
  await cache.mint("k", false, async () => ({ token: "t", deadline: HOUR }));
  expect(EXPIRY_MARGIN_MS).toBe(5 * 60_000);
  expect(cache.get("k", 0)?.token).toBe("t");
  expect(cache.get("k", HOUR - EXPIRY_MARGIN_MS - 1)?.token).toBe("t");
  expect(cache.get("k", HOUR - EXPIRY_MARGIN_MS)).toBeUndefined();
  expect(cache.get("other", 0)).toBeUndefined();
});

it("concurrent callers of one key share one request; the first owns it, the rest joined", async () => {
  const cache = new TokenCache<Token>();
  const { mint, pending } = minter();
  const calls = [cache.mint("k", false, mint), cache.mint("k", false, mint), cache.mint("k", false, mint)];
  expect(pending).toHaveLength(1);
  pending[0]!.resolve({ token: "t", deadline: HOUR });
  expect((await Promise.all(calls)).map((c) => [c.token.token, c.joined])).toEqual([
    ["t", false],
    ["t", true],
    ["t", true],
  ]);
  // Settled, the request is no longer in flight: the next mint asks again.
  void cache.mint("k", false, mint);
  expect(pending).toHaveLength(2);
});

it("a fresh caller neither joins the request in flight nor lets anyone join its own", async () => {
  const cache = new TokenCache<Token>();
  const { mint, pending } = minter();
  const shared = cache.mint("k", false, mint);
  const fresh = cache.mint("k", true, mint);
  const later = cache.mint("k", false, mint);
  expect(pending).toHaveLength(2);
  pending[1]!.resolve({ token: "fresh", deadline: HOUR });
  pending[0]!.resolve({ token: "old", deadline: HOUR });
  expect((await fresh).token.token).toBe("fresh");
  expect([(await shared).token.token, (await later).token.token]).toEqual(["old", "old"]);
});

it("a failed request is not cached, and every caller that shared it gets the failure", async () => {
  const cache = new TokenCache<Token>();
  const { mint, pending } = minter();
  const calls = [cache.mint("k", false, mint), cache.mint("k", false, mint)];
  pending[0]!.reject(new Error("refused"));
  await Promise.all(calls.map((call) => expect(call).rejects.toThrow("refused")));
  expect(cache.get("k", 0)).toBeUndefined();
  void cache.mint("k", false, mint);
  expect(pending).toHaveLength(2);
});

it("clear forgets every cached token", async () => {
  const cache = new TokenCache<Token>();
  await cache.mint("k", false, async () => ({ token: "t", deadline: HOUR }));
  cache.clear();
  expect(cache.get("k", 0)).toBeUndefined();
});

it("a request is cancelled once every waiter's signal has fired, and forgotten; a waiter without a signal keeps it going", async () => {
  const cache = new TokenCache<Token>();
  const signals: Array<AbortSignal | undefined> = [];
  const mint = (signal?: AbortSignal) => {
    signals.push(signal);
    return new Promise<Token>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason as Error)));
  };
  const a = new AbortController();
  const b = new AbortController();
  const calls = [cache.mint("k", false, mint, a.signal), cache.mint("k", false, mint, b.signal)].map((call) => call.catch((err: unknown) => err));
  a.abort();
  expect(signals[0]!.aborted).toBe(false);
  b.abort();
  expect(signals[0]!.aborted).toBe(true);
  expect((await Promise.all(calls)).every((err) => err instanceof Error && err.name === "AbortError")).toBe(true);
  // Forgotten at once: the next caller starts its own request rather than joining a cancelled one.
  void cache.mint("k", false, mint).catch(() => undefined);
  expect(signals).toHaveLength(2);

  const pinned = new TokenCache<Token>();
  const c = new AbortController();
  void pinned.mint("k", false, mint, c.signal).catch(() => undefined);
  void pinned.mint("k", false, mint).catch(() => undefined);
  c.abort();
  expect(signals[2]!.aborted).toBe(false);
  // A caller whose signal has already fired starts nothing.
  await expect(pinned.mint("other", false, mint, AbortSignal.abort())).rejects.toMatchObject({ name: "AbortError" });
  expect(signals).toHaveLength(3);
});
