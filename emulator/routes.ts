import { metadataRoutes } from "./arm/metadata-endpoints";
import { applicationCredentialRoutes } from "./graph/application-credentials";
import { applicationObjectRoutes } from "./graph/application-object";
import { applicationRoutes } from "./graph/applications";
import { appRoleAssignmentRoutes } from "./graph/app-role-assignments";
import { blueprintApiRoutes } from "./graph/blueprint-api";
import { domainRoutes } from "./graph/domains";
import { fileRoutes } from "./graph/files";
import { grantRoutes } from "./graph/grants";
import { servicePrincipalRoutes } from "./graph/service-principals";
import { userRoutes } from "./graph/users";
import { discoveryRoutes } from "./idp/discovery";
import { imdsRoutes } from "./idp/imds";
import { tokenRoutes } from "./idp/token-endpoint";
import { untypedCreateRoutes } from "./graph/untyped-creates";
import type { Route } from "./router";

/** Every API surface the emulator serves: one handler module each. */
export const ROUTES: readonly Route[] = [
  ...metadataRoutes,
  ...tokenRoutes,
  ...discoveryRoutes,
  ...imdsRoutes,
  ...fileRoutes,
  ...applicationRoutes,
  // After the typed collection, whose path `/applications/{id}` would match too.
  ...applicationObjectRoutes,
  ...applicationCredentialRoutes,
  ...servicePrincipalRoutes,
  // After the typed service principal routes, whose URLs the untyped object's pattern would match too.
  ...appRoleAssignmentRoutes,
  ...blueprintApiRoutes,
  ...userRoutes,
  ...untypedCreateRoutes,
  ...grantRoutes,
  ...domainRoutes,
];
