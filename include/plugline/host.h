// plugline's C++ API: a Host that shapes command output and dispatches hook events to plugins.
//
// This header is the C++ face of the same engine that libplugline.so exposes through the
// stable C ABI in <plugline/plugline.h>. It is for C++ programs that build plugline as part of
// their own CMake project (add_subdirectory, target plugline::core). Programs that link the
// installed shared library use the C ABI, which is the only interface with a stability promise.
//
// Thread safety: a Host may be used from several threads at once; calls are serialized
// internally where they touch shared state.
#ifndef PLUGLINE_HOST_H_
#define PLUGLINE_HOST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugline/hooks.h"
#include "plugline/plugins.h"
#include "plugline/stats.h"

namespace plugline {

namespace internal {
struct HostAccess;  // plugline's own programs (src/core/host_internal.h)
}  // namespace internal

// "0.1.0": the library's version.
std::string_view VersionString();

// Counts the tokens of a text the way the host's model would. Must be thread-safe.
using TokenCountFunction = std::function<uint64_t(std::string_view text)>;

// Who decides whether a project's .plugline/ may load (docs/security.md).
enum class ProjectTrust {
  // The user's trust store ($PLUGLINE_HOME/trust.json, written by `plugline trust`): the
  // project's config and plugins load only when its content is what the user trusted.
  kStore,
  // The host vouches for the project, having asked the user itself (an editor's workspace
  // trust): its config and plugins load without consulting the store.
  kTrusted,
  // The host says the project is not trusted: nothing of it loads, whatever the store says.
  kUntrusted,
};

struct HostOptions {
  // The state directory. Empty: $PLUGLINE_HOME, or ~/.plugline when that is unset.
  std::string home;
  // The project directory whose .plugline/ adds configuration and plugins. Empty: none.
  std::string project_dir;

  // Store raw outputs under <home>/outputs so that summaries can point at them. Set it to false
  // only when the host keeps raw outputs itself: summaries then name no path. When storing is
  // on but fails (disk full, unwritable home), nothing is elided: the full output is returned
  // and ShapeResult::fallback says why.
  bool store_outputs = true;
  // The host's own token counter. Empty: plugline's documented estimate (docs/tokens.md).
  TokenCountFunction token_counter;
  // Keep per-shaper statistics in <home>/stats.json (also switchable in config.yaml).
  bool record_stats = true;

  // OpenCode plugins (docs/plugins-opencode.md): `client.<path>(...args)` in a plugin calls
  // this with the path ("app.log") and the arguments as a JSON array; its JSON answer resolves
  // the plugin's promise, an error rejects it. Called on the thread that called the host method
  // running the plugin (its hook, or its loading: with a client, plugins load on that thread).
  // Empty: client calls reject with "the host gave plugline no client callback".
  std::function<absl::StatusOr<std::string>(std::string_view path, std::string_view args_json)>
      client = nullptr;
  // Whether `client` may be called from any thread (it locks what it shares, or shares
  // nothing): plugins then go on loading on up to two threads.
  bool client_thread_safe = false;
  // ctx.serverUrl of OpenCode plugins; empty: none.
  std::string server_url = "";
  // What OpenCode plugins' `config` hooks receive, once after loading (a JSON object).
  std::string plugin_config_json = "{}";

