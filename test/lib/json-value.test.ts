/**
 * The one JSON-object check (lib/json-value.ts) that the manifest, the stack
 * outputs, the stack config, the token and Graph clients, the comments probe
 * and the emulator use on parsed JSON.
 */
import { decodeJwt } from "../../lib/jwt";
import { isObject, jsonKind } from "../../lib/json-value";

const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("isObject", () => {
  it.each([{}, { a: 1 }, Object.create(null) as object])("%j is a JSON object", (value) => {
    expect(isObject(value)).toBe(true);
  });

  it.each([null, [], [{}], "{}", 1, true, undefined])("%j is not", (value) => {
    expect(isObject(value)).toBe(false);
  });

  it("keeps a JWS whose header or claims are an array from decoding", () => {
    expect(decodeJwt(`${segment({ alg: "RS256" })}.${segment({ sub: "x" })}.c2ln`)).toBeDefined();
    expect(decodeJwt(`${segment({ alg: "RS256" })}.${segment(["sub"])}.c2ln`)).toBeUndefined();
    expect(decodeJwt(`${segment([{ alg: "RS256" }])}.${segment({ sub: "x" })}.c2ln`)).toBeUndefined();
  });
});

describe("jsonKind", () => {
  it.each([
    [null, "null"],
    [[1], "an array"],
    [{ secret: "s3cret" }, "an object"],
    ["s3cret", "a string"],
    [42, "a number"],
    [false, "a boolean"],
  ])("names %j as %s, never its value", (value, kind) => {
    expect(jsonKind(value)).toBe(kind);
  });
});
