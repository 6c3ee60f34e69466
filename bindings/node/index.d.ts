// Types of the plugline Node.js binding (index.js). Every call is synchronous.

/** An error reported by plugline (or by the addon in plugline's terms). */
export class PluglineError extends Error {
  constructor(message: string, status: number, code: string);
  readonly name: 'PluglineError';
  /** The plugline_status: a negative number, e.g. -1. */
  status: number;
  /** plugline_status_str(status), e.g. "PLUGLINE_EINVALID". */
  code: string;
}

/** "0.1.0": plugline_version_string() of the loaded libplugline. */
export function version(): string;
/** plugline_abi_version() of the loaded libplugline (checked to be 1 at load). */
export function abiVersion(): number;
/** PLUGLINE_EXIT_CODE_UNKNOWN (INT32_MIN). */
export const EXIT_CODE_UNKNOWN: number;
/** The file the native addon was loaded from. */
export const addonPath: string;

export interface HostOptions {
  /** State directory; default $PLUGLINE_HOME, else ~/.plugline. */
  home?: string | null;
  /** A project whose .plugline/ adds configuration and plugins. */
  projectDir?: string | null;
  /**
   * Who decides whether that project's .plugline/ may load (docs/security.md): null or absent,
   * the user's trust store (written by `plugline trust`) for the project as it is now; true,
   * the host vouches for it (it asked the user itself, as an editor's workspace trust does);
   * false, nothing of it loads. Until it may load, its plugins are listed as "untrusted" and
   * nothing of it runs. Even a trusted project cannot disable or replace a protected global
   * plugin.
   */
  projectTrusted?: boolean | null;
  /** Keep raw outputs under <home>/outputs and name the file in summaries (default true). */
  storeOutputs?: boolean;
  /**
   * What OpenCode plugins' `client` reaches: `await client.app.log({...})` in a plugin calls
   * `client("app.log", [{...}])` on the JS thread, inside the call running the plugin's hook.
   * Its JSON-able answer (undefined: null) resolves the plugin's promise; a throw rejects it
   * with "client.<path>() failed: " + String(error). Under the *Async methods it may return
   * a Promise (awaited for at most clientTimeoutMs); under the synchronous ones a Promise
   * rejects the call. Without it, client calls reject ("no client callback").
   */
  client?: ClientFunction | null;
  /** How long a client call under an *Async method may take to answer, in ms (default 5000). */
  clientTimeoutMs?: number | null;
  /** ctx.serverUrl of OpenCode plugins. */
  serverUrl?: string | null;
  /** The JSON object (or its JSON text) OpenCode plugins' `config` hooks receive; default {}. */
  pluginConfig?: Record<string, unknown> | string | null;
}

/** The host's side of OpenCode plugins' `client`: path is "app.log", args the call's arguments. */
export type ClientFunction = (path: string, args: unknown[]) => unknown | Promise<unknown>;

export interface ShapeOptions {
  /** Use this shaper ("builtin-generic") instead of choosing by match(). */
  shaper?: string | null;
  /** The summary's token budget: null/undefined for config's shaping.max_summary_tokens
   * (default 8000), 0 for none, else at least 200 (1 to 199 throw a PluglineError,
   * PLUGLINE_EINVALID). A summary over it is cut by priority, never mid-line. */
  maxTokens?: number | null;
}

export interface ShapeResult {
  summary: string;
  render_mode: 'summary' | 'raw';
  shaper: string;
  confidence: number;
  raw_path: string | null;
  /** The whole output's size and lines. */
  raw_bytes: number;
  raw_lines: number;
  /** Bytes in the raw file: raw_bytes unless outputs.max_file_mb capped it; 0 when not stored. */
  raw_stored_bytes: number;
  /** Bytes the shapers saw: raw_bytes unless the output was larger than the shaping window. */
  shaped_bytes: number;
  tokens_raw: number;
  tokens_summary: number;
  /** tokens_raw minus tokens_summary: negative when the summary costs more. */
  tokens_saved: number;
  /** What counted the tokens. */
  token_counter: 'o200k_base' | 'cl100k_base' | 'estimate' | 'host';
  /** The budget that applied (0: none) and the summary lines it left out. */
  max_tokens: number;
  budget_lines_left_out: number;
  /** The output held secrets, masked in the summary and the raw file: a raw summary then
   * differs from the output and should replace it. */
  secrets_masked: boolean;
  fallback: string | null;
  /** Shapers whose match() failed and were left out. */
  skipped: { plugin: string; why: string; detail: string }[];
}

