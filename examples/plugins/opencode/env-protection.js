// OpenCode's documented example (its docs, "Plugins"): refuse to read .env files. A throw in
// tool.execute.before refuses the tool call; the error's message is the reason the model sees.
// Runs unchanged in OpenCode and in plugline.
export const EnvProtection = async ({ project, client, $, directory, worktree }) => {
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool === "read" && output.args.filePath.includes(".env")) {
        throw new Error("Do not read .env files");
      }
    },
  };
};
