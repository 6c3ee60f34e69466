// Tests for src/js/modules/opencode_plugin.mjs, plugline's "@opencode-ai/plugin".
// Run: node --test tests/js/modules/
//
// The real-Zod part imports zod 3 and zod 4 from $PLUGLINE_ZOD_MODULES (default
// /tmp/zodtest/node_modules, filled by `cd /tmp/zodtest && npm install zod@3 zod4@npm:zod@4`)
// and is skipped when they are not there; zod is never a dependency of the repository.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

import * as plugin from "../../../src/js/modules/opencode_plugin.mjs";

const { tool, z, toJSONSchema, ZodError, __plugline_tool_json_schema: toolJsonSchema, __plugline_parse_tool_args: parseToolArgs } = plugin;

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

function errorOf(schema, value) {
  const result = schema.safeParse(value);
  assert.equal(result.success, false, `expected ${JSON.stringify(value)} to be rejected`);
  assert.ok(result.error instanceof ZodError);
  assert.ok(result.error instanceof Error);
  return result.error.message;
}

function argsErrorOf(args, value) {
  try {
    parseToolArgs(args, value);
  } catch (error) {
    assert.ok(error instanceof ZodError);
    return error.message;
  }
  assert.fail(`expected ${JSON.stringify(value)} to be rejected`);
}

// JSON Schema of one schema without the $schema line.
function bare(schema) {
  const { $schema, ...json } = toJSONSchema(schema);
  assert.equal($schema, DRAFT_07);
  return json;
}

test("exports match the real package's runtime surface plus plugline's helpers", () => {
  assert.equal(typeof tool, "function");
  assert.equal(tool.schema, z);
  assert.equal(plugin.default, undefined, "the real package has no default export");
  assert.deepEqual(Object.keys(plugin).sort(), [
    "ZodError",
    "__plugline_parse_tool_args",
    "__plugline_tool_json_schema",
    "toJSONSchema",
    "tool",
    "z",
  ]);
  assert.equal(z.toJSONSchema, toJSONSchema);
});

test("tool() returns its input unchanged, as the real package does", async () => {
  const definition = {
    description: "Add two numbers",
    args: { a: tool.schema.number(), b: tool.schema.number() },
    async execute(args, context) {
      return `${args.a + args.b} in ${context.directory}`;
    },
  };
  const declared = tool(definition);
  assert.equal(declared, definition);
  assert.equal(await declared.execute({ a: 1, b: 2 }, { directory: "/p" }), "3 in /p");
});

test("z.string() and its checks", () => {
  assert.equal(z.string().parse("hi"), "hi");
  assert.equal(errorOf(z.string(), 3), "Expected string, received number");
  assert.equal(errorOf(z.string(), undefined), "Required");
  assert.equal(errorOf(z.string(), null), "Expected string, received null");
  assert.equal(errorOf(z.string(), ["a"]), "Expected string, received array");
  assert.equal(errorOf(z.string().min(3), "ab"), "String must contain at least 3 character(s)");
  assert.equal(errorOf(z.string().max(2), "abc"), "String must contain at most 2 character(s)");
  assert.equal(errorOf(z.string().length(2), "abc"), "String must contain exactly 2 character(s)");
  assert.equal(errorOf(z.string().nonempty(), ""), "String must contain at least 1 character(s)");
  assert.equal(errorOf(z.string().regex(/^a+$/), "b"), "Invalid string: must match pattern /^a+$/");
  assert.equal(z.string().regex(/a/g).parse("a"), "a");
  assert.equal(z.string().regex(/a/g).parse("a"), "a", "a global regex's lastIndex does not leak between calls");
  assert.equal(errorOf(z.string().email(), "nope"), "Invalid email");
  assert.equal(z.email().parse("a@b.co"), "a@b.co");
  assert.equal(errorOf(z.string().url(), "not a url"), "Invalid url");
  assert.equal(z.url().parse("https://example.com/x"), "https://example.com/x");
  assert.equal(errorOf(z.uuid(), "1234"), "Invalid uuid");
  assert.equal(errorOf(z.string().startsWith("a"), "b"), 'Invalid input: must start with "a"');
  assert.equal(errorOf(z.string().endsWith("a"), "b"), 'Invalid input: must end with "a"');
  assert.equal(errorOf(z.string().min(3, "too short"), "a"), "too short");
  assert.equal(errorOf(z.string().min(3, { message: "short!" }), "a"), "short!");
  assert.equal(z.string().min(2).max(5).minLength, 2);
  assert.equal(z.string().min(2).max(5).maxLength, 5);
  assert.deepEqual(bare(z.string().min(1).max(9).regex(/^x/)), { type: "string", minLength: 1, maxLength: 9, pattern: "^x" });
  assert.deepEqual(bare(z.string().email()), { type: "string", format: "email" });
  assert.deepEqual(bare(z.string().url()), { type: "string", format: "uri" });
  assert.deepEqual(bare(z.string().length(4)), { type: "string", minLength: 4, maxLength: 4 });
});

