/**
 * TEST ONLY. A stand-in for the azuread Pulumi provider plugin (pulumi-azuread
 * 6.9.1, which wraps HashiCorp's terraform-provider-azuread v3.8.0), for
 * machines that cannot get the real one: it serves the five resources and
 * two functions the kit uses, making the Graph requests the real provider
 * makes, so that the engine tests run the kit's azuread resources against
 * the emulator. Never shipped, never on a user's PATH; a user's `pulumi up`
 * installs the real plugin.
 *
 * Every input and argument name is azuread's SDK's (schema-names.ts); the
 * behaviour of each (ForceNew, Computed, validation) is its Terraform
 * schema's, in the resource's file.
 *
 * Limit: the Node provider SDK's `configure` does not hand the provider its
 * configuration, so the stand-in acts on ARM_* alone (settings.ts). What it
 * can see of a configuration it checks (configure-guard.ts): a stack's
 * `azuread:` settings or an explicit `new azuread.Provider(...)`'s arguments
 * that say something other than the environment make the provider's
 * configure fail, naming them, instead of being ignored.
 */
import type { CheckResult, CreateResult, DiffResult, InvokeResult, Provider, ReadResult, UpdateResult } from "@pulumi/pulumi/provider";
import { FUNCTIONS, type FunctionKind } from "./functions";
import { checkInputs, planChanges, type Operation, type ResourceKind } from "./resource";
import { RESOURCES } from "./resources";
import { SchemaNames, azureadPackageDir, azureadVersion } from "./schema-names";
import { connect, type Session, type SessionOptions } from "./session";
import { standInRefusal } from "./settings";
import { revealAll, secretNames, withSecrets, type PropertyMap } from "./values";

export interface StandInOptions extends SessionOptions {
  /** Where @pulumi/azuread is installed; the one this module resolves by default. */
  azureadDir?: string;
}

/** The rules of a resource and the SDK's inputs must name the same properties, both ways. */
function verifyRules(kind: ResourceKind, inputs: ReadonlySet<string>): void {
  const ruled = Object.keys(kind.rules);
  const extra = ruled.filter((name) => !inputs.has(name));
  const missing = [...inputs].filter((name) => !ruled.includes(name));
  if (extra.length > 0 || missing.length > 0) {
    throw new Error(`the stand-in's rules for ${kind.token} and azuread's SDK disagree: rules for ${extra.join(", ") || "nothing"} it lacks, none for ${missing.join(", ") || "nothing"} it has`);
  }
}

/** `urn:pulumi:stack::project::parent$azuread:index/x:X::name` → `azuread:index/x:X`. */
export const typeOfUrn = (urn: string): string => (urn.split("::")[2] ?? "").split("$").pop() ?? "";

export class StandInProvider implements Provider {
  readonly version: string;
  private readonly names: SchemaNames;
  private readonly resources = new Map<string, ResourceKind>(RESOURCES.map((kind) => [kind.token, kind]));
  private readonly functions = new Map<string, FunctionKind>(FUNCTIONS.map((fn) => [fn.token, fn]));
  private session?: Promise<Session>;

  constructor(private readonly options: StandInOptions = {}) {
    const dir = options.azureadDir ?? azureadPackageDir();
    this.names = new SchemaNames(dir);
    this.version = azureadVersion(dir);
    for (const kind of RESOURCES) verifyRules(kind, this.names.resource(kind.token).inputs);
  }

  async check(urn: string, _olds: PropertyMap, news: PropertyMap): Promise<CheckResult> {
    const kind = this.resourceOf(urn);
    return { inputs: news, failures: checkInputs(kind, this.names.resource(kind.token).inputs, news) };
  }

  async diff(_id: string, urn: string, olds: PropertyMap, news: PropertyMap): Promise<DiffResult> {
    const { changed, replaces } = planChanges(this.resourceOf(urn).rules, olds, news);
    return { changes: changed.length > 0, replaces, deleteBeforeReplace: false };
  }

