// plugline's "@opencode-ai/plugin": what OpenCode plugins import to declare custom tools.
//
// The real package (1.x) exports `tool(input)`, which returns `input` unchanged, with
// `tool.schema` set to Zod 4's `z`. plugline cannot ship Zod, so `z` here is a small
// Zod-compatible subset that validates JSON-like tool arguments and produces JSON Schema
// (draft-07 style). Plugins that import the real `zod` still work: schemas from Zod 3
// (`_def.typeName`) and Zod 4 (`_zod.def.type`) are converted to JSON Schema here, and are
// validated with their own `safeParse`. See README.md beside this file for the subset.
//
// Runs in plain V8: ECMAScript built-ins only (no Node or browser APIs), no imports.
//
// Host-side entry points (not part of the real package's API):
//   __plugline_tool_json_schema(args)        → {type:"object", properties, required?, ...}
//   __plugline_parse_tool_args(args, value)  → parsed arguments (defaults applied), or throws
//                                              a ZodError whose message reads like
//                                              "args.count: Expected number, received string".

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
// Deep enough for any real tool's arguments; stops z.lazy-style cycles in foreign schemas.
const MAX_DEPTH = 64;

// ---------------------------------------------------------------------------------------
// Errors

function formatPath(path) {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text;
}

function formatIssue(issue) {
  const where = formatPath(issue.path);
  return where === "" ? issue.message : `${where}: ${issue.message}`;
}

/** Thrown by parse(); `issues` is Zod-shaped: {code, path, message, expected?, received?}. */
export class ZodError extends Error {
  constructor(issues) {
    super(issues.map(formatIssue).join("; "));
    this.name = "ZodError";
    this.issues = issues;
  }
  get errors() {
    return this.issues;
  }
  /** Zod 3's flatten(): top-level messages and messages by first path key. */
  flatten() {
    const formErrors = [];
    const fieldErrors = {};
    for (const issue of this.issues) {
      if (issue.path.length === 0) {
        formErrors.push(issue.message);
      } else {
        const key = String(issue.path[0]);
        (fieldErrors[key] ??= []).push(issue.message);
      }
    }
    return { formErrors, fieldErrors };
  }
}

// Zod 3's names for a received value ("nan", "array", "null", …).
function receivedType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "nan";
  return typeof value;
}

function typeIssue(path, expected, value) {
  const received = receivedType(value);
  return {
    code: "invalid_type",
    expected,
    received,
    path,
    message: received === "undefined" ? "Required" : `Expected ${expected}, received ${received}`,
  };
}

function quote(value) {
  return typeof value === "string" ? `'${value}'` : String(value);
}

function deepCopy(value) {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const copy = {};
    for (const key of Object.keys(value)) copy[key] = deepCopy(value[key]);
    return copy;
  }
  return value;
}

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------
// Schemas. Every schema is immutable: modifiers return a new schema, as in Zod.

class ZodType {
  constructor(def) {
    // `_plugline` marks our own schemas (an `instanceof` check fails across module copies).
    this._plugline = true;
    this._def = def;
  }

  _with(changes) {
    const copy = Object.create(Object.getPrototypeOf(this));
    copy._plugline = true;
    copy._def = { ...this._def, ...changes };
    return copy;
  }

  _withCheck(check) {
    return this._with({ checks: [...(this._def.checks ?? []), check] });
  }

  // --- parsing
  /** Validates `value`; pushes issues (with paths below `path`) and returns the output. */
  _run(value, path, issues) {
    // Abstract: every schema class below defines its own.
    throw new TypeError(`${this.constructor.name} does not define _run`);
  }

  safeParse(value) {
    const issues = [];
    const data = this._run(value, [], issues);
    return issues.length === 0 ? { success: true, data } : { success: false, error: new ZodError(issues) };
  }

  parse(value) {
    const result = this.safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  }

  async parseAsync(value) {
    return this.parse(value);
  }

  async safeParseAsync(value) {
    return this.safeParse(value);
  }

  // --- modifiers
  optional() {
    return new ZodOptional({ kind: "optional", inner: this });
  }
  nullable() {
    return new ZodNullable({ kind: "nullable", inner: this });
  }
  nullish() {
    return this.nullable().optional();
  }
  default(value) {
    return new ZodDefault({ kind: "default", inner: this, defaultValue: value });
  }
  describe(description) {
    return this._with({ description });
  }
  get description() {
    return this._def.description;
  }
  /** Zod 4: meta() reads, meta(obj) returns a copy with metadata (description, title, examples). */
  meta(metadata) {
    if (metadata === undefined) return this._def.meta;
    const changes = { meta: { ...(this._def.meta ?? {}), ...metadata } };
    if (typeof metadata.description === "string") changes.description = metadata.description;
    return this._with(changes);
  }
  array() {
    return new ZodArray({ kind: "array", element: this });
  }
  or(other) {
    return new ZodUnion({ kind: "union", options: [this, other] });
  }
  refine(check, params) {
    const message = typeof params === "string" ? params : params?.message ?? "Invalid input";
    const path = isPlainObject(params) && Array.isArray(params.path) ? params.path : [];
    return new ZodEffects({ kind: "effects", inner: this, refine: check, message, refinePath: path });
  }
  transform(fn) {
    return new ZodEffects({ kind: "effects", inner: this, transform: fn });
  }
  isOptional() {
    return this.safeParse(undefined).success;
  }
  isNullable() {
    return this.safeParse(null).success;
  }
  /** An object key holding this schema may be absent (optional, default, any, unknown). */
  _optionalKey() {
    return false;
  }

