/* global __dirname */
/**
 * `npm run build` step: the Pulumi package schema of the component plugin
 * (infra/plugin/), which `pulumi package get-schema` prints and
 * `pulumi package add` generates SDKs from, written from the TypeScript
 * declarations the component takes and gives: each argument of
 * AgentUserKitPackageArgs (infra/plugin/args.ts, which extends the
 * TypeScript arguments) and each value of AgentUserKitOutputs, with its doc
 * comment. An argument added to the TypeScript component is in the schema at
 * the next build, and docs/schema.json then differs from it, which
 * test/infra/pulumi-schema.test.ts reports; one whose type has no schema
 * form, or that has no doc comment, fails the build, naming it.
 *
 * Types map as Pulumi's own component analyzer maps them: pulumi.Input,
 * Output and Unwrap are their value; string, number and boolean; arrays;
 * Record<string, T> is a map; an interface is an object type named after it
 * (less its Args suffix); a type alias of string literals is an enum.
 * `@deprecated` arguments are TypeScript's only; `@secret` marks a secret.
 *
 *   node scripts/pulumi-schema.js [FILE…]   writes FILE… (dist/infra/plugin/schema.json by default)
 *   node scripts/pulumi-schema.js --docs    writes docs/schema.json and the reference in docs/pulumi.md
 */
const { mkdirSync, readFileSync, writeFileSync } = require("node:fs");
const { dirname, join, resolve } = require("node:path");
const ts = require("typescript");

const ROOT = join(__dirname, "..");
const PACKAGE = "agent-user-kit";

/** The components the plugin serves: the class whose doc comment describes it, and the interfaces of its arguments and its outputs. */
const COMPONENTS = [
  {
    name: "AgentUserKit",
    class: "infra/components/agent-user-kit.ts",
    args: ["infra/plugin/args.ts", "AgentUserKitPackageArgs"],
    outputs: ["infra/components/agent-user-kit.ts", "AgentUserKitOutputs"],
  },
];

/** Pulumi's wrappers of a value, which the schema states as the value itself. */
const WRAPPERS = new Set(["Input", "Output", "Unwrap"]);

class SchemaError extends Error {
  constructor(where, message) {
    super(`${where} ${message}: the package schema (scripts/pulumi-schema.js) states strings, numbers, booleans, lists, maps, interfaces and enums of string literals, each with a doc comment`);
    this.name = "SchemaError";
  }
}

/**
 * A declaration's doc comment as its reader sees it: the text before the
 * first line that starts with a block tag, each paragraph on one line (an
 * `@` inside a sentence, as in "before the @", is text), and the tags' names.
 */
function commentOf(symbol) {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  const comments = declaration ? ts.getJSDocCommentsAndTags(declaration).filter((node) => node.kind === ts.SyntaxKind.JSDoc) : [];
  if (comments.length === 0) return { text: "", tags: new Set() };
  const lines = comments[comments.length - 1]
    .getText()
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*(\* ?)?/, "").trimEnd());
  const tagAt = lines.findIndex((line) => /^@\w/.test(line));
  const body = tagAt < 0 ? lines : lines.slice(0, tagAt);
  const tags = new Set(lines.slice(tagAt < 0 ? lines.length : tagAt).flatMap((line) => /^@(\w+)/.exec(line)?.[1] ?? []));
  const text = body.join("\n").trim().split(/\n\s*\n/).map((paragraph) => paragraph.split("\n").map((l) => l.trim()).join(" ")).join("\n\n");
  return { text, tags };
}

