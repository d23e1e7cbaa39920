import type { JwtClaims } from "../../lib/jwt";
import type { EmulatorContext, EmulatorResponse, Reply } from "../router";
import type { Application, ServicePrincipal } from "../store";
import type { RequestedScope } from "./scope";

/**
 * What every grant's handler shares with the token endpoint: the client it
 * resolved, and the endpoint's own steps (a required parameter, the resource
 * a scope names, a token answer), handed to each grant module so that every
 * grant reads and answers as the endpoint does.
 */

/** The client a token request names, as the endpoint resolved it: an application, or an agent identity. */
export type Client = { kind: "application"; app: Application } | { kind: "agentIdentity"; identity: ServicePrincipal };

/** What a delegated token's answer carries beside the access token, each only when the request asked for it. */
export interface UserTokenExtras {
  scope: string;
  refresh_token?: string;
  id_token?: string;
  client_info?: string;
}

export interface TokenKit {
  /** The form's parameter, or AADSTS900144 naming it. */
  required(form: URLSearchParams, name: string): string;
  /** The service principal a scope names; the emulator's own origin stands for Graph. AADSTS500011 when the tenant has none. */
  resolveResource(ctx: EmulatorContext, requested: RequestedScope): ServicePrincipal;
  /** A token answer: the claims signed, with the extras a delegated token carries. */
  issue(ctx: EmulatorContext, claims: JwtClaims, lifetimeS: number, extras?: UserTokenExtras): EmulatorResponse;
  /** AADSTS7000216: the request carried no client credential. */
  noCredential(grant: string): Reply;
}