  // --- JSON Schema
  /** JSON Schema for this schema alone (no $schema), with description/meta applied. */
  _json(depth) {
    const json = this._typeJson(depth);
    const meta = this._def.meta;
    if (meta) {
      for (const key of ["title", "examples", "deprecated"]) if (meta[key] !== undefined) json[key] = meta[key];
    }
    if (this._def.description !== undefined) json.description = this._def.description;
    return json;
  }
  _typeJson(depth) {
    return {};
  }
  toJSONSchema() {
    return toJSONSchema(this);
  }
}

function coerceTo(kind, value) {
  if (kind === "string") return value === undefined || value === null ? value : String(value);
  if (kind === "number") return value === undefined || value === null ? value : Number(value);
  if (kind === "boolean") return value === undefined ? value : Boolean(value);
  return value;
}

// Strings. The email/url/uuid checks are deliberately loose: the model's input, not mail
// routing, is being checked.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

class ZodString extends ZodType {
  _run(value, path, issues) {
    if (this._def.coerce) value = coerceTo("string", value);
    if (typeof value !== "string") {
      issues.push(typeIssue(path, "string", value));
      return undefined;
    }
    for (const check of this._def.checks ?? []) {
      let bad = null;
      switch (check.kind) {
        case "min":
          if (value.length < check.value) bad = `String must contain at least ${check.value} character(s)`;
          break;
        case "max":
          if (value.length > check.value) bad = `String must contain at most ${check.value} character(s)`;
          break;
        case "length":
          if (value.length !== check.value) bad = `String must contain exactly ${check.value} character(s)`;
          break;
        case "regex":
          check.regex.lastIndex = 0;
          if (!check.regex.test(value)) bad = `Invalid string: must match pattern ${check.regex}`;
          break;
        case "email":
          if (!EMAIL.test(value)) bad = "Invalid email";
          break;
        case "url":
          if (!URL_LIKE.test(value)) bad = "Invalid url";
          break;
        case "uuid":
          if (!UUID.test(value)) bad = "Invalid uuid";
          break;
        case "startsWith":
          if (!value.startsWith(check.value)) bad = `Invalid input: must start with "${check.value}"`;
          break;
        case "endsWith":
          if (!value.endsWith(check.value)) bad = `Invalid input: must end with "${check.value}"`;
          break;
      }
      if (bad !== null) issues.push({ code: "invalid_string", path, message: check.message ?? bad });
    }
    return value;
  }
  min(value, message) {
    return this._withCheck({ kind: "min", value, message: messageOf(message) });
  }
  max(value, message) {
    return this._withCheck({ kind: "max", value, message: messageOf(message) });
  }
  length(value, message) {
    return this._withCheck({ kind: "length", value, message: messageOf(message) });
  }
  nonempty(message) {
    return this.min(1, message ?? "String must contain at least 1 character(s)");
  }
  regex(regex, message) {
    return this._withCheck({ kind: "regex", regex, message: messageOf(message) });
  }
  email(message) {
    return this._withCheck({ kind: "email", message: messageOf(message) });
  }
  url(message) {
    return this._withCheck({ kind: "url", message: messageOf(message) });
  }
  uuid(message) {
    return this._withCheck({ kind: "uuid", message: messageOf(message) });
  }
  startsWith(value, message) {
    return this._withCheck({ kind: "startsWith", value, message: messageOf(message) });
  }
  endsWith(value, message) {
    return this._withCheck({ kind: "endsWith", value, message: messageOf(message) });
  }
  get minLength() {
    return boundOf(this._def.checks, "min", Math.max);
  }
  get maxLength() {
    return boundOf(this._def.checks, "max", Math.min);
  }
  _typeJson() {
    const json = { type: "string" };
    for (const check of this._def.checks ?? []) {
      if (check.kind === "min") json.minLength = Math.max(json.minLength ?? 0, check.value);
      else if (check.kind === "max") json.maxLength = Math.min(json.maxLength ?? Infinity, check.value);
      else if (check.kind === "length") json.minLength = json.maxLength = check.value;
      else if (check.kind === "regex") json.pattern = check.regex.source;
      else if (check.kind === "email") json.format = "email";
      else if (check.kind === "url") json.format = "uri";
      else if (check.kind === "uuid") json.format = "uuid";
    }
    return json;
  }
}

// Zod takes a message string or {message}; `error` is Zod 4's name.
function messageOf(params) {
  if (typeof params === "string") return params;
  if (isPlainObject(params)) return params.message ?? (typeof params.error === "string" ? params.error : undefined);
  return undefined;
}

function boundOf(checks, kind, pick) {
  let bound = null;
  for (const check of checks ?? []) if (check.kind === kind) bound = bound === null ? check.value : pick(bound, check.value);
  return bound;
}