/** The schema of `components` (repository-relative sources) under `root`, with the package's name, version and description from its package.json. */
function generateSchema(root = ROOT, components = COMPONENTS) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const unreadable = (diagnostic) => {
    throw new Error(`${join(root, "tsconfig.json")}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`);
  };
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: unreadable });
  const files = [...new Set(components.flatMap((c) => [c.class, c.args[0], c.outputs[0]]))].map((f) => join(root, f));
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const types = {};

  const declared = (file, name) => {
    const source = program.getSourceFile(join(root, file));
    const node = source?.statements.find((s) => (ts.isInterfaceDeclaration(s) || ts.isClassDeclaration(s)) && s.name?.text === name);
    if (!node) throw new SchemaError(`${file}:`, `declares no ${name}`);
    return checker.getSymbolAtLocation(node.name);
  };
  const doc = (symbol, where) => {
    const text = commentOf(symbol).text;
    if (!text) throw new SchemaError(where, "has no doc comment");
    return text;
  };
  const tags = (symbol) => commentOf(symbol).tags;
  const fromPulumi = (symbol) => (symbol.declarations ?? []).some((d) => /[\\/]@pulumi[\\/]pulumi[\\/]/.test(d.getSourceFile().fileName));

  /** The schema type of a declared type, by its syntax: what the source says, not what TypeScript widens it to. */
  const typeOf = (node, where) => {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: "string" };
      case ts.SyntaxKind.NumberKeyword:
        return { type: "number" };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: "boolean" };
      case ts.SyntaxKind.ArrayType:
        return { type: "array", items: typeOf(node.elementType, `${where}[]`) };
      case ts.SyntaxKind.ParenthesizedType:
        return typeOf(node.type, where);
      case ts.SyntaxKind.TypeReference:
        return referenceOf(node, where);
      default:
        throw new SchemaError(where, `is ${node.getText()}`);
    }
  };
  const referenceOf = (node, where) => {
    const name = ts.isQualifiedName(node.typeName) ? node.typeName.right.text : node.typeName.text;
    const args = node.typeArguments ?? [];
    let symbol = checker.getSymbolAtLocation(node.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    if (!symbol) throw new SchemaError(where, `is ${node.getText()}, which is not declared`);
    if (WRAPPERS.has(name) && fromPulumi(symbol)) return typeOf(args[0], where);
    if (name === "Array" && args.length === 1) return { type: "array", items: typeOf(args[0], `${where}[]`) };
    if (name === "Record" && args.length === 2 && args[0].kind === ts.SyntaxKind.StringKeyword) {
      return { type: "object", additionalProperties: typeOf(args[1], `${where}{}`) };
    }
    if (symbol.flags & ts.SymbolFlags.Interface) return { $ref: `#/types/${objectType(symbol)}` };
    if (symbol.flags & ts.SymbolFlags.TypeAlias) {
      const type = checker.getTypeAtLocation(node);
      const members = type.isUnion() ? type.types : [type];
      if (members.every((t) => t.isStringLiteral())) return { $ref: `#/types/${enumType(symbol, members)}` };
    }
    throw new SchemaError(where, `is ${node.getText()}`);
  };

  const token = (name) => `${PACKAGE}:index:${name}`;
  const objectType = (symbol) => {
    const key = token(symbol.name.replace(/Args$/, ""));
    if (!(key in types)) {
      types[key] = {};
      const { properties, required } = propertiesOf(symbol, symbol.name);
      types[key] = { description: doc(symbol, symbol.name), type: "object", properties, ...(required.length > 0 ? { required } : {}) };
    }
    return key;
  };
  const enumType = (symbol, members) => {
    const key = token(symbol.name);
    types[key] = { description: doc(symbol, symbol.name), type: "string", enum: members.map((t) => ({ value: t.value })) };
    return key;
  };

  /** The properties of an interface (inherited ones included), each with its type and doc comment, and which are required. */
  const propertiesOf = (symbol, where) => {
    const properties = {};
    const required = [];
    for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
      const at = `${where}.${property.name}`;
      const marks = tags(property);
      if (marks.has("deprecated")) continue;
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (!declaration || !ts.isPropertySignature(declaration) || !declaration.type) throw new SchemaError(at, "is not a property with a declared type");
      properties[property.name] = { ...typeOf(declaration.type, at), description: doc(property, at), ...(marks.has("secret") ? { secret: true } : {}) };
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.name);
    }
    return { properties, required };
  };

  const resources = {};
  for (const component of components) {
    const inputs = propertiesOf(declared(...component.args), component.name);
    const outputs = propertiesOf(declared(...component.outputs), component.name);
    resources[token(component.name)] = {
      isComponent: true,
      description: doc(declared(component.class, component.name), component.name),
      properties: outputs.properties,
      required: outputs.required,
      inputProperties: inputs.properties,
      requiredInputs: inputs.required,
    };
  }
  return {
    name: PACKAGE,
    version: pkg.version,
    description: pkg.description,
    keywords: pkg.keywords,
    license: pkg.license,
    // The CLI prints the package's configuration always; a component package has none.
    config: {},
    types,
    resources,
  };
}

/*
 * The order `pulumi package get-schema` prints the schema in (the CLI
 * marshals Pulumi's PackageSpec with Go's encoding/json: the fields in the
 * order its structs declare them, map keys sorted, <, > and & escaped), so
 * that docs/schema.json is the command's output byte for byte.
 */
const PACKAGE_FIELDS = ["name", "displayName", "version", "description", "keywords", "homepage", "license", "repository", "language", "config", "types", "provider", "resources", "functions"];
const OBJECT_FIELDS = ["description", "properties", "type", "required", "enum", "inputProperties", "requiredInputs", "isComponent"];
const PROPERTY_FIELDS = ["type", "$ref", "additionalProperties", "items", "description", "secret"];

