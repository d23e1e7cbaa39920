import packageJson from "../package.json";

/**
 * The package version, carried by every dynamic resource as `providerVersion`
 * so that a new version updates each resource's serialized provider in state
 * and later deletes and refreshes run this code, not an older one.
 */
export const PROVIDER_VERSION: string = packageJson.version;