  // Whether the project's .plugline/ loads (project_dir). Until it does, its plugins are
  // listed as "untrusted" and nothing of it runs; diagnostics() says what to run. Even a
  // trusted project cannot disable, reconfigure or replace a protected global plugin.
  ProjectTrust project_trust = ProjectTrust::kStore;
};

// What Host::Trigger returns: the output after every plugin's hook ran, in order.
struct TriggerResult {
  std::string name;
  std::string output_json;
  struct Error {
    std::string plugin;
    std::string message;
  };
  std::vector<Error> errors;  // hooks that threw (their plugin's later hooks did not run)
  struct PluginRecord {
    std::string plugin;
    double ms = 0;
  };
  std::vector<PluginRecord> plugins;  // every plugin that has the hook, in order
  // {"name", "output", "errors": [{"plugin","message"}], "plugins": [{"plugin","ms"}]}
  std::string ToJson() const;
};

enum class RenderMode { kSummary, kRaw };

struct ShapeRequest {
  std::string_view command;        // the command line as the agent ran it
  std::string_view output;         // its output, stdout and stderr interleaved; any bytes
  std::optional<int> exit_code;    // nullopt when unknown (e.g. still running, or killed)
  std::string_view shaper;         // non-empty: use this shaper id, skipping match()
  // The summary's token budget (docs/shaping.md "The budget"): nullopt for config's
  // shaping.max_summary_tokens (default 8,000), 0 for none; else at least 200, as config.yaml
  // and `plugline run --max-tokens` take it (InvalidArgument otherwise).
  std::optional<uint64_t> max_tokens = std::nullopt;
};

// The shaping result; ToJson() gives the JSON of docs/hooks.md "What the host gets back".
struct ShapeResult {
  std::string summary;             // what the model should read
  // kRaw: nothing was left out — the output as it is, after one line that states the outcome
  // ("pytest: FAILED (exit 1)") when the command failed.
  RenderMode render_mode = RenderMode::kSummary;
  std::string shaper;              // id of the shaper that produced the summary
  double confidence = 0;           // its match() confidence
  std::string raw_path;            // where the raw output is stored; empty if not stored
  uint64_t raw_bytes = 0;          // the whole output's size, lines and tokens
  uint64_t raw_lines = 0;
  // Bytes in the raw file: raw_bytes, unless the per-output cap (outputs.max_file_mb) kept
  // the rest out; 0 when nothing was stored.
  uint64_t raw_stored_bytes = 0;
  // Bytes of the output the shapers saw: raw_bytes, unless the output was larger than the
  // shaping window (outputs.window_mb; docs/shaping.md), which they then saw instead.
  uint64_t shaped_bytes = 0;
  uint64_t tokens_raw = 0;
  uint64_t tokens_summary = 0;
  // What counted them: "o200k_base" or "cl100k_base" (the real BPE vocabularies; config's
  // shaping.tokenizer), "estimate" (chosen, or the ranks were missing), or "host".
  std::string token_counter;
  uint64_t max_tokens = 0;             // the budget that applied; 0: none
  uint64_t budget_lines_left_out = 0;  // summary lines the budget left out (stated in it)
  // The output held secrets, masked in the summary and the raw file (docs/shaping.md
  // "Secrets"): a raw rendering then differs from the output too, and should replace it.
  bool secrets_masked = false;
  std::optional<std::string> fallback;  // why the summary is not the shaper's, if it is not
  // Shapers left out because their match() failed (threw, timed out, wrong result type).
  struct Skipped {
    std::string shaper;
    std::string why;     // "match() failed" | "match() timed out"
    std::string detail;  // the error
  };
  std::vector<Skipped> skipped;

  std::string ToJson() const;
};

// A hook implemented by the host itself (docs/hooks.md). It joins the same chain as plugins,
// after every plugin found in plugin directories, in the order hooks were added.
struct NativeHookOptions {
  // Unique among the host's native hooks; shown in results and listings.
  std::string id;
  // The events it runs on; "*" = every event; empty = none.
  std::vector<std::string> events;
  // Gets the event and the payload JSON (with "event" set); returns its answer, or an error,
  // which skips it (or denies, when fail_closed) like any plugin's failure. Called on the
  // thread that dispatches. An exception it throws counts as an error.
  std::function<absl::StatusOr<HookAnswer>(std::string_view event, std::string_view payload_json)>
      function;
  // A failure counts as a deny on pre_tool_call (a plugin's `on_error: closed`).
  bool fail_closed = false;
};

// An OpenCode plugin the host runs itself: in its own JavaScript engine (the Node binding's
// addPlugin) or written in C or C++ (docs/plugins-opencode.md "Plugins the host runs"). It
// joins the chain as a plugin — after every plugin found in plugin directories, before the
// native hooks — and plugline calls its hooks by name, with the (input, output) pair OpenCode
// passes: pre_tool_call runs "tool.execute.before" (a throw denies, new `args` rewrite the
// call), post_tool_call "tool.execute.after" (a new `output` replaces the result), session
// and turn events "event", and Host::Trigger any hook it names. Its tools are listed with
// the plugins' tools (a later plugin wins a name) and run through execute_tool.
struct OpenCodePluginOptions {
  // Unique among the host's native hooks and OpenCode plugins; shown in results and listings.
  std::string id;
  // The OpenCode hooks it has: "event", "tool.execute.before", "shell.env", "chat.params", ...
  std::vector<std::string> hooks;
  // The tools it adds: name, description, parameters_json (a JSON Schema object). `plugin`
  // and `overrides_builtin` are filled in.
  std::vector<ToolInfo> tools;
  // Runs the hook `name` with `input_json` and `output_json` (JSON objects) and returns the
  // output it left, with `error` set when the hook threw. An error status is the plugin's
  // failure (it crashed, timed out): skipped, or a deny on pre_tool_call when fail_closed.
  // Called on the thread that dispatches or triggers. An exception it throws counts as an
  // error.
  std::function<absl::StatusOr<NamedHookRun>(std::string_view name, std::string_view input_json,
                                             std::string_view output_json)>
      trigger;
  // Runs one of `tools` with `args_json` and the call's `context_json`; a tool that throws is
  // a ToolResult with ok = false. Required when `tools` is not empty.
  std::function<absl::StatusOr<ToolResult>(std::string_view name, std::string_view args_json,
                                           std::string_view context_json)>
      execute_tool;
  bool fail_closed = false;
};

class Host;

// A command's output given to plugline as it arrives, for hosts that run commands themselves
// (`plugline run` does): memory stays bounded whatever the command prints. Each chunk goes
// straight to the raw file (a line once it is complete, secrets masked; up to the per-output
// cap, outputs.max_file_mb), and only the shaping window is kept in memory: all of an output
// up to outputs.window_mb (8 MiB), and of a larger one its head, its tail and its notable
// lines (docs/shaping.md, "Large outputs").
// Made by Host::StartCapture(); the Host must outlive it. One thread at a time.
class OutputCapture {
 public:
  // Without a successful Finish(), the partial raw file is removed.
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  // Adds the next bytes of the output (any bytes; chunks of any size). Never fails: a raw
  // file that cannot be written is reported by Finish(), as Host::Shape reports it.
  void Append(std::string_view chunk);