export interface PluginInfo {
  id: string;
  kind: "builtin-shaper" | "js-shaper" | "exec-hook" | "opencode" | "native-hook";
  tier: "built-in" | "community" | "premium" | null;
  /** "untrusted": a project's plugin that is not trusted (reason: the command to run). */
  state: "enabled" | "disabled" | "broken" | "shadowed" | "untrusted";
  reason: string | null;
  path: string | null;
  /** Where it came from: "host" for a native hook. */
  source: "built-in" | "global" | "project" | "global-config" | "project-config" | "opencode" | "opencode-config" | "host";
  /** A loaded JS plugin's runtime: Node.js in a worker process, or plugline's V8 sandbox. */
  runtime: "node" | "sandboxed" | null;
  version: string | null;
  description: string | null;
  /** The events a hook subscribes to ("*" = every event). */
  events: string[];
  /** Non-fatal problems (an unknown key in plugin.yaml, a project's ignored override). */
  warnings: string[];
  /** A global plugin a project cannot disable, reconfigure or replace. */
  protected: boolean;
  /** A shaper's statistics; null for plugins that shape nothing. */
  stats: {
    match_count: number;
    shape_count: number;
    fail_count: number;
    tokens_saved: number;
    average_shape_ms: number;
  } | null;
  /** Where a plugin installed from a catalog came from; null otherwise. */
  install: {
    version: string;
    catalog: string;
    url: string;
    sha256: string;
    size: number;
    verified: boolean;
    signed: boolean;
    installed_at: string;
    author: string;
    homepage: string;
    isolation: string;
    path: string;
  } | null;
}

/** The canonical hook events; any other name is dispatched as observe-only. */
export type HookEvent =
  | "pre_tool_call" | "post_tool_call" | "session_start" | "session_end" | "turn_end"
  | "user_prompt" | "tool_definition" | "shell_env" | "pre_compact";

/** What a dispatch carries: a JSON object. */
export interface HookPayload {
  session_id?: string;
  tool?: string;
  /** The tool's arguments, JSON-encoded. */
  arguments?: string;
  /** The tool's result (post_tool_call). */
  result?: string;
  /** Set by plugline in the payload a hook receives. */
  event?: string;
  [field: string]: unknown;
}

/** A hook's answer; every field optional; none = no opinion. */
export interface HookAnswer {
  deny?: boolean;
  reason?: string;
  /** New arguments, JSON-encoded (pre_tool_call). */
  arguments?: string;
  /** A replacement result (post_tool_call). */
  result?: string;
  /** A message for the agent or user (any event). */
  notice?: string;
}

/**
 * A native hook, called on the JS thread during dispatch() or dispatchAsync(). Throwing (or
 * returning anything but an object, null or undefined) makes the hook fail with
 * String(error) as the reason. Under dispatchAsync() it may be async (its Promise is awaited
 * for at most timeoutMs); under dispatch() a Promise is the hook's failure.
 */
export type HookFunction =
  (event: string, payload: HookPayload) =>
    HookAnswer | null | undefined | void | Promise<HookAnswer | null | undefined | void>;

export interface AddHookOptions {
  /** A failure of the hook counts as a deny on pre_tool_call (default false). */
  failClosed?: boolean;
  /** How long dispatchAsync() awaits the hook's answer, in ms (default 5000). */
  timeoutMs?: number | null;
}

/** The context OpenCode gives a plugin function (its first argument). */
export interface OpenCodePluginContext {
  project: { id: string; worktree: string; vcs?: "git" };
  directory: string;
  worktree: string;
  /** A WHATWG URL object. */
  serverUrl?: { readonly href: string; toString(): string };
  /** `client.app.log(x)` calls the host's client option as client("app.log", [x]). */
  client: any;
  /** Bun's shell: `await $\`git status\`.text()`; each interpolation is one argument. */
  $: any;
  experimental_workspace: { register(type: string, adapter: unknown): void };
}

/** The hooks a plugin function returns: OpenCode hook name -> function, and `tool`. */
export type OpenCodeHooks = {
  tool?: Record<string, {
    description?: string;
    args?: Record<string, unknown>;
    execute(args: any, context: ToolContext & Record<string, unknown>): unknown;
  }>;
} & { [hook: string]: unknown };