class ZodNumber extends ZodType {
  _run(value, path, issues) {
    if (this._def.coerce) value = coerceTo("number", value);
    // Zod 4 (the real package's Zod) rejects NaN and ±Infinity; JSON cannot carry them anyway.
    if (typeof value !== "number" || !Number.isFinite(value)) {
      issues.push(typeIssue(path, "number", value));
      return undefined;
    }
    for (const check of this._def.checks ?? []) {
      let bad = null;
      if (check.kind === "int") {
        if (!Number.isInteger(value)) bad = "Expected integer, received float";
      } else if (check.kind === "min") {
        if (check.inclusive ? value < check.value : value <= check.value) {
          bad = `Number must be greater than ${check.inclusive ? "or equal to " : ""}${check.value}`;
        }
      } else if (check.kind === "max") {
        if (check.inclusive ? value > check.value : value >= check.value) {
          bad = `Number must be less than ${check.inclusive ? "or equal to " : ""}${check.value}`;
        }
      } else if (check.kind === "multipleOf") {
        if (value % check.value !== 0) bad = `Number must be a multiple of ${check.value}`;
      }
      if (bad !== null) {
        issues.push({ code: check.kind === "int" ? "invalid_type" : "invalid_number", path, message: check.message ?? bad });
      }
    }
    return value;
  }
  int(message) {
    return this._withCheck({ kind: "int", message: messageOf(message) });
  }
  min(value, message) {
    return this._withCheck({ kind: "min", value, inclusive: true, message: messageOf(message) });
  }
  gte(value, message) {
    return this.min(value, message);
  }
  gt(value, message) {
    return this._withCheck({ kind: "min", value, inclusive: false, message: messageOf(message) });
  }
  max(value, message) {
    return this._withCheck({ kind: "max", value, inclusive: true, message: messageOf(message) });
  }
  lte(value, message) {
    return this.max(value, message);
  }
  lt(value, message) {
    return this._withCheck({ kind: "max", value, inclusive: false, message: messageOf(message) });
  }
  positive(message) {
    return this.gt(0, message);
  }
  nonnegative(message) {
    return this.min(0, message);
  }
  negative(message) {
    return this.lt(0, message);
  }
  nonpositive(message) {
    return this.max(0, message);
  }
  multipleOf(value, message) {
    return this._withCheck({ kind: "multipleOf", value, message: messageOf(message) });
  }
  step(value, message) {
    return this.multipleOf(value, message);
  }
  finite() {
    return this; // always finite here
  }
  safe() {
    return this.min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
  }
  get isInt() {
    return (this._def.checks ?? []).some((check) => check.kind === "int");
  }
  _typeJson() {
    const json = { type: this.isInt ? "integer" : "number" };
    for (const check of this._def.checks ?? []) {
      if (check.kind === "min") {
        if (check.inclusive) json.minimum = check.value;
        else json.exclusiveMinimum = check.value;
      } else if (check.kind === "max") {
        if (check.inclusive) json.maximum = check.value;
        else json.exclusiveMaximum = check.value;
      } else if (check.kind === "multipleOf") {
        json.multipleOf = check.value;
      }
    }
    return json;
  }
}

class ZodBoolean extends ZodType {
  _run(value, path, issues) {
    if (this._def.coerce) value = coerceTo("boolean", value);
    if (typeof value !== "boolean") {
      issues.push(typeIssue(path, "boolean", value));
      return undefined;
    }
    return value;
  }
  _typeJson() {
    return { type: "boolean" };
  }
}

class ZodNull extends ZodType {
  _run(value, path, issues) {
    if (value !== null) {
      issues.push(typeIssue(path, "null", value));
      return undefined;
    }
    return value;
  }
  _typeJson() {
    return { type: "null" };
  }
}

class ZodAny extends ZodType {
  _run(value) {
    return value;
  }
  _optionalKey() {
    return true;
  }
}

function jsonTypeOf(value) {
  if (value === null) return "null";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" || typeof value === "boolean") return typeof value;
  return undefined;
}

class ZodEnum extends ZodType {
  _run(value, path, issues) {
    const values = this._def.values;
    if (!values.includes(value)) {
      issues.push({
        code: "invalid_enum_value",
        options: values,
        received: value,
        path,
        message: `Invalid enum value. Expected ${values.map(quote).join(" | ")}, received ${
          typeof value === "string" ? quote(value) : receivedType(value)
        }`,
      });
      return undefined;
    }
    return value;
  }
  get options() {
    return [...this._def.values];
  }
  get enum() {
    return Object.fromEntries(this._def.values.map((value) => [value, value]));
  }
  extract(values) {
    return new ZodEnum({ kind: "enum", values: this._def.values.filter((value) => values.includes(value)) });
  }
  exclude(values) {
    return new ZodEnum({ kind: "enum", values: this._def.values.filter((value) => !values.includes(value)) });
  }
  _typeJson() {
    const types = [...new Set(this._def.values.map(jsonTypeOf))];
    const json = {};
    if (types.length === 1 && types[0] !== undefined) json.type = types[0] === "integer" ? "number" : types[0];
    json.enum = [...this._def.values];
    return json;
  }
}

class ZodLiteral extends ZodType {
  _run(value, path, issues) {
    if (!this._def.values.includes(value)) {
      const expected = this._def.values.map((literal) => JSON.stringify(literal)).join(" | ");
      issues.push({ code: "invalid_literal", expected: this._def.values[0], received: value, path, message: `Invalid literal value, expected ${expected}` });
      return undefined;
    }
    return value;
  }
  get value() {
    return this._def.values[0];
  }
  _typeJson() {
    const values = this._def.values;
    const type = jsonTypeOf(values[0]);
    const json = type === undefined ? {} : { type: type === "integer" ? "number" : type };
    if (values.length === 1) json.const = values[0];
    else json.enum = [...values];
    return json;
  }
}