test("z.number(), int and bounds", () => {
  assert.equal(z.number().parse(1.5), 1.5);
  assert.equal(errorOf(z.number(), "1"), "Expected number, received string");
  assert.equal(errorOf(z.number(), NaN), "Expected number, received nan");
  assert.equal(errorOf(z.number(), Infinity), "Expected number, received number");
  assert.equal(errorOf(z.number().int(), 1.5), "Expected integer, received float");
  assert.equal(z.int().parse(4), 4);
  assert.equal(errorOf(z.number().min(2), 1), "Number must be greater than or equal to 2");
  assert.equal(errorOf(z.number().gte(2), 1), "Number must be greater than or equal to 2");
  assert.equal(errorOf(z.number().gt(2), 2), "Number must be greater than 2");
  assert.equal(errorOf(z.number().max(2), 3), "Number must be less than or equal to 2");
  assert.equal(errorOf(z.number().lte(2), 3), "Number must be less than or equal to 2");
  assert.equal(errorOf(z.number().lt(2), 2), "Number must be less than 2");
  assert.equal(errorOf(z.number().positive(), 0), "Number must be greater than 0");
  assert.equal(errorOf(z.number().nonnegative(), -1), "Number must be greater than or equal to 0");
  assert.equal(errorOf(z.number().negative(), 0), "Number must be less than 0");
  assert.equal(errorOf(z.number().nonpositive(), 1), "Number must be less than or equal to 0");
  assert.equal(errorOf(z.number().multipleOf(5), 7), "Number must be a multiple of 5");
  assert.equal(z.number().finite().parse(3), 3);
  assert.equal(z.number().int().isInt, true);
  assert.deepEqual(bare(z.number().int().min(1).max(10)), { type: "integer", minimum: 1, maximum: 10 });
  assert.deepEqual(bare(z.number().positive().lt(1)), { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 });
  assert.deepEqual(bare(z.number().multipleOf(2)), { type: "number", multipleOf: 2 });
});

test("z.boolean(), z.null(), z.any(), z.unknown()", () => {
  assert.equal(z.boolean().parse(false), false);
  assert.equal(errorOf(z.boolean(), "true"), "Expected boolean, received string");
  assert.equal(z.null().parse(null), null);
  assert.equal(errorOf(z.null(), 0), "Expected null, received number");
  const anything = { deep: [1, "x"] };
  assert.equal(z.any().parse(anything), anything);
  assert.equal(z.unknown().parse(undefined), undefined);
  assert.deepEqual(bare(z.boolean()), { type: "boolean" });
  assert.deepEqual(bare(z.null()), { type: "null" });
  assert.deepEqual(bare(z.any()), {});
  assert.deepEqual(bare(z.unknown().describe("whatever")), { description: "whatever" });
});

test("z.coerce turns strings into numbers and booleans", () => {
  assert.equal(z.coerce.number().parse("42"), 42);
  assert.equal(errorOf(z.coerce.number(), "x"), "Expected number, received nan");
  assert.equal(z.coerce.boolean().parse(1), true);
  assert.equal(z.coerce.string().parse(12), "12");
  assert.deepEqual(bare(z.coerce.number()), { type: "number" });
});

