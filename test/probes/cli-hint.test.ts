/**
 * A library error's hint names the library's option; the CLI prints the
 * same hint with the flag (and variable) that sets that option instead.
 */
import { NetworkError } from "../../lib/errors";
import { TokenEndpointError } from "../../lib/token-client";
import { ON_BEHALF_OF_FLOW } from "../../lib/token-flows";
import { cliHint } from "../../probes/report";

const refusal = (code: number) => new TokenEndpointError("hop 3", 400, { error: "invalid_grant", error_codes: [code] }).hint!;

describe("hints in options for the library, in flags for the CLI", () => {
  it.each([700016, 65001, 50034])("AADSTS%i: consistencyWindowMs: 120000 in the library, --consistency-window 120 in the CLI", (code) => {
    const hint = refusal(code);
    expect(hint).toContain("(consistencyWindowMs: 120000)");
    expect(hint).not.toContain("--");
    expect(cliHint(hint)).toContain("(--consistency-window 120)");
    expect(cliHint(hint)).not.toContain("consistencyWindowMs");
  });

  it("AADSTS500011 names resource and tokenExchangeAudience in the library, their flags and variables in the CLI", () => {
    const hint = refusal(500011);
    expect(hint).toMatch(/check `resource` .* check `tokenExchangeAudience`/);
    expect(hint).not.toContain("--");
    expect(cliHint(hint)).toMatch(/check --resource \(AGENT_USER_RESOURCE_URL\) .* check --token-exchange-audience \(AGENT_USER_TOKEN_EXCHANGE_AUDIENCE\)/);
  });

  it("a timeout names timeoutMs in the library, --timeout in the CLI", () => {
    const hint = new NetworkError("hop 1", "ETIMEDOUT", "no answer within 15000 ms").hint!;
    expect(hint).toContain("raise `timeoutMs`");
    expect(cliHint(hint)).toContain("raise --timeout");
  });

  it.each([500131, 50027])("AADSTS%i on the on-behalf-of hop names userAssertion in the library, the file --on-behalf-of names in the CLI", (code) => {
    const hint = ON_BEHALF_OF_FLOW.hints[code]!;
    expect(hint).toContain("(`userAssertion`)");
    expect(hint).not.toContain("--");
    expect(cliHint(hint)).toContain("(the file --on-behalf-of names)");
    expect(cliHint(hint)).not.toContain("userAssertion");
  });

  it("leaves a hint that names no option as it is", () => {
    expect(cliHint(refusal(7000215))).toBe(refusal(7000215));
  });
});