class ZodArray extends ZodType {
  _run(value, path, issues) {
    if (!Array.isArray(value)) {
      issues.push(typeIssue(path, "array", value));
      return undefined;
    }
    for (const check of this._def.checks ?? []) {
      let bad = null;
      if (check.kind === "min" && value.length < check.value) bad = `Array must contain at least ${check.value} element(s)`;
      if (check.kind === "max" && value.length > check.value) bad = `Array must contain at most ${check.value} element(s)`;
      if (check.kind === "length" && value.length !== check.value) bad = `Array must contain exactly ${check.value} element(s)`;
      if (bad !== null) issues.push({ code: check.kind === "max" ? "too_big" : "too_small", path, message: check.message ?? bad });
    }
    return value.map((item, index) => runSchema(this._def.element, item, [...path, index], issues));
  }
  get element() {
    return this._def.element;
  }
  min(value, message) {
    return this._withCheck({ kind: "min", value, message: messageOf(message) });
  }
  max(value, message) {
    return this._withCheck({ kind: "max", value, message: messageOf(message) });
  }
  length(value, message) {
    return this._withCheck({ kind: "length", value, message: messageOf(message) });
  }
  nonempty(message) {
    return this.min(1, message);
  }
  _typeJson(depth) {
    const json = { type: "array", items: schemaJson(this._def.element, depth + 1) };
    for (const check of this._def.checks ?? []) {
      if (check.kind === "min") json.minItems = check.value;
      else if (check.kind === "max") json.maxItems = check.value;
      else if (check.kind === "length") json.minItems = json.maxItems = check.value;
    }
    return json;
  }
}

class ZodObject extends ZodType {
  _run(value, path, issues) {
    if (!isPlainObject(value)) {
      issues.push(typeIssue(path, "object", value));
      return undefined;
    }
    const shape = this._def.shape;
    const output = {};
    for (const key of Object.keys(shape)) {
      const present = Object.prototype.hasOwnProperty.call(value, key);
      const parsed = runSchema(shape[key], present ? value[key] : undefined, [...path, key], issues);
      // An absent optional key stays absent (Zod does the same); a default fills it in.
      if (parsed !== undefined || present) output[key] = parsed;
    }
    const extra = Object.keys(value).filter((key) => !Object.prototype.hasOwnProperty.call(shape, key));
    if (extra.length > 0) {
      if (this._def.unknownKeys === "strict") {
        issues.push({ code: "unrecognized_keys", keys: extra, path, message: `Unrecognized key(s) in object: ${extra.map(quote).join(", ")}` });
      } else if (this._def.unknownKeys === "passthrough") {
        for (const key of extra) output[key] = value[key];
      }
    }
    return output;
  }
  get shape() {
    return this._def.shape;
  }
  extend(shape) {
    return this._with({ shape: { ...this._def.shape, ...shape } });
  }
  merge(other) {
    return this.extend(other.shape);
  }
  pick(mask) {
    return this._with({ shape: Object.fromEntries(Object.entries(this._def.shape).filter(([key]) => mask[key])) });
  }
  omit(mask) {
    return this._with({ shape: Object.fromEntries(Object.entries(this._def.shape).filter(([key]) => !mask[key])) });
  }
  partial() {
    const shape = {};
    for (const [key, schema] of Object.entries(this._def.shape)) {
      shape[key] = schema._plugline && schema._def.kind === "optional" ? schema : optionalOf(schema);
    }
    return this._with({ shape });
  }
  required() {
    const shape = {};
    for (const [key, schema] of Object.entries(this._def.shape)) {
      shape[key] = schema._plugline && schema._def.kind === "optional" ? schema._def.inner : schema;
    }
    return this._with({ shape });
  }
  strict() {
    return this._with({ unknownKeys: "strict" });
  }
  passthrough() {
    return this._with({ unknownKeys: "passthrough" });
  }
  strip() {
    return this._with({ unknownKeys: "strip" });
  }
  keyof() {
    return new ZodEnum({ kind: "enum", values: Object.keys(this._def.shape) });
  }
  _typeJson(depth) {
    const json = objectJson(this._def.shape, depth);
    if (this._def.unknownKeys === "passthrough") delete json.additionalProperties;
    return json;
  }
}

function optionalOf(schema) {
  return new ZodOptional({ kind: "optional", inner: schema });
}

class ZodRecord extends ZodType {
  _run(value, path, issues) {
    if (!isPlainObject(value)) {
      issues.push(typeIssue(path, "object", value));
      return undefined;
    }
    const output = {};
    for (const key of Object.keys(value)) {
      if (this._def.key) runSchema(this._def.key, key, [...path, key], issues);
      output[key] = runSchema(this._def.value, value[key], [...path, key], issues);
    }
    return output;
  }
  _typeJson(depth) {
    const json = { type: "object", additionalProperties: schemaJson(this._def.value, depth + 1) };
    if (this._def.key) {
      const keys = schemaJson(this._def.key, depth + 1);
      if (keys.enum || keys.pattern || keys.minLength !== undefined || keys.maxLength !== undefined) {
        delete keys.type;
        json.propertyNames = keys;
      }
    }
    return json;
  }
}