  async create(urn: string, inputs: PropertyMap): Promise<CreateResult> {
    const kind = this.resourceOf(urn);
    const { id, outs } = await kind.create(await this.operation(), revealAll(inputs));
    return { id, outs: this.outputs(kind, id, outs, secretNames(inputs)) };
  }

  async read(id: string, urn: string, props: PropertyMap = {}): Promise<ReadResult> {
    const kind = this.resourceOf(urn);
    const outs = await kind.read(await this.operation(), id, revealAll(props));
    // An empty id tells the engine the object is gone: refresh drops it, up makes it again.
    if (!outs) return { id: "", props: {} };
    return { id, props: this.outputs(kind, id, outs, secretNames(props)) };
  }

  async update(id: string, urn: string, olds: PropertyMap, news: PropertyMap): Promise<UpdateResult> {
    const kind = this.resourceOf(urn);
    if (!kind.update) throw standInRefusal(`has no in-place update of ${kind.token}, whose every input replaces it`);
    const outs = await kind.update(await this.operation(), id, revealAll(olds), revealAll(news));
    return { outs: this.outputs(kind, id, outs, secretNames(news)) };
  }

  async delete(id: string, urn: string, props: PropertyMap): Promise<void> {
    const kind = this.resourceOf(urn);
    await kind.delete(await this.operation(), id, revealAll(props));
  }

  async invoke(token: string, args: PropertyMap): Promise<InvokeResult> {
    const fn = this.functions.get(token);
    if (!fn) throw standInRefusal(`serves only ${[...this.functions.keys()].join(", ")}, not ${token}`);
    const allowed = this.names.functionArgs(token);
    const strangers = Object.keys(args).filter((name) => !name.startsWith("__") && !allowed.has(name));
    if (strangers.length > 0) {
      const known = [...allowed].sort().join(", ") || "none";
      return { failures: strangers.map((name) => ({ property: name, reason: `${token} has no argument ${JSON.stringify(name)} in azuread's schema (its arguments: ${known})` })) };
    }
    const plain = Object.fromEntries(Object.entries(revealAll(args)).filter(([name, v]) => v !== undefined && !name.startsWith("__")));
    const failures = fn.check(plain);
    if (failures.length > 0) return { failures };
    const outputs = await fn.invoke(await this.connected(), plain);
    this.requireResultNames(fn.resultType, outputs);
    return { outputs };
  }

  private resourceOf(urn: string): ResourceKind {
    const token = typeOfUrn(urn);
    const kind = this.resources.get(token);
    if (!kind) throw standInRefusal(`serves only ${[...this.resources.keys()].join(", ")}, not ${token}`);
    return kind;
  }

  private connected(): Promise<Session> {
    this.session ??= connect(this.options).catch((err: unknown) => {
      // A failed sign-in is tried again by the next operation, as the engine may retry.
      this.session = undefined;
      throw err;
    });
    return this.session;
  }

  private async operation(): Promise<Operation> {
    const session = await this.connected();
    return { graph: session.graph, now: session.now };
  }

  /** The outputs with their id and secrets, every name one azuread's SDK has. */
  private outputs(kind: ResourceKind, id: string, outs: PropertyMap, inputSecrets: readonly string[]): PropertyMap {
    const { inputs, outputs } = this.names.resource(kind.token);
    const strangers = Object.keys(outs).filter((name) => name !== "id" && !inputs.has(name) && !outputs.has(name));
    if (strangers.length > 0) throw new Error(`the stand-in made outputs azuread's ${kind.token} does not have: ${strangers.join(", ")}`);
    return withSecrets({ ...outs, id }, [...kind.secretOutputs, ...inputSecrets]);
  }

  /** A function's result holds only the fields its SDK declares, nested ones included. */
  private requireResultNames(typeName: string, result: PropertyMap): void {
    const fields = this.names.resultFields(typeName);
    for (const [name, value] of Object.entries(result)) {
      if (!fields.has(name)) throw new Error(`the stand-in made a result field azuread's ${typeName} does not have: ${name}`);
      const nested = fields.get(name);
      if (nested && Array.isArray(value)) for (const element of value) this.requireResultNames(nested, element as PropertyMap);
    }
  }
}
