/**
 * A consumer's own program declaring AgentUserKit, installed from the packed
 * tarball, through its whole life under the real engine: Pulumi's Node.js
 * host, the azuread plugin and the kit's dynamic providers against the
 * emulator.
 */
import { join } from "node:path";
import { DEFAULT_IDS } from "../../../emulator/seed";
import { lifecycleTests } from "./lifecycle";
import { consumerProject, type PulumiProject } from "./pulumi-cli";
import { useEngineWorld } from "./world";

jest.setTimeout(900_000);

const AGENTS = ["alpha", "beta", "gamma"];
const t = useEngineWorld();
let project: PulumiProject;

beforeAll(async () => {
  const { emulator } = t;
  project = consumerProject(t.world, "consumer", t.tarball(), join(__dirname, "kit-program.js"));
  await project.init("dev", {
    "consumer:graphUrl": emulator.httpsUrl,
    "consumer:authorityUrl": emulator.httpsUrl,
    "consumer:sponsors": JSON.stringify([DEFAULT_IDS.sponsorId]),
    "consumer:userDomain": DEFAULT_IDS.domain,
    "consumer:blueprintName": "Consumer blueprint",
    "consumer:agents": JSON.stringify(AGENTS),
  });
});

lifecycleTests("a consumer's AgentUserKit program, three agents, a client secret", () => ({
  project,
  emulator: t.emulator,
  agents: AGENTS,
  scopes: "Chat.Create Chat.ReadWrite ChatMessage.Send User.Read",
}));