test("z.enum() and z.literal()", () => {
  const mode = z.enum(["fast", "slow"]);
  assert.equal(mode.parse("fast"), "fast");
  assert.equal(errorOf(mode, "medium"), "Invalid enum value. Expected 'fast' | 'slow', received 'medium'");
  assert.equal(errorOf(mode, 3), "Invalid enum value. Expected 'fast' | 'slow', received number");
  assert.deepEqual(mode.options, ["fast", "slow"]);
  assert.deepEqual(mode.enum, { fast: "fast", slow: "slow" });
  assert.deepEqual(mode.extract(["slow"]).options, ["slow"]);
  assert.deepEqual(mode.exclude(["slow"]).options, ["fast"]);
  assert.deepEqual(z.enum({ A: "a", B: "b" }).options, ["a", "b"], "Zod 4 takes an enum-like object");
  assert.deepEqual(bare(mode), { type: "string", enum: ["fast", "slow"] });
  assert.throws(() => z.enum([]), /at least one value/);

  assert.equal(z.literal("on").parse("on"), "on");
  assert.equal(errorOf(z.literal("on"), "off"), 'Invalid literal value, expected "on"');
  assert.equal(z.literal("on").value, "on");
  assert.deepEqual(bare(z.literal("on")), { type: "string", const: "on" });
  assert.deepEqual(bare(z.literal(3)), { type: "number", const: 3 });
  assert.deepEqual(bare(z.literal(["a", "b"])), { type: "string", enum: ["a", "b"] });

  // What TypeScript emits for `enum Direction { Up, Down }`: both directions.
  const Direction = { Up: 0, Down: 1, 0: "Up", 1: "Down" };
  assert.deepEqual(z.nativeEnum(Direction).options, [0, 1]);
  assert.deepEqual(bare(z.nativeEnum(Direction)), { type: "number", enum: [0, 1] });
});

test("z.array() with element paths and length checks", () => {
  const list = z.array(z.number());
  assert.deepEqual(list.parse([1, 2]), [1, 2]);
  assert.equal(errorOf(list, "1,2"), "Expected array, received string");
  assert.equal(errorOf(list, [1, "2", 3, null]), "[1]: Expected number, received string; [3]: Expected number, received null");
  assert.equal(errorOf(list.min(2), [1]), "Array must contain at least 2 element(s)");
  assert.equal(errorOf(list.max(1), [1, 2]), "Array must contain at most 1 element(s)");
  assert.equal(errorOf(list.length(1), []), "Array must contain exactly 1 element(s)");
  assert.equal(errorOf(list.nonempty(), []), "Array must contain at least 1 element(s)");
  assert.equal(z.string().array().element._def.kind, "string");
  assert.deepEqual(z.string().array().parse(["a"]), ["a"]);
  assert.deepEqual(bare(z.array(z.string()).min(1).max(3)), { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 });
});