function inOrder(value, fields) {
  const unknown = Object.keys(value).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw new Error(`scripts/pulumi-schema.js has no place in its field order for ${unknown.join(", ")}`);
  return Object.fromEntries(fields.filter((key) => key in value).map((key) => [key, value[key]]));
}
const sortedMap = (map, each) => Object.fromEntries(Object.keys(map).sort().map((key) => [key, each(map[key])]));
const typeInOrder = (t) =>
  inOrder({ ...t, ...(t.items ? { items: typeInOrder(t.items) } : {}), ...(t.additionalProperties ? { additionalProperties: typeInOrder(t.additionalProperties) } : {}) }, PROPERTY_FIELDS);
const objectInOrder = (o) =>
  inOrder(
    { ...o, ...(o.properties ? { properties: sortedMap(o.properties, typeInOrder) } : {}), ...(o.inputProperties ? { inputProperties: sortedMap(o.inputProperties, typeInOrder) } : {}) },
    OBJECT_FIELDS,
  );

/** The schema as `pulumi package get-schema` prints it: two-space JSON in the CLI's order, and a final newline. */
function schemaText(schema) {
  const ordered = inOrder({ ...schema, ...(schema.types ? { types: sortedMap(schema.types, objectInOrder) } : {}), ...(schema.resources ? { resources: sortedMap(schema.resources, objectInOrder) } : {}) }, PACKAGE_FIELDS);
  return `${JSON.stringify(ordered, null, 2).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}

/** Where docs/pulumi.md holds the reference schemaReference writes. */
const REFERENCE = { page: "docs/pulumi.md", begin: "<!-- schema reference: begin -->\n", end: "<!-- schema reference: end -->\n" };

/** A schema type as the reference names it. */
function typeWords(p) {
  if (p.$ref) return `\`${p.$ref.split(":").pop()}\``;
  if (p.type === "array") return `list of ${typeWords(p.items)}`;
  if (p.additionalProperties) return `map of ${typeWords(p.additionalProperties)}`;
  return p.type;
}

/** One table of properties: name, type (and secret), whether it is required, and its description. */
function propertyTable(heading, properties, required, always) {
  const cell = (text) => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
  const rows = Object.entries(properties).map(
    ([name, p]) => `| \`${name}\` | ${typeWords(p)}${p.secret ? ", secret" : ""} | ${required.includes(name) ? "yes" : ""} | ${cell(p.description)} |`,
  );
  return [`| ${heading} | type | ${always} | |`, "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** The reference of docs/pulumi.md: each component's arguments and outputs, then each type, from the schema as docs/schema.json holds it. */
function schemaReference(schema) {
  const parts = [];
  for (const [token, resource] of Object.entries(schema.resources)) {
    const name = token.split(":").pop();
    parts.push(`#### \`${name}\` arguments\n\n${propertyTable("argument", resource.inputProperties, resource.requiredInputs ?? [], "required")}`);
    parts.push(`#### \`${name}\` outputs\n\n${propertyTable("output", resource.properties, resource.required ?? [], "always")}`);
  }
  for (const [token, type] of Object.entries(schema.types)) {
    const name = token.split(":").pop();
    const body = type.enum ? `One of ${type.enum.map((e) => `\`${e.value}\``).join(", ")}.` : propertyTable("field", type.properties, type.required ?? [], "required");
    parts.push(`#### \`${name}\`\n\n${type.description}\n\n${body}`);
  }
  return `${parts.join("\n\n")}\n`;
}

/** The text between the reference's markers in `page`. */
function referenceIn(page) {
  const from = page.indexOf(REFERENCE.begin);
  const to = page.indexOf(REFERENCE.end);
  if (from < 0 || to < from) throw new Error(`${REFERENCE.page} has no ${REFERENCE.begin.trim()} … ${REFERENCE.end.trim()}`);
  return { from: from + REFERENCE.begin.length, to, text: page.slice(from + REFERENCE.begin.length, to) };
}

if (require.main === module) {
  const text = schemaText(generateSchema());
  const docs = process.argv.includes("--docs");
  const targets = process.argv.slice(2).filter((arg) => arg !== "--docs");
  for (const target of docs ? ["docs/schema.json", ...targets] : targets.length > 0 ? targets : ["dist/infra/plugin/schema.json"]) {
    const file = resolve(ROOT, target);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  if (docs) {
    const page = readFileSync(join(ROOT, REFERENCE.page), "utf8");
    const { from, to } = referenceIn(page);
    writeFileSync(join(ROOT, REFERENCE.page), `${page.slice(0, from)}\n${schemaReference(JSON.parse(text))}\n${page.slice(to)}`);
  }
}

module.exports = { generateSchema, schemaText, schemaReference, referenceIn, SchemaError };
