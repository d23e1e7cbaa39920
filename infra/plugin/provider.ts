import type * as pulumi from "@pulumi/pulumi";
import type { ConstructResult, Provider } from "@pulumi/pulumi/provider";
import { AgentUserError } from "../../lib/errors";
import { quoteValue } from "../../lib/printable";
import { PACKAGE_VERSION } from "../../lib/version";
import { AGENT_USER_KIT_TYPE, AgentUserKit } from "../components/agent-user-kit";
import { kitArgs, type AgentUserKitPackageArgs } from "./args";
import { checkProgramFolder, type ProgramFolderModules } from "./program-folder";

/**
 * The component package's provider, which Pulumi's engine calls for a program
 * in any language: the schema (`pulumi package get-schema`, and the SDKs
 * `pulumi package add` generates from it), and AgentUserKit constructed from
 * the program's arguments, its outputs the component's properties.
 */
export class PackageProvider implements Provider {
  readonly version = PACKAGE_VERSION;

  /** `programFolder` is where the engine runs the program, and this plugin: the plugin's working directory; `modules` resolves from it. */
  constructor(
    private readonly programFolder: () => string = process.cwd,
    private readonly modules?: ProgramFolderModules,
  ) {}

  /** The schema scripts/pulumi-schema.js writes beside this file at build time, from the declarations of the arguments and outputs. */
  async getSchema(): Promise<string> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return JSON.stringify(require("./schema.json"));
  }

  async construct(name: string, type: string, inputs: pulumi.Inputs, options: pulumi.ComponentResourceOptions): Promise<ConstructResult> {
    // The token is the program's: printed as a quoted value is, no control character obeyed, no megabyte echoed.
    if (type !== AGENT_USER_KIT_TYPE) throw new Error(`the agent-user-kit package has no component ${quoteValue(type)}; it has ${AGENT_USER_KIT_TYPE}`);
    try {
      checkProgramFolder(`AgentUserKit ${JSON.stringify(name)}`, this.programFolder(), this.modules);
      const kit = new AgentUserKit(name, kitArgs(name, inputs as AgentUserKitPackageArgs), options);
      return { urn: kit.urn, state: { ...kit.outputs } };
    } catch (err) {
      // The engine shows a component's error by its message alone: the fix goes into it.
      if (err instanceof AgentUserError && err.hint) throw new Error(`${err.message} (${err.hint})`);
      throw err;
    }
  }
}
