import * as pulumi from "@pulumi/pulumi";
import type { BlueprintCredentialArgs } from "../components/blueprint";
import { kitSource, refuseDeepArgs, type AgentUserKitArgs } from "../components/kit-args";
import { isPending } from "../components/pending";
import { isObject } from "../../lib/json-value";
import { quoteValue } from "../../lib/printable";
import { ConfigError, CREDENTIAL_MODES, SECRET_VALUE, type ConfigKey, type CredentialMode } from "../config";
import { fieldName } from "../config-keys";

/*
 * AgentUserKit's arguments as Python, Go, C# and YAML programs give them
 * (scripts/pulumi-schema.js writes the package schema from these
 * declarations and their comments): the TypeScript arguments, except that
 * `credential`, a union of object shapes there, is one object whose `mode`
 * says which of its fields apply. The earlier flat credential arguments,
 * deprecated, stay TypeScript's.
 */

/** Where the blueprint's new user-assigned managed identity is created. */
export interface NewIdentityArgs {
  /** Resource group to create it in (the plugin then needs @pulumi/azure-native installed beside it). */
  resourceGroupName: pulumi.Input<string>;
  /** Azure region to create it in, e.g. westeurope. */
  location: pulumi.Input<string>;
}

/** How the blueprint proves itself in hop 1: `mode` decides which credential resource exists, and which of the other fields apply. */
export interface CredentialArgs {
  /**
   * secret: a client secret (a Pulumi secret in the blueprintClientSecret output); managedIdentity: a federated
   * credential that trusts a managed identity, existing (existingPrincipalId) or new (newIdentity); certificate:
   * an uploaded public certificate.
   */
  mode: pulumi.Input<CredentialMode>;
  /** In secret mode: the RFC 3339 expiry of the client secret; Entra chooses when absent. */
  endDate?: pulumi.Input<string>;
  /** In managedIdentity mode: the principal (object) id of an existing managed identity to trust. */
  existingPrincipalId?: pulumi.Input<string>;
  /** In managedIdentity mode, instead of existingPrincipalId: where to create a user-assigned managed identity to trust. */
  newIdentity?: pulumi.Input<NewIdentityArgs>;
  /** In certificate mode: the public certificate (PEM) to upload; its expiry is the certificate's own. */
  certificatePem?: pulumi.Input<string>;
}

/** AgentUserKit's arguments in every Pulumi language: each TypeScript argument, with `credential` as one object. */
export interface AgentUserKitPackageArgs extends Omit<AgentUserKitArgs, "credential"> {
  /**
   * How the blueprint proves itself in hop 1; a client secret by default. An Output for the whole credential
   * (or for its mode) defers the credential resource until it resolves: a preview while it is unknown cannot list it.
   */
  credential?: pulumi.Input<CredentialArgs>;
}

/** The fields of CredentialArgs each mode takes, beside `mode`. */
const MODE_FIELDS: Record<CredentialMode, ReadonlyArray<keyof CredentialArgs>> = {
  secret: ["endDate"],
  managedIdentity: ["existingPrincipalId", "newIdentity"],
  certificate: ["certificatePem"],
};

/** The earlier flat credential arguments: TypeScript's alone, so none of the package's. */
type TypeScriptOnly = "secretEndDate" | "managedIdentityPrincipalId" | "resourceGroupName" | "location" | "certificatePem";
const TYPESCRIPT_ONLY: ReadonlyArray<TypeScriptOnly> = ["secretEndDate", "managedIdentityPrincipalId", "resourceGroupName", "location", "certificatePem"];

/** The package's arguments, as its schema lists them; the compiler holds this to AgentUserKitPackageArgs. */
const PACKAGE_ARGS: Record<Exclude<keyof AgentUserKitPackageArgs, TypeScriptOnly>, true> = {
  blueprintName: true,
  sponsors: true,
  userDomain: true,
  agents: true,
  scopes: true,
  allowedScopes: true,
  resourceAppId: true,
  credential: true,
  graphUrl: true,
  authorityUrl: true,
  tokenExchangeAudience: true,
  consistencyWindowSeconds: true,
  onBehalfOfScope: true,
  onBehalfOfClients: true,
  singleAgentNames: true,
};

