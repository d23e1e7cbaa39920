/**
 * The package's `main`: the Pulumi provider plugin, which the executable
 * `pulumi-resource-agent-user-kit` at the package's root runs (imports by
 * name resolve through `exports`, so `import … from "agent-user-kit"` is
 * still the token library). What this exports, a function, serves
 * AgentUserKit to programs in any Pulumi language.
 */
import "../peer-check";
import { main } from "@pulumi/pulumi/provider";
import { PackageProvider } from "./provider";

export = function serve(): Promise<void> {
  // The engine's arguments follow the executable's name, as for any plugin.
  return main(new PackageProvider(), process.argv.slice(2));
};