class ZodUnion extends ZodType {
  _run(value, path, issues) {
    const failures = [];
    for (const option of this._def.options) {
      const optionIssues = [];
      const parsed = runSchema(option, value, path, optionIssues);
      if (optionIssues.length === 0) return parsed;
      failures.push(optionIssues);
    }
    // Report the one option that got furthest (deepest issue) when one did, like Zod does
    // for objects; otherwise say which types would have been accepted.
    const deepest = failures.reduce((best, list) => (depthOf(list) > depthOf(best) ? list : best), failures[0] ?? []);
    if (depthOf(deepest) > path.length) {
      issues.push(...deepest);
    } else {
      const expected = this._def.options.map(describeExpected).join(" | ");
      issues.push({ code: "invalid_union", path, message: `Invalid input: expected ${expected}, received ${receivedType(value)}` });
    }
    return undefined;
  }
  get options() {
    return [...this._def.options];
  }
  _typeJson(depth) {
    return { anyOf: this._def.options.map((option) => schemaJson(option, depth + 1)) };
  }
}

function depthOf(issues) {
  return issues.reduce((deepest, issue) => Math.max(deepest, issue.path.length), -1);
}

function describeExpected(schema) {
  const json = schemaJson(schema, 0);
  if (json.const !== undefined) return JSON.stringify(json.const);
  if (json.enum) return json.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (typeof json.type === "string") return json.type;
  if (Array.isArray(json.type)) return json.type.join(" | ");
  return "a matching value";
}

class ZodOptional extends ZodType {
  _run(value, path, issues) {
    return value === undefined ? undefined : runSchema(this._def.inner, value, path, issues);
  }
  unwrap() {
    return this._def.inner;
  }
  _optionalKey() {
    return true;
  }
  _typeJson(depth) {
    return schemaJson(this._def.inner, depth + 1);
  }
}

class ZodNullable extends ZodType {
  _run(value, path, issues) {
    return value === null ? null : runSchema(this._def.inner, value, path, issues);
  }
  unwrap() {
    return this._def.inner;
  }
  _optionalKey() {
    return isOptionalKey(this._def.inner);
  }
  _typeJson(depth) {
    return nullableJson(schemaJson(this._def.inner, depth + 1));
  }
}

// Zod 4 writes nullable as a type list when it can ({type: ["string", "null"]}).
function nullableJson(inner) {
  if (typeof inner.type === "string" && inner.anyOf === undefined) {
    const json = { ...inner, type: [inner.type, "null"] };
    if (json.enum) json.enum = [...json.enum, null];
    return json;
  }
  if (Array.isArray(inner.anyOf) && Object.keys(inner).length === 1) return { anyOf: [...inner.anyOf, { type: "null" }] };
  return { anyOf: [inner, { type: "null" }] };
}

function defaultOf(value) {
  return typeof value === "function" ? value() : deepCopy(value);
}

class ZodDefault extends ZodType {
  _run(value, path, issues) {
    // As in Zod 4 (the real package's Zod), the default itself is not validated.
    if (value === undefined) return defaultOf(this._def.defaultValue);
    return runSchema(this._def.inner, value, path, issues);
  }
  removeDefault() {
    return this._def.inner;
  }
  unwrap() {
    return this._def.inner;
  }
  _optionalKey() {
    return true;
  }
  _typeJson(depth) {
    return { ...schemaJson(this._def.inner, depth + 1), default: defaultOf(this._def.defaultValue) };
  }
}

class ZodEffects extends ZodType {
  _run(value, path, issues) {
    const before = issues.length;
    const parsed = runSchema(this._def.inner, value, path, issues);
    if (issues.length !== before) return undefined;
    if (this._def.transform) return this._def.transform(parsed);
    // A refinement that returns a promise cannot be awaited here; it counts as passing.
    const verdict = this._def.refine(parsed);
    if (verdict === false) issues.push({ code: "custom", path: [...path, ...this._def.refinePath], message: this._def.message });
    return parsed;
  }
  _optionalKey() {
    return isOptionalKey(this._def.inner);
  }
  _typeJson(depth) {
    return schemaJson(this._def.inner, depth + 1);
  }
}

// ---------------------------------------------------------------------------------------
// Schemas from the real Zod (3 or 4), inside our objects or as tool args.

function isOurs(schema) {
  return schema !== null && typeof schema === "object" && schema._plugline === true && typeof schema._run === "function";
}

function isZod4(schema) {
  return schema !== null && typeof schema === "object" && schema._zod !== undefined && typeof schema._zod.def?.type === "string";
}

function isZod3(schema) {
  return schema !== null && typeof schema === "object" && typeof schema._def?.typeName === "string";
}

function isSchema(schema) {
  return isOurs(schema) || isZod4(schema) || isZod3(schema);
}

/** Validates `value` against any schema, ours or a real Zod one (through its own safeParse). */
function runSchema(schema, value, path, issues) {
  if (isOurs(schema)) return schema._run(value, path, issues);
  if (schema !== null && typeof schema === "object" && typeof schema.safeParse === "function") {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error?.issues ?? []) {
      issues.push({ ...issue, path: [...path, ...(issue.path ?? [])], message: String(issue.message ?? "Invalid input") });
    }
    if ((result.error?.issues ?? []).length === 0) issues.push({ code: "custom", path, message: String(result.error?.message ?? "Invalid input") });
    return undefined;
  }
  throw new TypeError(`${formatPath(path) || "value"}: not a schema (expected tool.schema.* or a Zod schema)`);
}

