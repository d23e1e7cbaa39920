import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { UsageError } from "../../lib/errors";
import { PACKAGE_VERSION } from "../../lib/version";

/*
 * The kit's Graph objects are dynamic resources: Pulumi's engine runs their
 * provider with pulumi-resource-pulumi-nodejs, started in the program's
 * folder whatever the program's language, and that host resolves
 * @pulumi/pulumi, and the kit's provider code resolves agent-user-kit, from
 * that folder's node_modules (pulumi/pulumi#5455). A Python, Go, C# or YAML
 * program's folder has none unless its user installed them there, and the
 * host would then fail halfway through `pulumi up`, after the component's
 * other resources were made, with a bare "Cannot find module". So the plugin
 * checks the folder before it registers anything.
 */

/** What the folder's node_modules must hold: the module the dynamic-provider host loads first, and this kit at this version. */
export interface ProgramFolderModules {
  /** Resolves `id` from `folder` as the dynamic-provider host does; throws MODULE_NOT_FOUND for a missing one. */
  resolve(id: string, folder: string): string;
  /** The text of a file. */
  read(file: string): string;
}

const NODE_MODULES: ProgramFolderModules = {
  // As from a module in the folder: this file's own require would find agent-user-kit by its own name, anywhere.
  resolve: (id, folder) => createRequire(join(folder, "program.js")).resolve(id),
  read: (file) => readFileSync(file, "utf8"),
};

/** The problems the folder has for the dynamic providers, each a sentence; empty when it is ready. */
export function programFolderProblems(folder: string, modules: ProgramFolderModules = NODE_MODULES): string[] {
  const problems: string[] = [];
  const find = (id: string): string | undefined => {
    try {
      return modules.resolve(id, folder);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw err;
      return undefined;
    }
  };
  if (find("@pulumi/pulumi/cmd/dynamic-provider") === undefined) problems.push("@pulumi/pulumi is not installed there");
  const kit = find("agent-user-kit/package.json");
  if (kit === undefined) problems.push("agent-user-kit is not installed there");
  else {
    const version = (JSON.parse(modules.read(kit)) as { version?: unknown }).version;
    if (version !== PACKAGE_VERSION) problems.push(`the agent-user-kit installed there is ${JSON.stringify(version)}, not this plugin's ${PACKAGE_VERSION}`);
  }
  return problems;
}

/** Throws, before any resource is registered, when the program's folder cannot run the kit's dynamic providers. */
export function checkProgramFolder(component: string, folder: string, modules?: ProgramFolderModules): void {
  const problems = programFolderProblems(folder, modules);
  if (problems.length === 0) return;
  throw new UsageError(
    `${component}: Pulumi runs the kit's Graph resources (dynamic providers) from the program's folder, ${folder}, and ${problems.join("; ")} (pulumi/pulumi#5455)`,
    `in that folder: npm install agent-user-kit@${PACKAGE_VERSION} @pulumi/pulumi @pulumi/azuread`,
    "the agent-user-kit plugin",
  );
}
