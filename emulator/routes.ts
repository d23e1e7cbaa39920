import { fileRoutes } from "./graph/files";
import { discoveryRoutes } from "./idp/discovery";
import { imdsRoutes } from "./idp/imds";
import { tokenRoutes } from "./idp/token-endpoint";
import type { Route } from "./router";

/** Every API surface the emulator serves: one handler module each. */
export const ROUTES: readonly Route[] = [...tokenRoutes, ...discoveryRoutes, ...imdsRoutes, ...fileRoutes];
