/**
 * The property names of azuread's schema, read from the installed
 * @pulumi/azuread package (the SDK pulumi-azuread generates from it), never
 * copied by hand: a resource's inputs and outputs from its constructor in
 * `<module>.js`, a function's arguments from its invoke call, and its
 * result's fields from the declarations (`<module>.d.ts`, `types/output.d.ts`).
 * The stand-in refuses any name these do not hold, so a rename upstream shows
 * up as a refusal instead of a silent divergence.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The installed @pulumi/azuread package's folder. */
export function azureadPackageDir(): string {
  return dirname(require.resolve("@pulumi/azuread/package.json"));
}

/** The version of the installed @pulumi/azuread, which is the plugin version it asks the engine for. */
export function azureadVersion(dir = azureadPackageDir()): string {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown };
  if (typeof manifest.version !== "string") throw new Error(`${join(dir, "package.json")} has no version`);
  return manifest.version;
}

/** `azuread:index/applicationPassword:ApplicationPassword` → `applicationPassword`, the SDK module that declares it. */
export function moduleOf(token: string): string {
  const match = /^azuread:index\/([A-Za-z0-9]+):[A-Za-z0-9]+$/.exec(token);
  if (!match) throw new Error(`${token} is not an azuread index token`);
  return match[1]!;
}

export interface ResourceNames {
  /** What a program may set (`resourceInputs["x"] = args?.x`). */
  inputs: ReadonlySet<string>;
  /** What only the provider sets (`resourceInputs["x"] = undefined /*out*\/`). */
  outputs: ReadonlySet<string>;
}

/** A resource's names from the constructor's assignments; the `state?.x` ones (a `get`) are neither. */
export function resourceNamesFromSource(source: string): ResourceNames {
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  for (const [, name, value] of source.matchAll(/resourceInputs\["([A-Za-z0-9]+)"\] = ([^;\n]*);/g)) {
    if (value!.trim() === "undefined /*out*/") outputs.add(name!);
    else if (/\bargs\b/.test(value!)) inputs.add(name!);
  }
  return { inputs, outputs };
}

/** A function's argument names: the keys of the object its invoke call passes. */
export function invokeArgsFromSource(source: string, token: string): ReadonlySet<string> {
  const call = new RegExp(`\\.invoke(?:Output)?\\("${token.replace(/[/.]/g, "\\$&")}", \\{([^}]*)\\}`).exec(source);
  if (!call) throw new Error(`no invoke of ${token} in its SDK module`);
  return new Set([...call[1]!.matchAll(/"([A-Za-z0-9]+)":/g)].map((m) => m[1]!));
}

/** The fields of `export interface NAME { … }` in declarations, each with the element type it names from `outputs.` if any. */
export function interfaceFieldsFromDeclarations(source: string, name: string): ReadonlyMap<string, string | undefined> {
  const body = new RegExp(`export interface ${name} \\{\\n([\\s\\S]*?)\\n\\}`).exec(source);
  if (!body) throw new Error(`no interface ${name} in the declarations`);
  const fields = new Map<string, string | undefined>();
  for (const [, field, type] of body[1]!.matchAll(/^ {4}(?:readonly )?([A-Za-z0-9]+)\??: ([^;]+);/gm)) {
    fields.set(field!, /^outputs\.([A-Za-z0-9]+)\[\]$/.exec(type!)?.[1]);
  }
  return fields;
}

/** The names azuread's SDK gives one resource or function, read once per process. */
export class SchemaNames {
  private readonly resources = new Map<string, ResourceNames>();
  private readonly functions = new Map<string, ReadonlySet<string>>();
  private readonly results = new Map<string, ReadonlyMap<string, string | undefined>>();

  constructor(private readonly dir: string = azureadPackageDir()) {}

  resource(token: string): ResourceNames {
    let names = this.resources.get(token);
    if (!names) {
      names = resourceNamesFromSource(this.read(`${moduleOf(token)}.js`));
      if (names.inputs.size === 0) throw new Error(`@pulumi/azuread's ${moduleOf(token)}.js declares no inputs: not a resource module`);
      this.resources.set(token, names);
    }
    return names;
  }

  functionArgs(token: string): ReadonlySet<string> {
    let names = this.functions.get(token);
    if (!names) {
      names = invokeArgsFromSource(this.read(`${moduleOf(token)}.js`), token);
      this.functions.set(token, names);
    }
    return names;
  }

  /** A function's result fields (`Get…Result`), or a nested output type's (`types/output.d.ts`). */
  resultFields(typeName: string): ReadonlyMap<string, string | undefined> {
    let fields = this.results.get(typeName);
    if (!fields) {
      const module = typeName.replace(/Result$/, "");
      const file = typeName.endsWith("Result") ? `${module[0]!.toLowerCase()}${module.slice(1)}.d.ts` : join("types", "output.d.ts");
      fields = interfaceFieldsFromDeclarations(this.read(file), typeName);
      this.results.set(typeName, fields);
    }
    return fields;
  }

  private read(file: string): string {
    return readFileSync(join(this.dir, file), "utf8");
  }
}