function isOptionalKey(schema) {
  if (isOurs(schema)) return schema._optionalKey();
  if (isZod4(schema)) {
    const type = schema._zod.def.type;
    if (type === "optional" || type === "default" || type === "prefault") return true;
    if (schema._zod.optin === "optional") return true;
  } else if (isZod3(schema)) {
    const typeName = schema._def.typeName;
    if (typeName === "ZodOptional" || typeName === "ZodDefault") return true;
  }
  if (typeof schema?.isOptional === "function") {
    try {
      return schema.isOptional() === true;
    } catch {
      return false;
    }
  }
  return false;
}

function schemaJson(schema, depth) {
  if (depth > MAX_DEPTH) return {};
  if (isOurs(schema)) return schema._json(depth);
  if (isZod4(schema)) return zod4Json(schema, depth);
  if (isZod3(schema)) return zod3Json(schema, depth);
  throw new TypeError("not a schema (expected tool.schema.* or a Zod schema)");
}

function objectJson(shape, depth) {
  const properties = {};
  const required = [];
  for (const key of Object.keys(shape)) {
    const schema = shape[key];
    if (!isSchema(schema)) throw new TypeError(`"${key}": not a schema (expected tool.schema.* or a Zod schema)`);
    properties[key] = schemaJson(schema, depth + 1);
    if (!isOptionalKey(schema)) required.push(key);
  }
  const json = { type: "object", properties };
  if (required.length > 0) json.required = required;
  json.additionalProperties = false;
  return json;
}

function withDescription(json, schema) {
  const description = schema.description;
  if (typeof description === "string" && json.description === undefined) json.description = description;
  return json;
}

function regexSource(pattern) {
  return pattern instanceof RegExp ? pattern.source : String(pattern);
}

const FORMATS = { email: "email", url: "uri", uuid: "uuid", guid: "uuid", datetime: "date-time", date: "date", time: "time", ipv4: "ipv4", ipv6: "ipv6" };

// Zod 4: `_zod.def` with `type`, `checks` (each a schema-like object with `_zod.def.check`).
function zod4Json(schema, depth) {
  const def = schema._zod.def;
  const inner = (child) => schemaJson(child, depth + 1);
  // A check's def, and also a schema's own def (z.email() and z.int() carry their format there).
  const checks = [def, ...(def.checks ?? []).map((check) => check?._zod?.def ?? {})];
  let json;
  switch (def.type) {
    case "string": {
      json = { type: "string" };
      for (const check of checks) {
        if (check.check === "min_length") json.minLength = check.minimum;
        else if (check.check === "max_length") json.maxLength = check.maximum;
        else if (check.check === "length_equals") json.minLength = json.maxLength = check.length;
        else if (check.check === "string_format") {
          if (check.format === "regex") json.pattern = regexSource(check.pattern);
          else if (FORMATS[check.format]) json.format = FORMATS[check.format];
          else if (check.format === "starts_with" && check.prefix !== undefined) json.pattern = `^${escapeRegex(check.prefix)}`;
          else if (check.format === "ends_with" && check.suffix !== undefined) json.pattern = `${escapeRegex(check.suffix)}$`;
        }
      }
      break;
    }
    case "number":
    case "int": {
      json = { type: def.type === "int" ? "integer" : "number" };
      for (const check of checks) {
        if (check.check === "number_format" && /int/.test(String(check.format))) json.type = "integer";
        else if (check.check === "greater_than") json[check.inclusive ? "minimum" : "exclusiveMinimum"] = Number(check.value);
        else if (check.check === "less_than") json[check.inclusive ? "maximum" : "exclusiveMaximum"] = Number(check.value);
        else if (check.check === "multiple_of") json.multipleOf = Number(check.value);
      }
      break;
    }
    case "boolean":
      json = { type: "boolean" };
      break;
    case "null":
      json = { type: "null" };
      break;
    case "enum": {
      const values = Object.values(def.entries ?? {});
      json = zodEnumJson(values);
      break;
    }
    case "literal": {
      const values = def.values ?? [];
      json = values.length === 1 ? { ...typeOfLiteral(values[0]), const: values[0] } : { ...typeOfLiteral(values[0]), enum: [...values] };
      break;
    }
    case "array": {
      json = { type: "array", items: inner(def.element) };
      for (const check of checks.slice(1)) {
        if (check.check === "min_length") json.minItems = check.minimum;
        else if (check.check === "max_length") json.maxItems = check.maximum;
        else if (check.check === "length_equals") json.minItems = json.maxItems = check.length;
      }
      break;
    }
    case "tuple":
      json = { type: "array", items: (def.items ?? []).map(inner) };
      break;
    case "object": {
      json = objectJson(def.shape ?? {}, depth);
      const catchall = def.catchall;
      if (catchall !== undefined) {
        if (catchall._zod?.def?.type === "never") json.additionalProperties = false;
        else {
          const extra = inner(catchall);
          if (Object.keys(extra).length === 0) delete json.additionalProperties;
          else json.additionalProperties = extra;
        }
      }
      break;
    }
    case "record":
      json = { type: "object", additionalProperties: inner(def.valueType) };
      break;
    case "union":
      json = { anyOf: (def.options ?? []).map(inner) };
      break;
    case "intersection":
      json = { allOf: [inner(def.left), inner(def.right)] };
      break;
    case "optional":
    case "nonoptional":
    case "readonly":
    case "catch":
      json = inner(def.innerType);
      break;
    case "nullable":
      json = nullableJson(inner(def.innerType));
      break;
    case "default":
    case "prefault": {
      json = inner(def.innerType);
      const value = def.defaultValue;
      json.default = deepCopy(typeof value === "function" ? value() : value);
      break;
    }
    case "pipe":
      // A transform's output type is unknown; describe the input (what the model must send).
      json = inner(def.in);
      break;
    default:
      // any, unknown, transform, lazy, date, bigint, custom, …: no constraint we can express.
      json = {};
  }
  if (typeof schema.meta === "function") {
    let meta;
    try {
      meta = schema.meta();
    } catch {
      meta = undefined;
    }
    if (isPlainObject(meta)) for (const key of ["title", "examples", "deprecated"]) if (meta[key] !== undefined) json[key] = meta[key];
  }
  return withDescription(json, schema);
}

