/**
 * The package schema `pulumi package get-schema` prints for the component
 * plugin, and `pulumi package add` generates SDKs from: docs/schema.json is
 * what the build writes (the reference drifts from nothing); every output
 * `agent-user token --outputs` reads is a property of the component, the
 * client secret a secret; and scripts/pulumi-schema.js, run on a fixture,
 * takes an argument added to the TypeScript arguments into the schema with
 * its doc comment, and refuses what no schema type states, naming it.
 * test/e2e/engine/package-yaml.test.ts checks that the real CLI prints this
 * schema from an installed package.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FLEET_AGENT_KEYS, STACK_OUTPUT_KEYS } from "../../lib/stack-outputs";
import { AGENT_USER_KIT_TYPE } from "../../infra";
import { ALLOWED_SCOPES, DEFAULT_SCOPES } from "../../infra/scope-policy";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generateSchema, schemaText, schemaReference, referenceIn } = require("../../scripts/pulumi-schema") as {
  generateSchema: (root: string, components: unknown[]) => Schema;
  schemaText: (schema: Schema) => string;
  schemaReference: (schema: Schema) => string;
  referenceIn: (page: string) => { text: string };
};

const ROOT = join(__dirname, "..", "..");
const FIXTURE = join(ROOT, "test/fixtures/pulumi-schema");

interface Property {
  type?: string;
  $ref?: string;
  items?: Property;
  additionalProperties?: Property;
  description: string;
  secret?: boolean;
}
interface ObjectType {
  description: string;
  type: string;
  properties?: Record<string, Property>;
  required?: string[];
  enum?: Array<{ value: string }>;
}
interface Schema {
  name: string;
  version: string;
  resources: Record<string, { isComponent: boolean; description: string; properties: Record<string, Property>; required: string[]; inputProperties: Record<string, Property>; requiredInputs: string[] }>;
  types: Record<string, ObjectType>;
}

const docs = readFileSync(join(ROOT, "docs/schema.json"), "utf8");
const schema = JSON.parse(docs) as Schema;
const kit = schema.resources[AGENT_USER_KIT_TYPE]!;

describe("docs/schema.json", () => {
  it("is the schema the build writes from the declarations (`node scripts/pulumi-schema.js --docs` rewrites it and docs/pulumi.md's reference)", () => {
    expect(docs).toBe(readFileSync(join(ROOT, "dist/infra/plugin/schema.json"), "utf8"));
  });

  it("is what docs/pulumi.md's reference lists, argument by argument, output by output, type by type", () => {
    expect(referenceIn(readFileSync(join(ROOT, "docs/pulumi.md"), "utf8")).text).toBe(`\n${schemaReference(schema)}\n`);
  });

  it("is the package agent-user-kit, at this version, with AgentUserKit under the type it registers", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };
    expect({ name: schema.name, version: schema.version, resources: Object.keys(schema.resources), isComponent: kit.isComponent }).toEqual({
      name: pkg.name,
      version: pkg.version,
      resources: [AGENT_USER_KIT_TYPE],
      isComponent: true,
    });
  });

  it("gives the component every output `agent-user token --outputs` reads, under its name; the client secret is a secret", () => {
    expect(Object.keys(kit.properties)).toEqual(expect.arrayContaining([...STACK_OUTPUT_KEYS, "agents"]));
    expect(Object.entries(kit.properties).filter(([, p]) => p.secret).map(([name]) => name)).toEqual(["blueprintClientSecret"]);
    // The two credential outputs exist only in their mode, the opt-in ones only with their feature; the rest always.
    expect(Object.keys(kit.properties).filter((key) => !kit.required.includes(key)).sort()).toEqual(
      ["appRoles", "blueprintClientSecret", "blueprintIdentifierUri", "blueprintScope", "managedIdentityClientId", "onBehalfOfGrantId", "onBehalfOfScopes"],
    );
    expect(kit.properties.agents!.additionalProperties!.$ref).toBe("#/types/agent-user-kit:index:AgentOutputs");
    expect(Object.keys(schema.types["agent-user-kit:index:AgentOutputs"]!.properties!)).toEqual(expect.arrayContaining([...FLEET_AGENT_KEYS]));
  });

  it("documents every argument, every output and every type", () => {
    const described = (properties: Record<string, Property>) => Object.entries(properties).filter(([, p]) => !(p.description.length > 10)).map(([name]) => name);
    expect(described(kit.inputProperties)).toEqual([]);
    expect(described(kit.properties)).toEqual([]);
    for (const type of Object.values(schema.types)) expect(described(type.properties ?? {})).toEqual([]);
    expect(Object.entries(schema.types).filter(([, t]) => !t.description).map(([token]) => token)).toEqual([]);
  });

  it("takes the credential as one object whose mode enum says which of its fields apply", () => {
    expect(kit.inputProperties.credential!.$ref).toBe("#/types/agent-user-kit:index:Credential");
    const credential = schema.types["agent-user-kit:index:Credential"]!;
    expect(credential.required).toEqual(["mode"]);
    expect(Object.keys(credential.properties!).sort()).toEqual(["certificatePem", "endDate", "existingPrincipalId", "mode", "newIdentity"]);
    expect(schema.types["agent-user-kit:index:CredentialMode"]!.enum).toEqual([{ value: "secret" }, { value: "managedIdentity" }, { value: "certificate" }]);
    // The earlier flat credential arguments, deprecated, are TypeScript's only.
    expect(Object.keys(kit.inputProperties).filter((key) => ["secretEndDate", "managedIdentityPrincipalId", "resourceGroupName", "location", "certificatePem"].includes(key))).toEqual([]);
  });

  it("names the default and allowed scopes as the kit's lists hold them", () => {
    for (const scope of DEFAULT_SCOPES) expect(kit.inputProperties.scopes!.description).toContain(scope);
    for (const scope of ALLOWED_SCOPES) expect(kit.inputProperties.allowedScopes!.description).toContain(scope);
  });
});

describe("scripts/pulumi-schema.js", () => {
  const component = (args: string) => ({ name: "Fixture", class: "component.ts", args: ["component.ts", args], outputs: ["component.ts", "FixtureOutputs"] });
  const fixture = generateSchema(FIXTURE, [component("FixtureArgs")]);
  const resource = fixture.resources["agent-user-kit:index:Fixture"]!;

  it("takes every argument of the TypeScript arguments the package arguments extend, an added one too, with its doc comment", () => {
    expect(Object.keys(resource.inputProperties).sort()).toEqual(["appRoles", "limit", "owner", "tags", "wait"]);
    expect(resource.requiredInputs).toEqual(["owner"]);
    expect(resource.inputProperties.appRoles).toEqual({
      type: "array",
      items: { $ref: "#/types/agent-user-kit:index:AppRole" },
      description: "The roles to assign, one per line of the role table.\n\nNone by default.",
    });
    expect(fixture.types["agent-user-kit:index:AppRole"]).toEqual({
      description: "One role to assign.",
      type: "object",
      properties: {
        value: { type: "string", description: "The role's value, e.g. Tasks.Write." },
        kind: { $ref: "#/types/agent-user-kit:index:RoleKind", description: "Who the role is for; user by default." },
      },
      required: ["value"],
    });
    expect(fixture.types["agent-user-kit:index:RoleKind"]).toEqual({ description: "What a role is for.", type: "string", enum: [{ value: "user" }, { value: "application" }] });
  });

  it("states numbers, booleans and maps, keeps an @ inside a sentence, and leaves a deprecated argument out", () => {
    expect(resource.inputProperties.limit!.type).toBe("number");
    expect(resource.inputProperties.wait!.type).toBe("boolean");
    expect(resource.inputProperties.tags).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    expect(resource.inputProperties.owner!.description).toBe("The owner, as user@contoso.onmicrosoft.com; the part before the @ names it.");
    expect(resource.inputProperties.ownerName).toBeUndefined();
  });

  it("makes the outputs the component's properties, the optional ones not required, @secret ones secret", () => {
    expect(resource.properties).toEqual({
      objectId: { type: "string", description: "The object id." },
      key: { type: "string", description: "A key to keep.", secret: true },
      roleIds: { type: "object", additionalProperties: { type: "string" }, description: "Each role's id by value." },
    });
    expect(resource.required).toEqual(["objectId", "roleIds"]);
    expect(resource.description).toBe("A component for the fixture.");
  });

  it("refuses a type no schema type states, naming the argument, so the build fails until the package arguments give it a shape", () => {
    expect(() => generateSchema(FIXTURE, [component("BaseArgs")])).toThrow(/^Fixture\.shape is \{ a: string \} \| \{ b: number \}: the package schema \(scripts\/pulumi-schema\.js\) states strings, numbers/);
  });

  it("refuses an argument without a doc comment, naming it", () => {
    expect(() => generateSchema(FIXTURE, [component("MissingDocArgs")])).toThrow(/^Fixture\.owner has no doc comment/);
  });

  it("writes what `pulumi package get-schema` prints: two-space JSON in the CLI's field order, maps sorted, <, > and & escaped as Go escapes them", () => {
    const text = schemaText({ resources: {}, types: { b: { type: "object", description: "B" }, a: { type: "string", description: "<a> & A" } }, name: "x" } as unknown as Schema);
    expect(text).toBe(
      '{\n  "name": "x",\n  "types": {\n    "a": {\n      "description": "\\u003ca\\u003e \\u0026 A",\n      "type": "string"\n    },\n    "b": {\n      "description": "B",\n      "type": "object"\n    }\n  },\n  "resources": {}\n}\n',
    );
    expect(() => schemaText({ name: "x", extra: 1 } as unknown as Schema)).toThrow("scripts/pulumi-schema.js has no place in its field order for extra");
  });
});
