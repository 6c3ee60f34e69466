// A TypeScript plugin: types are stripped when plugline loads it (sucrase, inside V8); no build
// step. Refuses force pushes and recursive deletes of the home directory from the bash tool.
import type { Plugin } from "@opencode-ai/plugin";

interface BashArgs {
  command: string;
  timeout?: number;
}

const forbidden: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /\bgit\s+push\b.*\s(--force|-f)\b/, why: "force pushes rewrite shared history" },
  { pattern: /\brm\s+-[a-zA-Z]*r[a-zA-Z]*\s+(~|\$HOME)\/?(\s|$)/, why: "that deletes the home directory" },
];

export const CommandGuard: Plugin = async ({ directory }) => {
  return {
    "tool.execute.before": async (input: { tool: string }, output: { args: BashArgs }) => {
      if (input.tool !== "bash") return;
      for (const { pattern, why } of forbidden) {
        if (pattern.test(output.args.command)) {
          throw new Error(`refused: ${why} (${output.args.command})`);
        }
      }
    },
  };
};