test("z.object(): required vs optional keys, unknown keys, nesting", () => {
  const person = z.object({
    name: z.string(),
    age: z.number().optional(),
    address: z.object({ city: z.string(), zip: z.string().optional() }),
  });
  assert.deepEqual(person.parse({ name: "A", address: { city: "C" }, extra: 1 }), { name: "A", address: { city: "C" } });
  assert.ok(!("age" in person.parse({ name: "A", address: { city: "C" } })), "an absent optional key stays absent");
  assert.equal(errorOf(person, {}), "name: Required; address: Required");
  assert.equal(errorOf(person, { name: "A", address: { city: 5 } }), "address.city: Expected string, received number");
  assert.equal(errorOf(person, "x"), "Expected object, received string");
  assert.equal(errorOf(person, []), "Expected object, received array");
  assert.equal(errorOf(person, null), "Expected object, received null");
  assert.equal(errorOf(person.strict(), { name: "A", address: { city: "C" }, x: 1, y: 2 }), "Unrecognized key(s) in object: 'x', 'y'");
  assert.deepEqual(person.passthrough().parse({ name: "A", address: { city: "C" }, x: 1 }), { name: "A", address: { city: "C" }, x: 1 });
  assert.deepEqual(person.passthrough().strip().parse({ name: "A", address: { city: "C" }, x: 1 }), { name: "A", address: { city: "C" } });
  assert.deepEqual(z.strictObject({ a: z.string() }).safeParse({ a: "x", b: 1 }).success, false);
  assert.deepEqual(z.looseObject({ a: z.string() }).parse({ a: "x", b: 1 }), { a: "x", b: 1 });

  assert.deepEqual(Object.keys(person.shape), ["name", "age", "address"]);
  assert.deepEqual(person.extend({ email: z.string() }).keyof().options, ["name", "age", "address", "email"]);
  assert.deepEqual(person.merge(z.object({ email: z.string() })).keyof().options, ["name", "age", "address", "email"]);
  assert.deepEqual(person.pick({ name: true }).keyof().options, ["name"]);
  assert.deepEqual(person.omit({ name: true }).keyof().options, ["age", "address"]);
  assert.deepEqual(person.partial().parse({}), {});
  assert.equal(errorOf(person.partial().required(), {}), "name: Required; age: Required; address: Required");

  assert.deepEqual(bare(person), {
    type: "object",
    properties: {
      name: { type: "string" },
      age: { type: "number" },
      address: {
        type: "object",
        properties: { city: { type: "string" }, zip: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
    },
    required: ["name", "address"],
    additionalProperties: false,
  });
  assert.deepEqual(bare(z.object({ a: z.string().optional() })), {
    type: "object",
    properties: { a: { type: "string" } },
    additionalProperties: false,
  });
  assert.deepEqual(bare(z.object({}).passthrough()), { type: "object", properties: {} });
});

test("z.record()", () => {
  const counts = z.record(z.string(), z.number());
  assert.deepEqual(counts.parse({ a: 1 }), { a: 1 });
  assert.equal(errorOf(counts, { a: "1" }), "a: Expected number, received string");
  assert.equal(errorOf(z.record(z.enum(["a"]), z.number()), { b: 1 }), "b: Invalid enum value. Expected 'a', received 'b'");
  assert.deepEqual(z.record(z.boolean()).parse({ x: true }), { x: true }, "Zod 3's one-argument form");
  assert.deepEqual(bare(counts), { type: "object", additionalProperties: { type: "number" } });
  assert.deepEqual(bare(z.record(z.enum(["a", "b"]), z.number())), {
    type: "object",
    additionalProperties: { type: "number" },
    propertyNames: { enum: ["a", "b"] },
  });
});

test("z.union() and .or()", () => {
  const idOrName = z.union([z.number(), z.string()]);
  assert.equal(idOrName.parse(3), 3);
  assert.equal(idOrName.parse("x"), "x");
  assert.equal(errorOf(idOrName, true), "Invalid input: expected number | string, received boolean");
  assert.equal(z.string().or(z.boolean()).parse(true), true);
  // The option that got furthest reports its own, deeper problem.
  const shape = z.union([z.object({ kind: z.literal("a"), n: z.number() }), z.string()]);
  assert.equal(errorOf(shape, { kind: "a", n: "1" }), "n: Expected number, received string");
  assert.deepEqual(idOrName.options.length, 2);
  assert.deepEqual(bare(idOrName), { anyOf: [{ type: "number" }, { type: "string" }] });
});

test(".optional(), .nullable(), .nullish()", () => {
  assert.equal(z.string().optional().parse(undefined), undefined);
  assert.equal(errorOf(z.string().optional(), null), "Expected string, received null");
  assert.equal(z.string().nullable().parse(null), null);
  assert.equal(errorOf(z.string().nullable(), undefined), "Required");
  assert.equal(z.string().nullish().parse(null), null);
  assert.equal(z.string().nullish().parse(undefined), undefined);
  assert.equal(z.optional(z.string()).isOptional(), true);
  assert.equal(z.nullable(z.string()).isNullable(), true);
  assert.equal(z.string().isOptional(), false);
  assert.equal(z.string().optional().unwrap()._def.kind, "string");
  assert.deepEqual(bare(z.string().nullable()), { type: ["string", "null"] });
  assert.deepEqual(bare(z.enum(["a"]).nullable()), { type: ["string", "null"], enum: ["a", null] });
  assert.deepEqual(bare(z.union([z.string(), z.number()]).nullable()), {
    anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }],
  });
  assert.deepEqual(bare(z.object({ a: z.string().nullable(), b: z.string().nullish() })), {
    type: "object",
    properties: { a: { type: ["string", "null"] }, b: { type: ["string", "null"] } },
    required: ["a"],
    additionalProperties: false,
  });
});

