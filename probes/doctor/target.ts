import type { StackOutputs } from "../../lib/stack-outputs";
import type { ProbeSettings } from "../settings";

/** One agent doctor checks: its outputs and the settings its tokens are minted with. */
export interface DoctorTarget {
  /** The outputs, narrowed to one agent. */
  outputs: Partial<StackOutputs>;
  settings: ProbeSettings;
}