  // What was appended so far: bytes, and lines as ShapeResult::raw_lines counts them.
  uint64_t bytes() const;
  uint64_t lines() const;

  // Ends the output and shapes it, as Host::Shape does with a whole output: the same result,
  // whose raw_bytes/raw_lines/tokens_raw describe everything appended. `command` is the
  // command line as the agent ran it, `exit_code` its exit code (nullopt when unknown),
  // `shaper` non-empty to skip match() and use that shaper. InvalidArgument for a command
  // that is not valid UTF-8, an unknown shaper or a budget of 1 to 199 tokens: the capture is
  // then unchanged and Finish
  // may be called again. FailedPrecondition once a Finish() succeeded. `max_tokens` as in
  // ShapeRequest.
  absl::StatusOr<ShapeResult> Finish(std::string_view command, std::optional<int> exit_code,
                                     std::string_view shaper = {},
                                     std::optional<uint64_t> max_tokens = std::nullopt);

 private:
  friend class Host;
  struct Impl;
  explicit OutputCapture(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Host {
 public:
  // Opens the state directory and loads configuration. Configuration problems do not fail
  // creation: they are reported in diagnostics() and defaults are used.
  static absl::StatusOr<std::unique_ptr<Host>> Create(HostOptions options);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Shapes one command's output. Fails only on invalid arguments (a command that is not valid
  // UTF-8, an unknown forced shaper); shaper failures fall back and are reported in the result.
  // An output larger than the shaping window is shaped from its window, as a capture would
  // (docs/shaping.md); the raw file gets all of it up to the per-output cap.
  absl::StatusOr<ShapeResult> Shape(const ShapeRequest& request);

  // Starts shaping an output that arrives in pieces (OutputCapture). Storage settings and the
  // window size are those of the configuration at this call.
  std::unique_ptr<OutputCapture> StartCapture();

  // The shaping statistics of this home, from every process that used it (docs/stats.md,
  // include/plugline/stats.h); empty stats when none yet, or when the file was malformed (it
  // is moved aside, with a warning in diagnostics()). FailedPrecondition when it was written
  // by a newer plugline. StatsJson() is Stats()->ToJson().
  absl::StatusOr<plugline::Stats> Stats() const;
  absl::StatusOr<std::string> StatsJson() const;

  // Runs the hook plugins subscribed to `event` on `payload_json` (a JSON object, docs/hooks.md
  // "Events and payloads"; "arguments" and "result", when present, are strings), one after another in
  // dispatch order (docs/hooks.md), and returns what they decided. A plugin's failure is never
  // an error here: it is in the result (skipped, or a deny for a fail-closed plugin). A broken
  // plugin that fails closed denies the deny-capable events it subscribed to; every broken
  // plugin is in the result's `broken`.
  // Errors: InvalidArgument for an empty event or a payload that is not a JSON object.
  absl::StatusOr<DispatchResult> Dispatch(std::string_view event, std::string_view payload_json);

  // Adds a native hook. AlreadyExists when a native hook has that id; InvalidArgument when the
  // id is empty or the function is missing.
  absl::Status AddHook(NativeHookOptions hook);
  // Removes a native hook. NotFound when there is none with that id. A dispatch already
  // running keeps the hook until it ends.
  absl::Status RemoveHook(std::string_view id);

  // Adds an OpenCode plugin the host runs itself (OpenCodePluginOptions). AlreadyExists when
  // a native hook or such a plugin has that id; InvalidArgument when the id is empty, the
  // trigger is missing, or tools are given without execute_tool. Its `dispose` hook is the
  // host's to run: plugline never calls it.
  absl::Status AddOpenCodePlugin(OpenCodePluginOptions plugin);
  // Removes one. NotFound when there is none with that id. A call already running keeps it
  // until it ends.
  absl::Status RemoveOpenCodePlugin(std::string_view id);

  // Runs the OpenCode hook `name` ("shell.env", "chat.params", "tool.execute.before", ...) of
  // every plugin that has it, in dispatch order, with `input_json` and `output_json` (JSON
  // objects); each plugin mutates the output the previous one left. A hook that throws is
  // recorded in `errors` and the next plugin still runs. InvalidArgument when the name is empty
  // or input/output are not JSON objects.
  absl::StatusOr<TriggerResult> Trigger(std::string_view name, std::string_view input_json,
                                        std::string_view output_json);

  // The tools plugins add (include/plugline/plugins.h); `builtin_tools` are the host's own
  // tool names, so that a plugin tool replacing one says so (overrides_builtin). With two
  // plugins defining one name, the later (in dispatch order) wins. ToolsJson() is
  // Tools().ToJson().
  ToolList Tools(const std::vector<std::string>& builtin_tools = {});
  std::string ToolsJson(const std::vector<std::string>& builtin_tools = {});

  // Runs a plugin tool: `args_json` (a JSON object) is validated against its schema, defaults
  // applied; `context_json` is {sessionID, messageID, agent, directory, worktree}. A tool that
  // throws or gets bad arguments is a result with ok = false and the error. NotFound when no
  // plugin has the tool.
  absl::StatusOr<ToolResult> ExecuteTool(std::string_view name, std::string_view args_json,
                                         std::string_view context_json);

  // Every plugin, built-in shaper and native hook with its state (include/plugline/plugins.h;
  // docs/plugins-shapers.md, docs/plugins-exec.md). Loads plugins not loaded yet, so broken
  // ones show their reason. PluginsJson() is Plugins().ToJson().
  PluginList Plugins();
  std::string PluginsJson();

  // Enables or disables the plugin or built-in shaper `id` for every host of this home, from
  // now on: recorded in <home>/plugins.json (docs/managing-plugins.md), where it wins over
  // config.yaml's plugins.overrides.<id>.enabled; this host reloads, others see the file
  // change. NotFound (with a near id when there is one) when nothing listed has the id;
  // InvalidArgument for a native hook (the host's own); FailedPrecondition when plugins.json
  // was written by a newer plugline.
  absl::Status SetPluginEnabled(std::string_view id, bool enabled);

  // Loads every plugin not loaded yet (they load on first use otherwise). A host that knows
  // a shaping is coming — `plugline run` while the command runs — can call this on another
  // thread so the first Shape() does not wait for plugins to load.
  void Preload();

  // Re-reads configuration and rescans plugin directories. Unchanged plugins stay loaded;
  // new, changed and previously broken ones load on next use. Diagnostics are replaced.
  void Reload();

  // Runs the `dispose` hooks of the loaded OpenCode plugins, in order, once: the destructor
  // does too, unless this ran. For a host about to end without destroying itself (the
  // `plugline` command line ends its process right away).
  void DisposePlugins();

  // The resolved state directory.
  const std::string& home() const;
  // Problems found while opening or reloading (unreadable config, bad keys, unreadable
  // plugin directories, a project that is not trusted, a project's attempt to change a
  // protected plugin, a malformed guards.json or trust.json set aside), one message each; then
  // problems with state files met since (a malformed stats.json moved aside, a newer one left
  // alone so statistics are not recorded), each once, at most 256 in all. Reload() starts the
  // list again.
  std::vector<std::string> diagnostics() const;

 private:
  friend class OutputCapture;
  friend struct internal::HostAccess;
  struct Impl;
  explicit Host(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace plugline

#endif  // PLUGLINE_HOST_H_
