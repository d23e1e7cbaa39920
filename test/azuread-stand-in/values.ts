/**
 * Property values as the engine sends them to a provider that accepts
 * secrets (the Node provider SDK's configure says it does): a secret is an
 * object holding Pulumi's signature key, a value not known yet (preview) is
 * the unknown sentinel, and an output value carries both flags. A provider
 * returns secrets in the same signature form, which is how the engine knows
 * to encrypt them in the state; the SDK passes what it is given through.
 */
import { specialOutputValueSig as OUTPUT_VALUE_SIG, specialSecretSig, specialSigKey, unknownValue } from "@pulumi/pulumi/runtime/rpc";

export type PropertyMap = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const signature = (value: unknown): unknown => (isRecord(value) ? value[specialSigKey] : undefined);

/** A value the engine marks secret, at its top. */
export function isSecret(value: unknown): boolean {
  const sig = signature(value);
  return sig === specialSecretSig || (sig === OUTPUT_VALUE_SIG && isRecord(value) && value.secret === true);
}

/** A value not known yet, at its top. */
export function isUnknown(value: unknown): boolean {
  if (value === unknownValue) return true;
  return signature(value) === OUTPUT_VALUE_SIG && isRecord(value) && !("value" in value);
}

/** Any unknown anywhere inside. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (signature(value) !== undefined && isRecord(value)) return containsUnknown(value.value);
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (isRecord(value)) return Object.values(value).some(containsUnknown);
  return false;
}

/** The plain value: every secret and output wrapper taken off, all the way down. */
export function reveal(value: unknown): unknown {
  if (signature(value) !== undefined && isRecord(value)) return reveal(value.value);
  if (Array.isArray(value)) return value.map(reveal);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
  return value;
}

/** A property map's plain values. */
export function revealAll(props: PropertyMap): PropertyMap {
  return reveal(props) as PropertyMap;
}

/** `value` in the form the engine stores encrypted. */
export function secret(value: unknown): PropertyMap {
  return { [specialSigKey]: specialSecretSig, value };
}

/** The names whose values arrived secret, so that the outputs keep them secret. */
export function secretNames(props: PropertyMap): string[] {
  return Object.keys(props).filter((name) => isSecret(props[name]));
}

/** `outs` with each of `names` that it holds (and is not undefined) wrapped as a secret. */
export function withSecrets(outs: PropertyMap, names: Iterable<string>): PropertyMap {
  const result = { ...outs };
  for (const name of names) if (result[name] !== undefined && !isSecret(result[name])) result[name] = secret(result[name]);
  return result;
}
