// A custom tool's arguments without "@opencode-ai/plugin"'s converters: each argument schema
// converts and checks itself (Zod's toJSONSchema(), isOptional() and safeParse()), and one that
// cannot passes as it is. "plugline:tool-schema" for the wrapper (opencode_host.mjs), whose
// plugins may bring their own copy of the package; and the Node binding's plugins the host
// runs (bindings/node/opencode.js), which always do.

// The arguments as a JSON Schema object.
export function argsJsonSchema(args) {
  const properties = {};
  const required = [];
  for (const [key, schema] of Object.entries(args ?? {})) {
    properties[key] = typeof schema?.toJSONSchema === "function" ? schema.toJSONSchema() : {};
    if (!(typeof schema?.isOptional === "function" && schema.isOptional())) required.push(key);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

// `value`'s arguments checked, defaults applied; a TypeError naming the first bad one.
export function parseArgs(args, value) {
  const out = {};
  for (const [key, schema] of Object.entries(args ?? {})) {
    const input = (value ?? {})[key];
    if (typeof schema?.safeParse === "function") {
      const result = schema.safeParse(input);
      if (!result.success) throw new TypeError(`args.${key}: ${result.error?.message ?? "invalid"}`);
      if (result.data !== undefined) out[key] = result.data;
    } else if (input !== undefined) {
      out[key] = input;
    }
  }
  return out;
}
