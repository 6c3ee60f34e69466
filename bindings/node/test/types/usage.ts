// Type-checked (never run) by test/types.test.js with tsc --strict: every method of the
// declarations is used as docs/embedding-node.md shows, and the misuses marked as expected
// errors must fail to compile — so the declarations cannot quietly turn into `any`.
import plugline, {
  Host, PluglineError, jsCall, version, abiVersion, EXIT_CODE_UNKNOWN, addonPath,
} from "plugline";
import type {
  DispatchResult, ShapeResult, PluginInfo, ToolInfo, ToolResult, TriggerResult,
  CatalogSyncReport, HookAnswer, HookPayload, AddedPlugin,
} from "plugline";

async function main(): Promise<void> {
  const v: string = version();
  const abi: number = abiVersion();
  const unknownExit: number = EXIT_CODE_UNKNOWN;
  const where: string = addonPath;
  const same: typeof Host = plugline.Host;

  const host = new Host({
    home: "/tmp/home",
    projectDir: null,
    projectTrusted: null,
    storeOutputs: true,
    client: async (path: string, args: unknown[]) => ({ path, args }),
    clientTimeoutMs: 2000,
    serverUrl: "http://127.0.0.1:4096",
    pluginConfig: { model: "m" },
  });

  const shaped: ShapeResult = host.shape("pytest -q", Buffer.from("x"), 1, { maxTokens: 4000 });
  const summary: string = shaped.summary;
  const raw: number = shaped.tokens_raw;
  const later: ShapeResult = await host.shapeAsync("seq 1 3", "1\n2\n3\n", 0);

  host.addHook("guard", ["pre_tool_call"], (event: string, payload: HookPayload): HookAnswer | null =>
    payload.arguments?.includes("rm -rf") ? { deny: true, reason: "no" } : null, { failClosed: true });
  host.addHook("async", "*", async () => ({ notice: "seen" }), { timeoutMs: 100 });
  const decision: DispatchResult = host.dispatch("pre_tool_call", { tool: "bash", arguments: "{}" });
  const denied: boolean = decision.denied;
  const by: string | null = decision.denied_by;
  const awaited: DispatchResult = await host.dispatchAsync("post_tool_call", { result: "ok" });
  host.removeHook("async");

  const added: AddedPlugin = await host.addPlugin(async ({ $, directory }) => ({
    "tool.execute.before": async (input: unknown, output: { args: { command: string } }) => {
      if (output.args.command.startsWith("rm")) throw new Error(`not in ${directory}`);
    },
    tool: { hello: { description: "Says hello", args: {}, execute: async () => "hello" } },
  }), { id: "guard-plugin", failClosed: true, timeoutMs: 1000 });
  const hookNames: string[] = added.hooks;
  await host.removeAddedPlugin(added.id);

  const triggered: TriggerResult<{ temperature: number }> =
    await host.triggerAsync("chat.params", {}, { temperature: 1 });
  const temperature: number = triggered.output.temperature;
  const tools: ToolInfo[] = (await host.toolsAsync(["bash"])).tools;
  const ran: ToolResult = await host.executeToolAsync("add", { a: 1 }, { directory: "/w" });
  const ok: boolean = ran.ok;
  const plugins: PluginInfo[] = await host.pluginsAsync();
  await host.reloadAsync();
  const reports: CatalogSyncReport[] = await host.syncCatalogsAsync((url, received, total) => {});
  await host.installPluginAsync("terra", null, (url: string, received: number) => {});
  host.setPluginEnabled("builtin-git-diff", false);
  const info: PluginInfo[] = host.pluginInfo("builtin-git-diff");
  const problems: string[] = host.diagnostics();
  const result: unknown = jsCall("/p/m.mjs", "f", [1], 100);

  try {
    host.shape("x", "y");
  } catch (error) {
    if (error instanceof PluglineError) {
      const code: string = error.code;
      const status: number = error.status;
    }
  }
  await host.closeAsync();
  host.close();
  const closed: boolean = host.closed;

  // @ts-expect-error: the output must be text or bytes
  host.shape("x", 42);
  // @ts-expect-error: a hook's answer has no "denied" (it is "deny")
  host.addHook("typo", "*", () => ({ denied: true }));
  // @ts-expect-error: an unknown option
  new Host({ homeDir: "/tmp" });
  // @ts-expect-error: addPlugin takes a plugin, not a plugin's name
  await host.addPlugin(42);
  // @ts-expect-error: dispatchAsync gives a Promise, not the result
  const notAwaited: DispatchResult = host.dispatchAsync("turn_end", {});
  void [v, abi, unknownExit, where, same, summary, raw, later, denied, by, awaited, temperature,
        tools, ok, plugins, reports, info, problems, result, closed, notAwaited, hookNames];
}

void main;
