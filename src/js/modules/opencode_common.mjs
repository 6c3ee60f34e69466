// What every OpenCode plugin runner of plugline needs alike, "plugline:opencode-common": the
// wrapper (opencode_host.mjs), which runs plugin files, and the Node binding's plugins the
// host runs (bindings/node/opencode.js, which packs a copy). Nothing here imports anything.

// Every hook of OpenCode's V1 `Hooks` interface (@opencode-ai/plugin index.d.ts).
export const KNOWN_HOOKS = new Set([
  "dispose", "event", "config", "tool", "auth", "provider", "chat.message", "chat.params",
  "chat.headers", "permission.ask", "command.execute.before", "tool.execute.before", "shell.env",
  "tool.execute.after", "experimental.chat.messages.transform",
  "experimental.chat.system.transform", "experimental.provider.small_model",
  "experimental.session.compacting", "experimental.compaction.autocontinue",
  "experimental.text.complete", "tool.definition",
]);

// What a plugin threw, as the message plugline reports.
export function errorMessage(error) {
  if (error instanceof Error) return error.message || String(error);
  try {
    return typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

// A custom tool's arguments without "@opencode-ai/plugin"'s converters: each argument schema
// converts and checks itself (Zod's toJSONSchema(), isOptional() and safeParse()), and one that
// cannot passes as it is.

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
