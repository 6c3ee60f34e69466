// A custom tool that calls a Python script through `$` (OpenCode's documented pattern, without Bun: the
// script lies next to this file). `add` appears in the host's tool list with a JSON Schema for
// its arguments; interpolated values reach the script as separate arguments, never as shell
// text.
import { tool } from "@opencode-ai/plugin";

const here = import.meta.url.slice("file://".length, import.meta.url.lastIndexOf("/"));

export default async ({ $ }) => ({
  tool: {
    add: tool({
      description: "Add two numbers with Python",
      args: {
        a: tool.schema.number().describe("First number"),
        b: tool.schema.number().describe("Second number"),
      },
      async execute(args, context) {
        const result = await $`python3 ${here}/add.py ${args.a} ${args.b}`.text();
        return result.trim();
      },
    }),
  },
});