test(".default() fills in missing values, is not shared and makes a key optional", () => {
  assert.equal(z.number().default(3).parse(undefined), 3);
  assert.equal(z.number().default(3).parse(5), 5);
  assert.equal(errorOf(z.number().default(3), "5"), "Expected number, received string");
  assert.equal(z.number().default(3).parse(undefined), 3);
  let calls = 0;
  assert.equal(z.number().default(() => ++calls).parse(undefined), 1);
  assert.equal(z.number().default(() => ++calls).parse(undefined), 2);
  const tags = z.array(z.string()).default(["a"]);
  const first = tags.parse(undefined);
  first.push("mutated");
  assert.deepEqual(tags.parse(undefined), ["a"], "each parse gets its own copy of the default");
  assert.equal(z.number().default(1).removeDefault()._def.kind, "number");
  const options = z.object({ verbose: z.boolean().default(false), level: z.number().int().default(1) });
  assert.deepEqual(options.parse({}), { verbose: false, level: 1 });
  assert.deepEqual(bare(options), {
    type: "object",
    properties: { verbose: { type: "boolean", default: false }, level: { type: "integer", default: 1 } },
    additionalProperties: false,
  });
});

test(".describe() and .meta() reach JSON Schema on any layer", () => {
  const count = z.number().describe("How many");
  assert.equal(count.description, "How many");
  assert.equal(z.number().description, undefined, "describe() returns a copy");
  assert.deepEqual(bare(count), { type: "number", description: "How many" });
  assert.deepEqual(bare(z.number().optional().describe("outer")), { type: "number", description: "outer" });
  assert.deepEqual(bare(z.number().describe("inner").default(2)), { type: "number", description: "inner", default: 2 });
  assert.deepEqual(bare(z.string({ description: "via params" })), { type: "string", description: "via params" });
  const titled = z.string().meta({ title: "Path", description: "A file", examples: ["a.txt"] });
  assert.equal(titled.description, "A file");
  assert.deepEqual(titled.meta(), { title: "Path", description: "A file", examples: ["a.txt"] });
  assert.deepEqual(bare(titled), { type: "string", title: "Path", examples: ["a.txt"], description: "A file" });
});

test(".refine() and .transform()", () => {
  const even = z.number().refine((n) => n % 2 === 0, "must be even");
  assert.equal(even.parse(2), 2);
  assert.equal(errorOf(even, 3), "must be even");
  assert.equal(errorOf(even, "x"), "Expected number, received string", "the refinement does not run on a bad value");
  const range = z
    .object({ from: z.number(), to: z.number() })
    .refine((r) => r.from <= r.to, { message: "from must not exceed to", path: ["to"] });
  assert.equal(errorOf(range, { from: 2, to: 1 }), "to: from must not exceed to");
  assert.equal(z.string().transform((s) => s.length).parse("abc"), 3);
  assert.deepEqual(bare(z.string().transform((s) => s.length)), { type: "string" });
  assert.equal(z.object({ a: z.string().optional().transform((s) => s ?? "none") }).parse({}).a, "none");
});

test("parse throws, safeParse and the async forms report", async () => {
  assert.throws(() => z.number().parse("1"), (error) => error instanceof ZodError && error.name === "ZodError" && error.message === "Expected number, received string");
  const result = z.object({ a: z.number() }).safeParse({ a: "1" });
  assert.equal(result.success, false);
  assert.deepEqual(result.error.issues, [{ code: "invalid_type", expected: "number", received: "string", path: ["a"], message: "Expected number, received string" }]);
  assert.equal(result.error.errors, result.error.issues);
  assert.deepEqual(result.error.flatten(), { formErrors: [], fieldErrors: { a: ["Expected number, received string"] } });
  assert.deepEqual(z.number().safeParse(1), { success: true, data: 1 });
  assert.equal(await z.number().parseAsync(1), 1);
  assert.equal((await z.number().safeParseAsync("x")).success, false);
  await assert.rejects(z.number().parseAsync("x"), ZodError);
});

