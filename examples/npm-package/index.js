// An OpenCode plugin as an npm package (docs/plugins-opencode.md "npm packages"): plugline loads
// it when a config file names it under plugins.packages, with the options given there.
import { compile } from "./lib/patterns.js";

export const DangerousCommands = async ({ client }, options) => {
  const { patterns, allow } = compile(options);
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool !== "bash") return;
      const command = String(output.args?.command ?? "");
      if (allow.has(command.trim())) return;
      for (const [pattern, reason] of patterns) {
        if (pattern.test(command)) {
          throw new Error(`Refused: \`${command}\` ${reason}`);
        }
      }
    },
  };
};