/** An OpenCode (V1) plugin function. */
export type OpenCodePlugin =
  (ctx: OpenCodePluginContext, options?: any) => OpenCodeHooks | Promise<OpenCodeHooks>;

export interface AddPluginOptions {
  /** Default: the function's name, else the module's `id`, else "host-plugin". */
  id?: string;
  /** The plugin functions' second argument. */
  options?: unknown;
  /** A failure counts as a deny on pre_tool_call (default false). */
  failClosed?: boolean;
  /** How long an async hook or tool, and a `$` command, may take, in ms (default 5000). */
  timeoutMs?: number | null;
  /** ctx.directory (default: projectDir, else the working directory). */
  directory?: string;
}

export interface AddedPlugin {
  id: string;
  /** The OpenCode hooks it has. */
  hooks: string[];
  /** Keys of its hooks objects that are no OpenCode hook. */
  unknown: string[];
  /** The names of its tools. */
  tools: string[];
}

/** What dispatch() decided, after every hook in the chain ran. */
export interface DispatchResult {
  event: string;
  denied: boolean;
  /** The denying hook's id; null unless denied. */
  denied_by: string | null;
  /** The deny reason; null unless denied. */
  reason: string | null;
  /** The final arguments (JSON-encoded); null when absent. */
  arguments: string | null;
  /** The final result; null when absent. */
  result: string | null;
  notices: { plugin: string; text: string }[];
  /** Hooks that failed and were left out: why is a short code, detail the message. */
  skipped: { plugin: string; why: string; detail: string }[];
  /** One entry per hook that ran, in chain order. */
  plugins: { plugin: string; action: string; ms: number }[];
  /**
   * What did not stop the dispatch but is probably not what was meant: an answer key plugline
   * does not read, an event name one edit away from a canonical one (plugin null).
   */
  warnings: { plugin: string | null; text: string }[];
  /**
   * Every plugin that could not load, with why; one that fails closed denied in its place
   * (the deny-capable events it subscribed to, every pre_tool_call when that cannot be told).
   */
  broken: { plugin: string; reason: string }[];
}

/** What trigger() returns: the output after every plugin's hook ran. */
export interface TriggerResult<Output = Record<string, unknown>> {
  name: string;
  output: Output;
  /** Hooks that threw; the other plugins still ran. */
  errors: { plugin: string; message: string }[];
  /** One entry per plugin that ran, in order. */
  plugins: { plugin: string; ms: number }[];
}

/** A tool an OpenCode plugin adds. */
export interface ToolInfo {
  name: string;
  description: string;
  /** The JSON Schema of its arguments ({"type": "object", "properties": ...}). */
  parameters: Record<string, unknown>;
  /** The plugin that adds it. */
  plugin: string;
  /** It has the name of one of the host's built-in tools, and takes precedence over it. */
  overrides_builtin: boolean;
}

/** What executeTool() gives to the tool's execute() as its context. */
export interface ToolContext {
  sessionID?: string;
  messageID?: string;
  agent?: string;
  directory?: string;
  worktree?: string;
  [field: string]: unknown;
}

/** What executeTool() returns; a tool that throws or gets bad arguments is ok: false. */
export interface ToolResult {
  ok: boolean;
  /** What execute() returned ("" when it failed). */
  output: string;
  /** Why it failed (it threw, or the arguments do not fit the schema); null when ok. */
  error: string | null;
  title: string;
  metadata: Record<string, unknown> | null;
  /** The plugin that has the tool. */
  plugin: string;
}