// Zod 3: `_def.typeName` (ZodString, …) with `checks: [{kind, value, inclusive}]`.
function zod3Json(schema, depth) {
  const def = schema._def;
  const inner = (child) => schemaJson(child, depth + 1);
  let json;
  switch (def.typeName) {
    case "ZodString": {
      json = { type: "string" };
      for (const check of def.checks ?? []) {
        if (check.kind === "min") json.minLength = check.value;
        else if (check.kind === "max") json.maxLength = check.value;
        else if (check.kind === "length") json.minLength = json.maxLength = check.value;
        else if (check.kind === "regex") json.pattern = regexSource(check.regex);
        else if (check.kind === "startsWith") json.pattern = `^${escapeRegex(check.value)}`;
        else if (check.kind === "endsWith") json.pattern = `${escapeRegex(check.value)}$`;
        else if (FORMATS[check.kind]) json.format = FORMATS[check.kind];
      }
      break;
    }
    case "ZodNumber": {
      json = { type: "number" };
      for (const check of def.checks ?? []) {
        if (check.kind === "int") json.type = "integer";
        else if (check.kind === "min") json[check.inclusive ? "minimum" : "exclusiveMinimum"] = check.value;
        else if (check.kind === "max") json[check.inclusive ? "maximum" : "exclusiveMaximum"] = check.value;
        else if (check.kind === "multipleOf") json.multipleOf = check.value;
      }
      break;
    }
    case "ZodBoolean":
      json = { type: "boolean" };
      break;
    case "ZodNull":
      json = { type: "null" };
      break;
    case "ZodEnum":
      json = zodEnumJson(def.values ?? []);
      break;
    case "ZodNativeEnum": {
      // TypeScript numeric enums map both ways; keep the values, not the reverse keys.
      const object = def.values ?? {};
      const values = Object.keys(object)
        .filter((key) => typeof object[object[key]] !== "number")
        .map((key) => object[key]);
      json = zodEnumJson(values);
      break;
    }
    case "ZodLiteral":
      json = { ...typeOfLiteral(def.value), const: def.value };
      break;
    case "ZodArray": {
      json = { type: "array", items: inner(def.type) };
      if (def.minLength) json.minItems = def.minLength.value;
      if (def.maxLength) json.maxItems = def.maxLength.value;
      if (def.exactLength) json.minItems = json.maxItems = def.exactLength.value;
      break;
    }
    case "ZodTuple":
      json = { type: "array", items: (def.items ?? []).map(inner) };
      break;
    case "ZodObject": {
      const shape = typeof def.shape === "function" ? def.shape() : def.shape ?? {};
      json = objectJson(shape, depth);
      const catchallType = def.catchall?._def?.typeName;
      if (catchallType && catchallType !== "ZodNever") json.additionalProperties = inner(def.catchall);
      else if (def.unknownKeys === "passthrough") delete json.additionalProperties;
      break;
    }
    case "ZodRecord":
      json = { type: "object", additionalProperties: inner(def.valueType) };
      break;
    case "ZodUnion":
    case "ZodDiscriminatedUnion": {
      const options = def.options instanceof Map ? [...def.options.values()] : def.options ?? [];
      json = { anyOf: options.map(inner) };
      break;
    }
    case "ZodIntersection":
      json = { allOf: [inner(def.left), inner(def.right)] };
      break;
    case "ZodOptional":
    case "ZodReadonly":
    case "ZodCatch":
      json = inner(def.innerType);
      break;
    case "ZodNullable":
      json = nullableJson(inner(def.innerType));
      break;
    case "ZodDefault":
      json = { ...inner(def.innerType), default: deepCopy(def.defaultValue()) };
      break;
    case "ZodEffects":
      json = inner(def.schema);
      break;
    case "ZodBranded":
      json = inner(def.type);
      break;
    case "ZodPipeline":
      json = inner(def.in);
      break;
    default:
      // ZodAny, ZodUnknown, ZodLazy, ZodDate, ZodBigInt, ZodFunction, …
      json = {};
  }
  return withDescription(json, schema);
}

function zodEnumJson(values) {
  const types = [...new Set(values.map(jsonTypeOf))];
  const json = {};
  if (types.length === 1 && types[0] !== undefined) json.type = types[0] === "integer" ? "number" : types[0];
  json.enum = [...values];
  return json;
}

function typeOfLiteral(value) {
  const type = jsonTypeOf(value);
  return type === undefined ? {} : { type: type === "integer" ? "number" : type };
}

