/**
 * The package's `main`: the Pulumi component plugin. Pulumi's Node.js host
 * runs a plugin by requiring its folder, which Node resolves through `main`
 * (imports by name resolve through `exports`, so `import … from
 * "agent-user-kit"` is still the token library). The host calls what this
 * exports, a function, and that serves AgentUserKit to programs in any
 * Pulumi language (PulumiPlugin.yaml).
 */
import "../peer-check";
import { main } from "@pulumi/pulumi/provider";
import { PackageProvider } from "./provider";

export = function serve(): Promise<void> {
  // The host has put the engine's arguments after the program's name, as a plugin's own argv.
  return main(new PackageProvider(), process.argv.slice(2));
};
