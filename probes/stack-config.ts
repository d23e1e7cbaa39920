import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CONFIG_KEYS, CONFIG_NAMESPACE, validateConfig, type ConfigKey, type KitConfig, type RawConfig } from "../infra/config";
import { PROVISIONER_SOURCES, type ConfigLookup } from "../infra/provisioner-credential";
import { UsageError } from "../lib/errors";
import { isObject } from "../lib/json-value";
import { readJsonFile, readUserFile } from "../lib/user-files";

/**
 * The stack configuration as `pulumi config --json` prints it in the stack's
 * directory: `{"<namespace>:<key>": {"value": "...", "secret": false}}`,
 * lists JSON-encoded in `value`, and a secret's value left out unless
 * `--show-secrets` was given. preflight checks the agent-user-kit: keys with
 * the Pulumi program's own validation (infra/config.ts); doctor and preflight
 * read the provisioner's azuread: keys from it, which win over the ARM_*
 * variables, as in the Pulumi program.
 */
export interface StackConfigFile {
  /** The file, as given. */
  path: string;
  /** The agent-user-kit: keys. */
  kit: RawConfig;
  /** agent-user-kit: keys that are secrets the file leaves out: an error only for the command that needs them. */
  kitLeftOut: ConfigKey[];
  /** The azuread: keys of the provisioner, for infra/provisioner-credential.ts's gatherSettings. */
  provisioner: ConfigLookup;
}

/** `userDomain` → `user-domain`. */
export const flagOf = (key: ConfigKey) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** One string flag per configuration key. */
export const CONFIG_FLAGS = Object.fromEntries(CONFIG_KEYS.map((key) => [flagOf(key), { type: "string" as const }])) as Record<string, { type: "string" }>;

export const CONFIG_FILE_OPTION = { "config-from-stack": { type: "string" } } as const;

const HINT = "write it with `pulumi config --json > config.json` in the stack's directory";

/** An entry's string value; undefined for a secret whose value was left out; a usage error for any other shape. */
function valueOf(entry: unknown, key: string, path: string): string | undefined {
  const fields = isObject(entry) ? entry : {};
  if (typeof fields.value === "string") return fields.value;
  if (fields.secret === true) return undefined;
  throw new UsageError(`--config-from-stack ${path}: ${key} has no string "value"`, HINT);
}

/** `instead`: the other way to give the value, e.g. "set ARM_CLIENT_SECRET". */
function secretLeftOut(path: string, key: string, instead: string): UsageError {
  return new UsageError(
    `--config-from-stack ${path}: ${key} is a secret, and \`pulumi config --json\` leaves a secret's value out`,
    `write the file with \`pulumi config --json --show-secrets\` (it then holds the secret: keep it private and delete it after), or ${instead}`,
  );
}

/**
 * Reads the file; what the stack does not set is absent, and a key of the
 * wrong shape is a usage error naming it. A provisioner secret left out of
 * the file gives way to its ARM_* variable in `env` (the same application
 * either way), and is an error only when that is not set either.
 */
export function readStackConfigFile(path: string, cwd: string, env: NodeJS.ProcessEnv): StackConfigFile {
  const json = readJsonFile(`--config-from-stack ${path}`, resolve(cwd, path), { hint: HINT });
  if (!isObject(json)) throw new UsageError(`--config-from-stack ${path} is not the JSON object of \`pulumi config --json\``, HINT);
  const kit: RawConfig = {};
  const kitLeftOut: ConfigKey[] = [];
  for (const key of CONFIG_KEYS) {
    const name = `${CONFIG_NAMESPACE}:${key}`;
    if (json[name] === undefined) continue;
    const value = valueOf(json[name], name, path);
    if (value === undefined) kitLeftOut.push(key);
    else kit[key] = value;
  }
  const provisioner: Record<string, string> = {};
  for (const [key, ...envNames] of Object.values(PROVISIONER_SOURCES)) {
    if (json[key] === undefined) continue;
    const value = valueOf(json[key], key, path);
    if (value !== undefined) provisioner[key] = value;
    else if (!envNames.some((name) => env[name])) throw secretLeftOut(path, key, `set ${envNames[0]}`);
  }
  return { path, kit, kitLeftOut, provisioner: { get: (key) => provisioner[key] } };
}

/** The validated configuration from the file and the flags (flags win); a bad key is a usage error naming it. */
export function stackConfig(file: StackConfigFile | undefined, flags: Record<string, string | undefined>): KitConfig {
  const raw: RawConfig = { ...file?.kit };
  for (const key of CONFIG_KEYS) {
    const value = flags[flagOf(key)];
    if (value !== undefined) raw[key] = value;
    else if (file?.kitLeftOut.includes(key)) throw secretLeftOut(file.path, `${CONFIG_NAMESPACE}:${key}`, `pass --${flagOf(key)}`);
  }
  return validateConfig(raw);
}

/** A YAML mapping's top-level `name: value` line, the value plain or quoted, with any comment after it. */
const PROJECT_NAME = /^name:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#'"][^#\n]*?))[ \t]*(?:#.*)?$/m;

/**
 * The Pulumi project a stack belongs to, as the component's adoption tag
 * names it (`agent-user-kit:<project>/<stack>/<component>`): `--project`,
 * else the `name` of the Pulumi.yaml (or Pulumi.yml) that Pulumi itself
 * would use, in the working directory or the nearest one above it;
 * undefined when there is neither.
 */
export function pulumiProject(flag: string | undefined, cwd: string): string | undefined {
  if (flag !== undefined) return flag;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const file = ["Pulumi.yaml", "Pulumi.yml"].map((name) => join(dir, name)).find((path) => existsSync(path));
    if (file) {
      const match = PROJECT_NAME.exec(readUserFile(file, file));
      const name = match?.[1] ?? match?.[2] ?? match?.[3];
      if (!name) throw new UsageError(`${file} names no project (a top-level "name:" line)`, "give the project's name with --project NAME");
      return name;
    }
    if (dirname(dir) === dir) return undefined;
  }
}