test("schemas are immutable: modifiers return new schemas", () => {
  const base = z.string();
  const short = base.max(2);
  assert.equal(base.parse("long string"), "long string");
  assert.equal(short.safeParse("long").success, false);
  const object = z.object({ a: z.string() });
  object.strict();
  assert.equal(object.parse({ a: "x", b: 1 }).b, undefined);
  assert.ok(Object.isFrozen(z));
});

// OpenCode's documented tool: a Python script called with two numbers.
const addTool = tool({
  description: "Add two numbers with a Python script",
  args: {
    a: tool.schema.number().describe("First number"),
    b: tool.schema.number().describe("Second number"),
  },
  async execute(args, context) {
    return `python3 ${context.worktree}/.opencode/tools/add.py ${args.a} ${args.b}`;
  },
});

test("__plugline_tool_json_schema: OpenCode's documented add tool", () => {
  assert.deepEqual(toolJsonSchema(addTool.args), {
    type: "object",
    properties: {
      a: { type: "number", description: "First number" },
      b: { type: "number", description: "Second number" },
    },
    required: ["a", "b"],
    additionalProperties: false,
  });
  // What the host sends a model must be plain JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(toolJsonSchema(addTool.args))), toolJsonSchema(addTool.args));
});

test("__plugline_tool_json_schema: a realistic tool with every kind of argument", () => {
  const s = tool.schema;
  const args = {
    query: s.string().min(1).describe("What to search for"),
    limit: s.number().int().positive().max(100).default(10).describe("Maximum results"),
    mode: s.enum(["exact", "fuzzy"]).optional(),
    paths: s.array(s.string()).optional().describe("Directories to search"),
    filters: s.object({ ext: s.string().optional(), minSize: s.number().nonnegative() }).optional(),
    caseSensitive: s.boolean().default(false),
  };
  assert.deepEqual(toolJsonSchema(args), {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1, description: "What to search for" },
      limit: { type: "integer", exclusiveMinimum: 0, maximum: 100, default: 10, description: "Maximum results" },
      mode: { type: "string", enum: ["exact", "fuzzy"] },
      paths: { type: "array", items: { type: "string" }, description: "Directories to search" },
      filters: {
        type: "object",
        properties: { ext: { type: "string" }, minSize: { type: "number", minimum: 0 } },
        required: ["minSize"],
        additionalProperties: false,
      },
      caseSensitive: { type: "boolean", default: false },
    },
    required: ["query"],
    additionalProperties: false,
  });
  assert.deepEqual(parseToolArgs(args, { query: "x", filters: { minSize: 0 } }), {
    query: "x",
    limit: 10,
    filters: { minSize: 0 },
    caseSensitive: false,
  });
});

test("__plugline_tool_json_schema: no args, an object schema, and bad args", () => {
  const empty = { type: "object", properties: {}, additionalProperties: false };
  assert.deepEqual(toolJsonSchema({}), empty);
  assert.deepEqual(toolJsonSchema(undefined), empty);
  assert.deepEqual(toolJsonSchema(null), empty);
  assert.deepEqual(toolJsonSchema(z.object({ a: z.string() })), {
    type: "object",
    properties: { a: { type: "string" } },
    required: ["a"],
    additionalProperties: false,
  });
  assert.throws(() => toolJsonSchema({ a: "string" }), { name: "TypeError", message: 'tool argument "a" is not a schema (expected tool.schema.* or a Zod schema)' });
  assert.throws(() => toolJsonSchema({ a: z.object({ b: 42 }) }), { name: "TypeError", message: '"b": not a schema (expected tool.schema.* or a Zod schema)' });
  assert.throws(() => toolJsonSchema(z.string()), /object of schemas or an object schema/);
  assert.throws(() => toolJsonSchema("nope"), /must be an object of schemas/);
});

