/** Identifiers Entra fixes for every tenant (reference section 1). */

/** Microsoft Graph's appId: its service principal is a grant's resource for Graph scopes. */
export const MICROSOFT_GRAPH_APP_ID = "00000003-0000-0000-c000-000000000000";
