/**
 * TEST ONLY: the entry of the `pulumi-resource-azuread` stand-in
 * (provider.ts), which the engine tests install from the launcher
 * launcher.ts writes. The engine starts it with its own address as the
 * argument and reads the port it serves on from the first line of stdout,
 * so nothing else here writes to stdout.
 */
import { main } from "@pulumi/pulumi/provider";
import { guardConfigure } from "./configure-guard";
import { StandInProvider } from "./provider";

guardConfigure();
void main(new StandInProvider(), process.argv.slice(2));