test("__plugline_parse_tool_args: defaults, unknown keys dropped, errors under args", () => {
  assert.deepEqual(parseToolArgs(addTool.args, { a: 1, b: 2, extra: true }), { a: 1, b: 2 });
  assert.equal(argsErrorOf(addTool.args, { a: 1, b: "2" }), "args.b: Expected number, received string");
  assert.equal(argsErrorOf(addTool.args, {}), "args.a: Required; args.b: Required");
  assert.equal(argsErrorOf(addTool.args, undefined), "args.a: Required; args.b: Required");
  assert.equal(argsErrorOf(addTool.args, [1, 2]), "args: Expected object, received array");
  assert.equal(argsErrorOf(addTool.args, "{}"), "args: Expected object, received string");
  const nested = { items: z.array(z.object({ name: z.string(), count: z.number().int() })) };
  assert.equal(
    argsErrorOf(nested, { items: [{ name: "a", count: 1 }, { name: 2, count: 1.5 }] }),
    "args.items[1].name: Expected string, received number; args.items[1].count: Expected integer, received float",
  );
  assert.deepEqual(parseToolArgs({}, undefined), {});
  assert.deepEqual(parseToolArgs({ flag: z.boolean().default(true) }, null), { flag: true });
  assert.deepEqual(parseToolArgs(z.object({ a: z.number().default(1) }), {}), { a: 1 });
  assert.throws(() => parseToolArgs({ a: 5 }, { a: 1 }), { name: "TypeError", message: "args.a: not a schema (expected tool.schema.* or a Zod schema)" });
});

test("a tool's execute receives the parsed arguments and its throw stays a rejection", async () => {
  const failing = tool({
    description: "fails",
    args: { n: z.number().default(1) },
    async execute(args) {
      throw new Error(`bad n ${args.n}`);
    },
  });
  await assert.rejects(failing.execute(parseToolArgs(failing.args, {}), {}), { message: "bad n 1" });
});

// ---------------------------------------------------------------------------------------
// Schemas from the real Zod, never in the repository: scripts/test-all.sh installs zod 3.25.76
// and 4.6.7 outside the clone and points PLUGLINE_ZOD_MODULES at them.

const zodModules = process.env.PLUGLINE_ZOD_MODULES ?? "/tmp/zodtest/node_modules";

async function importZod(name) {
  const entry = join(zodModules, name, "index.js");
  if (!existsSync(entry)) return null;
  return (await import(pathToFileURL(entry).href)).z;
}

const realZods = [
  ["zod 3", await importZod("zod"), "3."],
  ["zod 4", await importZod("zod4"), "4."],
];

