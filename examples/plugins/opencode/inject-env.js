// OpenCode's documented shell.env example: inject environment variables into every shell execution (the
// agent's tool calls and the user's terminals, in OpenCode). A host asks for them with
// `Host::Trigger("shell.env", {cwd}, {env})` / `plugline trigger shell.env`.
export const InjectEnvPlugin = async () => {
  return {
    "shell.env": async (input, output) => {
      output.env.MY_API_KEY = "secret";
      output.env.PROJECT_ROOT = input.cwd;
    },
  };
};
