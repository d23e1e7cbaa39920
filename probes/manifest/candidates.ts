/** The paths looked at for the tooling manifest, and what was found at each. */

/** Where a candidate path came from. */
export type ManifestSource = "argument" | "environment" | "working-directory" | "tooling-directory";

export interface ManifestCandidate {
  path: string;
  source: ManifestSource;
}

export interface TriedPath extends ManifestCandidate {
  found: boolean;
  /** Files beside it whose names differ from it only in letter case. */
  caseVariants: string[];
}