for (const [label, realZod, majorPrefix] of realZods) {
  test(`real ${label}: tool args convert to JSON Schema and validate`, (t) => {
    if (realZod === null) {
      t.skip(`${label} not found under ${zodModules}; scripts/test-all.sh installs it (or: mkdir -p /tmp/zodtest && cd /tmp/zodtest && npm install zod@3.25.76 zod4@npm:zod@4.6.7)`);
      return;
    }
    const isV4 = majorPrefix === "4.";
    assert.equal(isV4, realZod.string()._zod !== undefined, `${label} has the expected shape`);
    const s = realZod;
    const args = {
      query: s.string().min(1).max(50).describe("What to search for"),
      pattern: s.string().regex(/^[a-z]+$/).optional(),
      email: s.string().email().optional(),
      limit: s.number().int().positive().max(100).default(10),
      ratio: s.number().gte(0).lt(1).optional(),
      mode: s.enum(["exact", "fuzzy"]).default("exact"),
      kind: s.literal("file").optional(),
      flag: s.boolean().nullable(),
      tags: s.array(s.string()).min(1).optional(),
      filters: s.object({ ext: s.string().optional(), size: s.number() }).strict().optional(),
      meta: s.record(s.string(), s.number()).optional(),
      either: s.union([s.string(), s.number()]).optional(),
      trimmed: s.string().transform((value) => value.trim()).optional(),
      anything: s.any(),
    };
    assert.deepEqual(toolJsonSchema(args), {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 50, description: "What to search for" },
        pattern: { type: "string", pattern: "^[a-z]+$" },
        email: { type: "string", format: "email" },
        limit: { type: "integer", exclusiveMinimum: 0, maximum: 100, default: 10 },
        ratio: { type: "number", minimum: 0, exclusiveMaximum: 1 },
        mode: { type: "string", enum: ["exact", "fuzzy"], default: "exact" },
        kind: { type: "string", const: "file" },
        flag: { type: ["boolean", "null"] },
        tags: { type: "array", items: { type: "string" }, minItems: 1 },
        filters: {
          type: "object",
          properties: { ext: { type: "string" }, size: { type: "number" } },
          required: ["size"],
          additionalProperties: false,
        },
        meta: { type: "object", additionalProperties: { type: "number" } },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        trimmed: { type: "string" },
        anything: {},
      },
      required: ["query", "flag"],
      additionalProperties: false,
    });

    // Validation uses the real schema's own safeParse; paths are prefixed with "args".
    assert.deepEqual(parseToolArgs(args, { query: "x", flag: null, trimmed: "  y ", extra: 1 }), {
      query: "x",
      limit: 10,
      mode: "exact",
      flag: null,
      trimmed: "y",
    });
    const message = argsErrorOf(args, { query: "", flag: true, tags: [1], filters: { size: "1" } });
    assert.match(message, /^args\.query: /);
    assert.match(message, /; args\.tags\[0\]: /);
    assert.match(message, /; args\.filters\.size: /);
    assert.match(argsErrorOf(args, { flag: null }), /^args\.query: (Required|Invalid input: expected string, received undefined)$/);

    // A real schema inside one of ours, and a whole real object schema as args.
    assert.deepEqual(z.object({ inner: s.number().default(4) }).parse({}), { inner: 4 });
    assert.equal(errorOf(z.array(s.number()), [1, "2"]).split(": ")[0], "[1]");
    assert.deepEqual(toolJsonSchema(s.object({ a: s.number() })), {
      type: "object",
      properties: { a: { type: "number" } },
      required: ["a"],
      additionalProperties: false,
    });
    assert.deepEqual(parseToolArgs(s.object({ a: s.number().default(1) }), undefined), { a: 1 });
    assert.deepEqual(toJSONSchema(s.string().describe("d")), { $schema: DRAFT_07, type: "string", description: "d" });
  });

  test(`real ${label}: less common shapes`, (t) => {
    if (realZod === null) {
      t.skip(`${label} not found under ${zodModules}`);
      return;
    }
    const s = realZod;
    assert.deepEqual(bare(s.object({ a: s.string() }).passthrough()), { type: "object", properties: { a: { type: "string" } }, required: ["a"] });
    assert.deepEqual(bare(s.object({ a: s.string() }).catchall(s.number())), {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: { type: "number" },
    });
    assert.deepEqual(bare(s.intersection(s.object({ a: s.string() }), s.object({ b: s.number() }))).allOf.length, 2);
    assert.deepEqual(bare(s.tuple([s.string(), s.number()])), { type: "array", items: [{ type: "string" }, { type: "number" }] });
    assert.deepEqual(bare(s.string().nullable().optional()), { type: ["string", "null"] });
    assert.deepEqual(bare(s.union([s.string(), s.number()]).nullable()), { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] });
    assert.deepEqual(bare(s.array(s.number()).default(() => [1])), { type: "array", items: { type: "number" }, default: [1] });
    assert.deepEqual(bare(s.string().url()), { type: "string", format: "uri" });
    assert.deepEqual(bare(s.string().uuid()), { type: "string", format: "uuid" });
    assert.deepEqual(bare(s.string().length(3)), { type: "string", minLength: 3, maxLength: 3 });
    assert.deepEqual(bare(s.number().multipleOf(3)), { type: "number", multipleOf: 3 });
    assert.deepEqual(bare(s.unknown()), {});
    assert.deepEqual(bare(s.date()), {}, "not expressible: no constraint");
    assert.deepEqual(bare(s.string().refine(() => true)), { type: "string" });
    assert.deepEqual(bare(s.enum(["a", "b"]).describe("pick")), { type: "string", enum: ["a", "b"], description: "pick" });
    assert.deepEqual(bare(s.object({ a: s.number() }).partial()), { type: "object", properties: { a: { type: "number" } }, additionalProperties: false });
    // A lazy recursive schema does not recurse forever.
    const tree = s.lazy(() => s.object({ children: s.array(tree) }));
    assert.deepEqual(bare(tree), {});
  });
}
