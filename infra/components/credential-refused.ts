import * as pulumi from "@pulumi/pulumi";
import { USE_MANAGED_IDENTITY } from "../../lib/graph-client";

/*
 * A tenant may refuse secrets and certificates on agent identity blueprints
 * (Entra's create-blueprint page), with no documented error code. azuread's
 * error for it is the bare Graph 400 of addPassword, or of the application
 * PATCH that writes keyCredentials; an error hook on those two resources
 * names the fix beside it.
 */

/** The blueprint credentials a tenant may refuse, as the user's `credential` mode names them. */
export type RefusableCredential = "secret" | "certificate";

/**
 * azuread's words for the add step itself (terraform-provider-azuread:
 * ApplicationPassword's `Adding password for`, around addPassword;
 * ApplicationCertificate's `Adding certificate for`, around the
 * keyCredentials PATCH). The same resources first read the application
 * (`Retrieving Application`), and a 400 there says nothing of the tenant's
 * policy.
 */
const ADD_STEP: Record<RefusableCredential, RegExp> = { secret: /\bAdding password for\b/, certificate: /\bAdding certificate for\b/ };
/** azuread reports Graph's status and code in the text: `unexpected status 400 (400 Bad Request) with error: Request_BadRequest: …`. */
const BAD_REQUEST = /\bstatus 400\b|\bRequest_BadRequest\b/;

/**
 * What to add to a failed create of the blueprint's credential: the fix for
 * a tenant that refuses it, only when the add step itself was answered with
 * a 400 (a 403 or a throttle is azuread's own error, already clear).
 */
export function credentialRefusalMessage(blueprint: string, mode: RefusableCredential, failedOperation: string, errors: readonly string[]): string | undefined {
  const newest = errors[0] ?? "";
  if (failedOperation !== "create" || !ADD_STEP[mode].test(newest) || !BAD_REQUEST.test(newest)) return undefined;
  const what = mode === "secret" ? "a client secret (addPassword)" : "a certificate (keyCredentials)";
  return (
    `AgentIdentityBlueprint ${JSON.stringify(blueprint)}: Microsoft Graph refused ${what} on the blueprint with a 400. ` +
    `Only some tenants accept secrets and certificates on agent identity blueprints: ${USE_MANAGED_IDENTITY}`
  );
}

/**
 * One hook per credential mode and deployment (keyed by its resource
 * monitor): the engine refuses a second hook of one name, and two blueprints
 * of one name may stand under different parents. The hook reads the
 * blueprint's name from the resource's, `{blueprint}-secret` or
 * `{blueprint}-certificate`.
 */
const HOOKS = new WeakMap<object, Partial<Record<RefusableCredential, pulumi.ErrorHook>>>();

/**
 * The hooks for the resource that adds the blueprint's credential, where the
 * deployment can run them: a Pulumi CLI that supports error hooks, and not
 * under `pulumi.runtime.setMocks`, whose monitor cannot register one (a unit
 * test of a program must not fail for a hook it never runs).
 */
export function credentialRefusedHooks(mode: RefusableCredential): pulumi.ResourceHookBinding | undefined {
  const monitor = pulumi.runtime.getMonitor();
  if (!monitor || !errorHooksSupported(monitor)) return undefined;
  const hooks = HOOKS.get(monitor) ?? {};
  HOOKS.set(monitor, hooks);
  hooks[mode] ??= new pulumi.ErrorHook(`agent-user-kit-blueprint-${mode}-refused`, (args) => {
    const blueprint = args.name.endsWith(`-${mode}`) ? args.name.slice(0, -(mode.length + 1)) : args.name;
    const message = credentialRefusalMessage(blueprint, mode, args.failedOperation, args.errors);
    if (message) pulumi.log.error(message);
    // A refusal is final: retrying cannot change the tenant's policy.
    return false;
  });
  return { onError: [hooks[mode]] };
}

function errorHooksSupported(monitor: object): boolean {
  // A language host whose monitor proxy serves no RegisterErrorHook (Pulumi's Node.js host v3.68.0, the
  // last the Go module proxy serves) says so here; the engine itself would still claim the feature.
  if (process.env.AGENT_USER_KIT_ERROR_HOOKS === "off") return false;
  if (typeof pulumi.ErrorHook !== "function" || typeof (monitor as { registerErrorHook?: unknown }).registerErrorHook !== "function") return false;
  try {
    // The engine's answer to "does it support error hooks", read once the program starts; not in
    // @pulumi/pulumi's public API, so anything unexpected means no hook rather than a failed `pulumi up`.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const state = require("@pulumi/pulumi/runtime/state") as { getStore?: () => { supportsErrorHooks?: unknown } };
    return state.getStore?.().supportsErrorHooks === true;
  } catch {
    return false;
  }
}