export class Host {
  constructor(options?: HostOptions);
  shape(command: string, output: string | ArrayBufferView | ArrayBuffer,
        exitCode?: number | null, options?: ShapeOptions): ShapeResult;
  diagnostics(): string[];
  stats(): {
    version: number;
    shapers?: Record<string, {
      match_count?: number; shape_count?: number; fail_count?: number; tokens_saved?: number;
      shape_ms_total?: number; average_shape_ms: number;
    }>;
    daily?: Record<string, Record<string, { shapes: number; tokens_raw: number; tokens_saved?: number }>>;
  };
  plugins(): PluginInfo[];
  pluginInfo(id: string): PluginInfo[];
  setPluginEnabled(id: string, enabled: boolean): void;
  syncCatalogs(progress?: ProgressCallback): CatalogSyncReport[];
  availablePlugins(): { catalogs: CatalogCopyInfo[]; plugins: AvailablePlugin[] };
  installPlugin(id: string, version?: string | null, progress?: ProgressCallback): InstallRecord;
  removePlugin(id: string): InstallRecord;
  reload(): void;
  dispatch(event: HookEvent | (string & {}),
           payload: HookPayload | string | ArrayBufferView | ArrayBuffer): DispatchResult;
  addHook(id: string, events: readonly (HookEvent | (string & {}))[] | "*" | string,
          fn: HookFunction, options?: AddHookOptions): void;
  removeHook(id: string): void;
  /**
   * An OpenCode plugin from the host's own code: a plugin function, a V1 module object
   * `{ id, server }`, or a module's exports (`await import("some-plugin")`).
   */
  addPlugin(plugin: OpenCodePlugin | { id?: string; server: OpenCodePlugin } |
            Record<string, unknown>, options?: AddPluginOptions): Promise<AddedPlugin>;
  /** Removes a plugin addPlugin() added, then runs its dispose hooks. */
  removeAddedPlugin(id: string): Promise<void>;
  trigger<Output = Record<string, unknown>>(
    name: string, input: Record<string, unknown> | string | ArrayBufferView | ArrayBuffer,
    output: Output | string | ArrayBufferView | ArrayBuffer): TriggerResult<Output>;
  tools(builtinTools?: readonly string[] | null): { tools: ToolInfo[] };
  executeTool(name: string, args: Record<string, unknown> | string,
              context?: ToolContext | string | null): ToolResult;

  // The same calls on libuv's thread pool: the event loop keeps running while plugins do.
  // Bad arguments and plugline's errors reject (TypeError, PluglineError).
  shapeAsync(command: string, output: string | ArrayBufferView | ArrayBuffer,
             exitCode?: number | null, options?: ShapeOptions): Promise<ShapeResult>;
  pluginsAsync(): Promise<PluginInfo[]>;
  reloadAsync(): Promise<void>;
  dispatchAsync(event: HookEvent | (string & {}),
                payload: HookPayload | string | ArrayBufferView | ArrayBuffer):
    Promise<DispatchResult>;
  triggerAsync<Output = Record<string, unknown>>(
    name: string, input: Record<string, unknown> | string | ArrayBufferView | ArrayBuffer,
    output: Output | string | ArrayBufferView | ArrayBuffer): Promise<TriggerResult<Output>>;
  toolsAsync(builtinTools?: readonly string[] | null): Promise<{ tools: ToolInfo[] }>;
  executeToolAsync(name: string, args: Record<string, unknown> | string,
                   context?: ToolContext | string | null): Promise<ToolResult>;
  syncCatalogsAsync(progress?: ProgressCallback): Promise<CatalogSyncReport[]>;
  installPluginAsync(id: string, version?: string | null,
                     progress?: ProgressCallback): Promise<InstallRecord>;

  /**
   * Releases the host: now, or when the last *Async call still running ends. Any later call
   * throws (or rejects with) PluglineError PLUGLINE_ESTATE.
   */
  close(): void;
  /** Waits for the *Async calls still running, then close(). */
  closeAsync(): Promise<void>;
  /** close() (once), for `using host = new Host(...)`. */
  [Symbol.dispose](): void;
  /** closeAsync(), for `await using host = new Host(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
  readonly closed: boolean;
}

/** EXPERIMENTAL: runs `fn` of an ES module's default export in plugline's own V8. */
export function jsCall(modulePath: string, fn?: string | null, args?: unknown[],
                       timeoutMs?: number | null): unknown;

/** Told how a download is going (total 0: unknown). */
export type ProgressCallback = (url: string, received: number, total: number) => void;

export interface CatalogSyncReport {
  url: string;
  ok: boolean;
  error: string | null;
  not_modified: boolean;
  plugins: number;
  signature_verified: boolean;
  skipped: string[];
}

export interface CatalogCopyInfo {
  url?: string;
  fetched_at?: string;
  age_seconds?: number;
  signature_verified?: boolean;
  error: string | null;
}

export interface AvailablePlugin {
  id: string;
  name: string;
  version: string;
  tier: string;
  kind: string;
  description: string;
  author: string;
  homepage: string;
  catalog: string;
  installed_version: string | null;
  update_available: boolean;
}

export interface InstallRecord {
  id: string;
  version: string;
  previous_version: string | null;
  path: string;
  installed_at: string;
  author: string;
  homepage: string;
  catalog: string;
  url: string;
  sha256: string;
  size: number;
  verified: boolean;
  signed: boolean;
  isolation: string;
}