function escapeRegex(text) {
  return String(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// ---------------------------------------------------------------------------------------
// z

/** JSON Schema (draft-07) for a schema: ours, Zod 3's or Zod 4's. Includes `$schema`. */
export function toJSONSchema(schema) {
  return { $schema: DRAFT_07, ...schemaJson(schema, 0) };
}

function makeEnum(values) {
  // z.enum(["a", "b"]) or, as in Zod 4, z.enum({A: "a", B: "b"}) (a TypeScript enum object).
  const list = Array.isArray(values) ? values : Object.values(values ?? {});
  if (list.length === 0) throw new TypeError("z.enum() needs at least one value");
  return new ZodEnum({ kind: "enum", values: [...list] });
}

const coerce = Object.freeze({
  string: () => new ZodString({ kind: "string", coerce: true }),
  number: () => new ZodNumber({ kind: "number", coerce: true }),
  boolean: () => new ZodBoolean({ kind: "boolean", coerce: true }),
});

export const z = Object.freeze({
  string: (params) => withParams(new ZodString({ kind: "string" }), params),
  number: (params) => withParams(new ZodNumber({ kind: "number" }), params),
  int: (params) => withParams(new ZodNumber({ kind: "number" }).int(), params),
  boolean: (params) => withParams(new ZodBoolean({ kind: "boolean" }), params),
  null: () => new ZodNull({ kind: "null" }),
  any: () => new ZodAny({ kind: "any" }),
  unknown: () => new ZodAny({ kind: "unknown" }),
  enum: (values, params) => withParams(makeEnum(values), params),
  nativeEnum: (values) => makeEnum(Object.keys(values).filter((key) => typeof values[values[key]] !== "number").map((key) => values[key])),
  literal: (value) => new ZodLiteral({ kind: "literal", values: Array.isArray(value) ? [...value] : [value] }),
  array: (element, params) => withParams(new ZodArray({ kind: "array", element }), params),
  object: (shape, params) => withParams(new ZodObject({ kind: "object", shape: { ...(shape ?? {}) }, unknownKeys: "strip" }), params),
  strictObject: (shape) => new ZodObject({ kind: "object", shape: { ...(shape ?? {}) }, unknownKeys: "strict" }),
  looseObject: (shape) => new ZodObject({ kind: "object", shape: { ...(shape ?? {}) }, unknownKeys: "passthrough" }),
  // Zod 3: record(value) or record(key, value); Zod 4: record(key, value).
  record: (first, second) =>
    second === undefined ? new ZodRecord({ kind: "record", value: first }) : new ZodRecord({ kind: "record", key: first, value: second }),
  union: (options) => new ZodUnion({ kind: "union", options: [...options] }),
  optional: (schema) => optionalOf(schema),
  nullable: (schema) => schema.nullable(),
  email: (params) => withParams(new ZodString({ kind: "string" }).email(), params),
  url: (params) => withParams(new ZodString({ kind: "string" }).url(), params),
  uuid: (params) => withParams(new ZodString({ kind: "string" }).uuid(), params),
  coerce,
  toJSONSchema,
  ZodError,
});

// Zod accepts {description} (and {message}/{error}) as the last argument of a constructor.
function withParams(schema, params) {
  if (isPlainObject(params) && typeof params.description === "string") return schema.describe(params.description);
  return schema;
}

// ---------------------------------------------------------------------------------------
// The package's API

/**
 * Declares a custom tool: `{description, args, execute(args, context)}`. Returns its argument
 * unchanged, as the real package does. `args` maps argument names to schemas.
 */
export function tool(input) {
  return input;
}
tool.schema = z;

// ---------------------------------------------------------------------------------------
// Host side

function argsShape(args) {
  if (args === undefined || args === null) return {};
  if (isSchema(args)) return null; // a whole object schema, handled by the callers
  if (!isPlainObject(args)) throw new TypeError("tool args must be an object of schemas");
  return args;
}

/**
 * One object JSON Schema (no `$schema`) for a tool's `args`: a plain object whose values are
 * schemas (ours or real Zod's), or one object schema. Throws a TypeError naming the argument
 * that is not a schema.
 */
export function __plugline_tool_json_schema(args) {
  const shape = argsShape(args);
  if (shape === null) {
    const json = schemaJson(args, 0);
    if (json.type !== "object") throw new TypeError("tool args must be an object of schemas or an object schema");
    return json;
  }
  for (const key of Object.keys(shape)) {
    if (!isSchema(shape[key])) throw new TypeError(`tool argument "${key}" is not a schema (expected tool.schema.* or a Zod schema)`);
  }
  return objectJson(shape, 0);
}

/**
 * Validates one call's arguments (`value`, parsed JSON; undefined/null mean {}) against the
 * tool's `args` and returns them with defaults applied and unknown keys dropped. Throws a
 * ZodError whose message names each problem's path under "args", e.g.
 * "args.count: Expected number, received string; args.name: Required".
 */
export function __plugline_parse_tool_args(args, value) {
  const input = value === undefined || value === null ? {} : value;
  const issues = [];
  const shape = argsShape(args);
  const schema = shape === null ? args : new ZodObject({ kind: "object", shape, unknownKeys: "strip" });
  const data = runSchema(schema, input, ["args"], issues);
  if (issues.length > 0) throw new ZodError(issues);
  return data;
}

// plugline's wrapper (opencode_host.mjs) does not import this module, so that shaper plugins do
// not pay for it; a plugin that declares tools imports it, and these are how the wrapper finds
// the converters then. Not enumerable, not writable.
if (!Object.prototype.hasOwnProperty.call(globalThis, "__plugline_tool_support")) {
  Object.defineProperty(globalThis, "__plugline_tool_support", {
    value: Object.freeze({ jsonSchema: __plugline_tool_json_schema, parseArgs: __plugline_parse_tool_args }),
  });
}