/** The package's argument names, in the schema's order. */
export const PACKAGE_ARG_NAMES: readonly string[] = Object.keys(PACKAGE_ARGS);

/**
 * What is wrong with each field beside the package's arguments, by its name
 * (never its value, which may be a credential): dropped silently, it would be
 * a setting the program believes it made.
 */
export function unknownArgProblems(args: object): Array<{ field: string; message: string }> {
  return Object.keys(args)
    .filter((key) => !Object.hasOwn(PACKAGE_ARGS, key))
    .map((key) => ({
      field: fieldName(key),
      message: (TYPESCRIPT_ONLY as readonly string[]).includes(key)
        ? "is the TypeScript component's earlier form of credential, not an argument of the package: give it inside credential"
        : `is not an argument of AgentUserKit (${PACKAGE_ARG_NAMES.join(", ")})`,
    }));
}

/**
 * The TypeScript arguments the package arguments stand for: a field that is
 * none of them, or one nested deeper than any the kit takes, is refused by
 * name; `credential` becomes the shape of its mode, checked for fields of
 * another mode first (they would be dropped silently); AgentUserKit checks
 * the rest as it checks a TypeScript program's arguments.
 */
export function kitArgs(name: string, args: AgentUserKitPackageArgs): AgentUserKitArgs {
  const unknown = unknownArgProblems(args);
  // A field's name is shown as ConfigError shows a key: the problem's key.
  if (unknown.length > 0) throw new ConfigError(unknown.map(({ field, message }) => ({ key: field as ConfigKey, message })), kitSource(name));
  refuseDeepArgs(name, args);
  const { credential, ...rest } = args;
  if (credential === undefined) return rest;
  if (!isPending(credential) && !isPending(credential.mode)) return { ...rest, credential: credentialShape(name, credential, false) };
  // A program's secret (fn::secret in YAML) arrives as a secret Output: its problems name the field, never the value.
  const whole = pulumi.output(credential);
  return { ...rest, credential: pulumi.all([whole, pulumi.isSecret(whole)]).apply(([c, secret]) => credentialShape(name, c, secret)) };
}

function credentialShape(name: string, credential: CredentialArgs | pulumi.UnwrappedObject<CredentialArgs>, secret: boolean): BlueprintCredentialArgs {
  const fail = (message: string): never => {
    throw new ConfigError([{ key: "credential", message }], kitSource(name));
  };
  const quote = (value: unknown) => (secret ? SECRET_VALUE : quoteValue(value));
  if (!isObject(credential as unknown)) return fail(`must be an object with a mode (${CREDENTIAL_MODES.join(", ")}), not ${quote(credential)}`);
  const mode = credential.mode as CredentialMode;
  const allowed = Object.hasOwn(MODE_FIELDS, mode) ? MODE_FIELDS[mode] : undefined;
  if (allowed === undefined) return fail(`mode must be one of ${CREDENTIAL_MODES.join(", ")}, got ${quote(mode)}`);
  const stray = (Object.keys(credential) as Array<keyof CredentialArgs>).filter((key) => key !== "mode" && credential[key] !== undefined && !allowed.includes(key));
  if (stray.length > 0) return fail(`${stray.join(" and ")} ${stray.length === 1 ? "is" : "are"} not used in ${mode} mode; remove ${stray.length === 1 ? "it" : "them"} or change mode`);
  if (mode === "secret") return { mode, endDate: credential.endDate };
  if (mode === "certificate") {
    if (credential.certificatePem === undefined) return fail("certificatePem is required in certificate mode: the public certificate (PEM) to upload");
    return { mode, certificatePem: credential.certificatePem };
  }
  if (credential.existingPrincipalId !== undefined && credential.newIdentity !== undefined) return fail("existingPrincipalId and newIdentity are two ways to name the managed identity; give one");
  if (credential.existingPrincipalId !== undefined) return { mode, existingPrincipalId: credential.existingPrincipalId };
  if (credential.newIdentity === undefined) return fail("managedIdentity mode needs existingPrincipalId (an existing identity) or newIdentity (where to create one)");
  const identity = credential.newIdentity;
  if (!isPending(identity)) return { mode, newIdentity: identity };
  return { mode, newIdentity: { resourceGroupName: pulumi.output(identity).resourceGroupName, location: pulumi.output(identity).location } };
}
