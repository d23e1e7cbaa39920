/**
 * Imported first by each entry that needs the Pulumi peers, so that a missing
 * one is named before anything that loads it runs.
 */
import { requirePeers } from "./peers";

requirePeers();
