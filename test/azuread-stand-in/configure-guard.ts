/**
 * The Node provider SDK answers the engine's Configure itself and drops the
 * configuration (@pulumi/pulumi/provider/server.js `configure`), so an
 * explicit `new azuread.Provider(...)` or a stack's `azuread:` settings would
 * be ignored without a word. Before the SDK registers its gRPC service, this
 * wraps that one method: it reads the configuration the engine sends (the
 * `azuread:config:*` variables and the provider's arguments) and the
 * environment, and fails the configure, naming each setting, when the
 * stand-in cannot honour them (settings.ts configurationProblems,
 * settingsFromEnvironment). Otherwise the SDK's own configure answers.
 */
import { createRequire } from "node:module";
import { configurationProblems, settingsFromEnvironment, STAND_IN } from "./settings";
import { reveal } from "./values";

interface ConfigureRequest {
  getVariablesMap(): { forEach(each: (value: string, key: string) => void): void };
  getArgs(): { toJavaScript(): Record<string, unknown> } | undefined;
}

type Callback = (err: { code: number; details: string } | null, value?: unknown) => void;
type Handler = (call: { request: ConfigureRequest }, callback: Callback) => void;

interface GrpcServerClass {
  prototype: { addService(service: Record<string, { path?: string }>, implementation: Record<string, unknown>): void };
}

const CONFIGURE_PATH = "/pulumirpc.ResourceProvider/Configure";
/** gRPC's FAILED_PRECONDITION: the provider cannot run as configured. */
const FAILED_PRECONDITION = 9;

/** The configuration a Configure request carries, by setting name (`azuread:config:clientId` → `clientId`). */
export function configurationOf(request: ConfigureRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  request.getVariablesMap().forEach((value, key) => {
    if (key.startsWith("azuread:")) config[key.slice(key.lastIndexOf(":") + 1)] = value;
  });
  for (const [name, value] of Object.entries(request.getArgs()?.toJavaScript() ?? {})) config[name] = reveal(value);
  return config;
}

/** Why the stand-in cannot run as this request configures it, or undefined when it can. */
export function configureRefusal(request: ConfigureRequest, env: NodeJS.ProcessEnv): string | undefined {
  try {
    settingsFromEnvironment(env);
  } catch (err) {
    return (err as Error).message;
  }
  const problems = configurationProblems(configurationOf(request), env);
  if (problems.length === 0) return undefined;
  return `${STAND_IN} acts on the environment alone and cannot honour this provider configuration: ${problems.join("; ")}`;
}

/** Wraps the provider service's configure in every gRPC server made after this call. */
export function guardConfigure(env: NodeJS.ProcessEnv = process.env): void {
  const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi/provider"));
  const { Server } = pulumiRequire("@grpc/grpc-js") as { Server: GrpcServerClass };
  const addService = Server.prototype.addService;
  Server.prototype.addService = function (service, implementation) {
    const configure = implementation.configure;
    if (service.configure?.path === CONFIGURE_PATH && typeof configure === "function") {
      const original = configure as Handler;
      const guarded: Handler = (call, callback) => {
        const refusal = configureRefusal(call.request, env);
        if (refusal) callback({ code: FAILED_PRECONDITION, details: refusal });
        else original.call(implementation, call, callback);
      };
      implementation = Object.assign(Object.create(implementation) as Record<string, unknown>, { configure: guarded });
    }
    addService.call(this, service, implementation);
  };
}
