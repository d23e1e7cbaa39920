/**
 * The order a Terraform set of strings lists its elements in, which is the
 * order azuread joins a grant's claim values into its `scope`:
 * terraform-plugin-sdk's Set.List() sorts the elements' hash codes as
 * decimal strings (helper/schema/set.go listCode), and a string's hash code
 * is its CRC-32 (HashSchema, internal/helper/hashcode String).
 */
import { crc32 } from "node:zlib";

export function terraformSetOrder(values: readonly string[]): string[] {
  const byCode = new Map<string, string>();
  for (const value of values) byCode.set(String(crc32(value)), value);
  return [...byCode.keys()].sort().map((code) => byCode.get(code)!);
}
