import type { EmulatorRequest, EmulatorResponse, Route } from "../router";

/**
 * Azure Resource Manager's cloud metadata, as a cloud other than the public one
 * publishes it: `azuread:metadataHost 127.0.0.1:PORT` makes the azuread
 * provider read its login and Graph endpoints here. The fields are the ones
 * go-azure-sdk's environments.FromEndpoint reads
 * (hashicorp/go-azure-sdk sdk/internal/metadata/client.go, metaDataResponse):
 * it refuses an answer without name, resourceManager or microsoftGraphResourceId.
 * Graph and the token endpoint are the emulator's own origin, which its token
 * endpoint takes as Graph's resource.
 */
export const METADATA_API_VERSION = "2022-09-01";

function armError(status: number, code: string, message: string): EmulatorResponse {
  return { status, body: { error: { code, message } } };
}

function metadataEndpoints(req: EmulatorRequest): EmulatorResponse {
  // go-azure-sdk asks over https://metadataHost only; a plain-HTTP answer would teach a client a cloud no one serves.
  if (!req.origin.startsWith("https://")) {
    return armError(404, "NotFound", "[emulator] cloud metadata is served on the HTTPS listener only: set azuread:metadataHost to its host:port");
  }
  const apiVersion = req.url.searchParams.get("api-version");
  if (apiVersion === null) {
    return armError(400, "MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.");
  }
  if (apiVersion !== METADATA_API_VERSION) {
    return armError(400, "InvalidApiVersionParameter", `[emulator rule] The api-version '${apiVersion}' is invalid. The supported version is '${METADATA_API_VERSION}'.`);
  }
  const origin = req.origin;
  return {
    status: 200,
    body: {
      name: "AgentUserKitEmulator",
      portal: origin,
      authentication: { loginEndpoint: origin, audiences: [`${origin}/`], tenant: "common", identityProvider: "AAD" },
      resourceManager: `${origin}/`,
      microsoftGraphResourceId: `${origin}/`,
      suffixes: {},
    },
  };
}

export const metadataRoutes: Route[] = [{ method: "GET", pattern: /^\/metadata\/endpoints$/, surface: "other", handler: metadataEndpoints }];
