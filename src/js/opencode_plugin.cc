#include "js/opencode_plugin.h"

#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "core/json.h"
#include "core/opencode_events.h"
#include "core/strings.h"
#include "core/text.h"
#include "exec/process.h"
#include "js/embedded.h"

namespace plugline::js {
namespace {

using core::Value;
using core::ValueArray;
using core::ValueObject;

// Output of a `$` command kept for the plugin; past it the command is killed.
constexpr size_t kShellMaxOutputBytes = size_t{16} << 20;

std::string StringOr(const Value& object, std::string_view key, std::string_view fallback = "") {
  const Value* v = object.Find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string(fallback);
}

absl::StatusOr<std::string> RunShell(const Value& request, const JsHostContext& context,
                                     absl::Duration timeout) {
  exec::ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", StringOr(request, "script"), "sh"};
  if (const Value* args = request.Find("args"); args != nullptr && args->is_array()) {
    for (const Value& arg : args->as_array()) {
      spec.argv.push_back(arg.is_string() ? arg.as_string() : core::ToJson(arg));
    }
  }
  spec.cwd = StringOr(request, "cwd", context.directory);
  if (const Value* env = request.Find("env"); env != nullptr && env->is_object()) {
    for (const auto& [name, value] : env->as_object()) {
      if (value.is_null()) continue;
      spec.extra_env.emplace_back(name, value.is_string() ? value.as_string() : core::ToJson(value));
    }
  }
  if (const Value* input = request.Find("stdin"); input != nullptr && input->is_string()) {
    spec.stdin_data = input->as_string();
  }
  spec.merge_output = false;
  spec.own_process_group = true;
  spec.max_output_bytes = kShellMaxOutputBytes;
  spec.timeout = timeout;
  spec.kill_grace = absl::Seconds(1);
  absl::StatusOr<exec::ProcessResult> run = exec::RunProcess(spec);
  if (!run.ok()) return run.status();
  if (run->timed_out) {
    return absl::DeadlineExceededError(
        StrCat("$`", StringOr(request, "script"), "` timed out after ",
               absl::FormatDuration(timeout)));
  }
  if (run->output_limit_hit) {
    return absl::ResourceExhaustedError(
        StrCat("$`", StringOr(request, "script"), "` printed more than 16 MiB"));
  }
  core::JsonWriter w;
  w.BeginObject();
  w.Key("exitCode").Int(run->ShellExitCode());
  w.Key("stdout").String(core::SanitizeUtf8(run->output));
  w.Key("stderr").String(core::SanitizeUtf8(run->error_output));
  w.EndObject();
  return w.Take();
}

// The wrapper's {output, error?} answer to a trigger.
absl::StatusOr<core::NamedHookResult> ParseTriggerResult(std::string_view json) {
  absl::StatusOr<Value> value = core::ParseJson(json, "trigger result");
  if (!value.ok()) return value.status();
  core::NamedHookResult result;
  const Value* output = value->Find("output");
  result.output_json = output != nullptr ? core::ToJson(*output) : "{}";
  if (const Value* error = value->Find("error"); error != nullptr && error->is_object()) {
    result.error = StringOr(*error, "message", "the hook threw");
  }
  return result;
}

// Lifecycle hooks answer {errors:[{plugin, message}]}: logged, never fatal.
void LogErrors(const core::Log* log, const std::string& id, std::string_view hook,
               const absl::StatusOr<std::string>& answer) {
  if (log == nullptr) return;
  if (!answer.ok()) {
    log->Write("warn", StrCat("plugin ", id), StrCat(hook, " failed: ", answer.status().message()));
    return;
  }
  absl::StatusOr<Value> value = core::ParseJson(*answer, hook);
  const Value* errors = value.ok() ? value->Find("errors") : nullptr;
  if (errors == nullptr || !errors->is_array()) return;
  for (const Value& error : errors->as_array()) {
    log->Write("warn", StrCat("plugin ", id, "/", StringOr(error, "plugin")),
               StrCat(hook, " hook threw: ", StringOr(error, "message")));
  }
}

class OpenCodePlugin final : public core::HookPlugin,
                             public core::NamedHookPlugin,
                             public core::ToolProvider {
 public:
  OpenCodePlugin(std::string id, std::unique_ptr<Module> module,
                 const core::JsPluginSettings& settings, const core::Log* log,
                 std::vector<std::string> hooks, std::vector<core::ToolInfo> tools,
                 std::string init_args, absl::Duration init_timeout)
      : id_(std::move(id)),
        module_(std::move(module)),
        init_args_(std::move(init_args)),
        init_timeout_(init_timeout),
        log_(log),
        hooks_(std::move(hooks)),
        tools_(std::move(tools)) {
    limits_.timeout = absl::Milliseconds(settings.hook_timeout_ms);
  }

  const std::string& id() const override { return id_; }
  const std::string& named_hooks_id() const override { return id_; }

  bool Handles(std::string_view event) const override {
    return HasNamedHook(core::OpenCodeHookFor(event));
  }
  bool HasNamedHook(std::string_view name) const override {
    // auth.loader, auth.authorize, ...: operations on the `auth` object (opencode_host.mjs).
    if (name.starts_with("auth.")) name = "auth";
    return std::find(hooks_.begin(), hooks_.end(), name) != hooks_.end();
  }

  absl::StatusOr<core::HookAnswer> Call(std::string_view event,
                                        std::string_view payload_json) override;

  absl::StatusOr<core::NamedHookResult> TriggerNamed(std::string_view name,
                                                     std::string_view input_json,
                                                     std::string_view output_json) override {
    std::string args = StrCat("[", core::ToJson(Value(name)), ",", input_json, ",", output_json, "]");
    absl::StatusOr<std::string> answer =
        Invoke([&] { return module_->Call("trigger", args, limits_); });
    if (!answer.ok()) return answer.status();
    return ParseTriggerResult(*answer);
  }

  std::vector<core::ToolInfo> Tools() override { return tools_; }

  absl::StatusOr<core::ToolResult> ExecuteTool(std::string_view name, std::string_view args_json,
                                               std::string_view context_json) override {
    std::string args = StrCat("[", core::ToJson(Value(name)), ",",
                              args_json.empty() ? "{}" : args_json, ",",
                              context_json.empty() ? "{}" : context_json, "]");
    absl::StatusOr<std::string> answer =
        Invoke([&] { return module_->Call("executeTool", args, limits_); });
    if (!answer.ok()) return answer.status();
    absl::StatusOr<Value> value = core::ParseJson(*answer, "tool result");
    if (!value.ok()) return value.status();
    core::ToolResult result;
    const Value* ok = value->Find("ok");
    result.ok = ok != nullptr && ok->is_bool() && ok->as_bool();
    result.output = StringOr(*value, "output");
    result.error = StringOr(*value, "error");
    result.title = StringOr(*value, "title");
    if (const Value* metadata = value->Find("metadata"); metadata != nullptr && !metadata->is_null()) {
      result.metadata_json = core::ToJson(*metadata);
    }
    return result;
  }

  // OpenCode calls `config` once every plugin is registered: the registry calls this when the
  // whole loading pass is done, in order. Errors are logged, never fatal.
  void AfterLoad() override {
    if (config_json_.empty()) return;
    LogErrors(log_, id_, "config", Invoke([&] {
                return module_->Call("config", StrCat("[", config_json_, "]"), limits_);
              }));
  }
  void set_config_json(std::string json) { config_json_ = std::move(json); }

  void Dispose() override {
    if (!HasNamedHook("dispose")) return;
    LogErrors(log_, id_, "dispose", module_->Call("dispose", "[]", limits_));
  }

 private:
  // Runs `call` (a call of the wrapper's API). A module whose worker process was replaced (it
  // crashed, or was killed after a loop) comes back without the hooks its plugin functions
  // returned: the wrapper then refuses the call, the plugin functions and `config` run again,
  // and the call is made once more. Nothing is skipped silently: if that fails, the call fails.
  template <typename CallFn>
  absl::StatusOr<std::string> Invoke(const CallFn& call) {
    absl::StatusOr<std::string> answer = call();
    if (answer.ok() || !absl::StrContains(answer.status().message(), ToAbsl(kNotInitialised))) return answer;
    CallLimits init_limits;
    init_limits.timeout = init_timeout_;
    absl::StatusOr<std::string> report = module_->Call("init", init_args_, init_limits);
    if (!report.ok()) {
      return absl::Status(report.status().code(),
                          StrCat("the plugin's worker was restarted and its plugin function failed "
                                 "again: ", report.status().message()));
    }
    if (!config_json_.empty()) {
      LogErrors(log_, id_, "config", module_->Call("config", StrCat("[", config_json_, "]"), limits_));
    }
    return call();
  }

  // What opencode_host.mjs throws when it is called before init.
  static constexpr std::string_view kNotInitialised = "plugline: the plugin is not initialised";

  // Runs a canonical event through the `event` hook of every plugin of the module.
  absl::StatusOr<core::HookAnswer> CallEvent(const core::OpenCodeHookCall& call);

  const std::string id_;
  const std::unique_ptr<Module> module_;  // serializes calls itself
  const std::string init_args_;            // what init() was called with
  const absl::Duration init_timeout_;
  const core::Log* const log_;
  const std::vector<std::string> hooks_;
  const std::vector<core::ToolInfo> tools_;
  CallLimits limits_;
  std::string config_json_;  // what `config` hooks get; empty: the plugin has none
};

absl::StatusOr<core::HookAnswer> OpenCodePlugin::CallEvent(const core::OpenCodeHookCall& call) {
  absl::StatusOr<std::string> answer =
      Invoke([&] { return module_->Call("event", StrCat("[", call.event_json, "]"), limits_); });
  if (!answer.ok()) return answer.status();
  absl::StatusOr<Value> value = core::ParseJson(*answer, "event result");
  if (!value.ok()) return value.status();
  if (const Value* errors = value->Find("errors");
      errors != nullptr && errors->is_array() && !errors->as_array().empty()) {
    const Value& first = errors->as_array().front();
    return absl::UnknownError(StrCat("the event hook of ", StringOr(first, "plugin"),
                                     " threw: ", StringOr(first, "message")));
  }
  return core::HookAnswer{};
}

absl::StatusOr<core::HookAnswer> OpenCodePlugin::Call(std::string_view event,
                                                      std::string_view payload_json) {
  absl::StatusOr<Value> parsed = core::ParseJson(payload_json, "payload");
  if (!parsed.ok()) return parsed.status();
  const core::OpenCodeHookCall call = core::ToOpenCodeHook(event, *parsed);
  if (call.hook == "event") return CallEvent(call);
  const Arg call_args[] = {Arg::String(call.hook), Arg::Json(call.input_json),
                           Arg::Json(call.output_json)};
  absl::StatusOr<std::string> answer =
      Invoke([&] { return module_->CallArgs("triggerChanged", call_args, limits_); });
  if (!answer.ok()) return answer.status();
  if (*answer == "null") return core::HookAnswer{};  // no throw, nothing changed: no opinion
  absl::StatusOr<core::NamedHookResult> ran = ParseTriggerResult(*answer);
  if (!ran.ok()) return ran.status();
  return core::FromOpenCodeHook(call, *parsed, *ran);
}

// The git work tree holding `directory` (the nearest parent with .git), else `directory`.
std::string WorktreeOf(const std::string& directory) {
  std::string dir = directory;
  while (!dir.empty()) {
    if (::access(StrCat(dir, "/.git").c_str(), F_OK) == 0) return dir;
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
  }
  return directory;
}

}  // namespace

void AddPluginModules(ModuleOptions* options, std::string_view directory) {
  options->wrapper_source = std::string(embedded::kOpenCodeHostModule);
  options->builtin_modules.push_back({"plugline:url", std::string(embedded::kUrlModule)});
  options->builtin_modules.push_back(
      {"plugline:client-tree", std::string(embedded::kOpenCodeClientTree)});
  options->builtin_modules.push_back(
      {"plugline:opencode-v2", std::string(embedded::kOpenCodeV2Module)});
  options->builtin_modules.push_back({"plugline:shell", std::string(embedded::kShellModule)});
  options->builtin_modules.push_back(
      {"plugline:opencode-common", std::string(embedded::kOpenCodeCommonModule)});
  options->builtin_modules.push_back({"plugline:bun", std::string(embedded::kBunModule)});
  // OpenCode's V2 Promise API: define() is the identity, as in the real package.
  options->builtin_modules.push_back(
      {"@opencode-ai/plugin/v2/promise", "export function define(plugin) { return plugin; }\n"});
  // Takes the host-call function off the global object, for plugline's modules alone.
  // hostCall(kind, body) answers the host's JSON parsed, at once (the sandboxed runtime) or as a
  // promise (a Node.js worker, where the answer comes back over the worker's pipe).
  options->builtin_modules.push_back(
      {"plugline:host",
       "const call = globalThis.__plugline_host_call;\n"
       "delete globalThis.__plugline_host_call;\n"
       "export default call;\n"
       "export function hostCall(kind, body) {\n"
       "  if (typeof call !== \"function\") throw new Error(\"this plugin has no host callback\");\n"
       "  const parse = (answer) => (answer === \"\" ? undefined : JSON.parse(answer));\n"
       "  const answer = call(JSON.stringify({ kind, ...body }));\n"
       "  return typeof answer?.then === \"function\" ? answer.then(parse) : parse(answer);\n"
       "}\n"});
  for (const char* specifier :
       {"@opencode-ai/plugin", "@opencode-ai/plugin/tool", "plugline:tool-support"}) {
    options->builtin_modules.push_back(
        {specifier, std::string(embedded::kOpenCodePluginModule)});
  }
  // Node's path and url helpers: pure functions (src/js/modules/node_path.mjs).
  options->builtin_modules.push_back(
      {"plugline:node-path", std::string(embedded::kNodePathModule)});
  options->builtin_modules.push_back(
      {"plugline:cwd",
       StrCat("export default ", core::ToJson(Value(std::string(directory))), ";\n")});
  // Built once: every plugin load copies them (ModuleOptions owns its strings).
  static const std::string path_source =
      "import { createPath } from \"plugline:node-path\";\n"
      "import cwd from \"plugline:cwd\";\n"
      "const path = createPath(cwd);\n"
      "export default path;\n"
      "export const { sep, delimiter, normalize, isAbsolute, join, dirname, basename, extname,\n"
      "  parse, format, resolve, relative, toNamespacedPath, posix } = path;\n";
  for (const char* specifier : {"path", "node:path", "path/posix", "node:path/posix"}) {
    options->builtin_modules.push_back({specifier, path_source});
  }
  static const std::string url_source =
      "import { createPath, createUrlHelpers } from \"plugline:node-path\";\n"
      "import cwd from \"plugline:cwd\";\n"
      "export const { fileURLToPath, pathToFileURL } = createUrlHelpers(createPath(cwd));\n"
      "export const URL = globalThis.URL;\n"
      "export const URLSearchParams = globalThis.URLSearchParams;\n"
      "export default { fileURLToPath, pathToFileURL, URL, URLSearchParams };\n";
  for (const char* specifier : {"url", "node:url"}) {
    options->builtin_modules.push_back({specifier, url_source});
  }
}

HostCallFunction MakeHostCall(const JsHostContext& context, std::string plugin_id,
                              absl::Duration timeout) {
  return [context, plugin_id = std::move(plugin_id),
          timeout](std::string_view request_json) -> absl::StatusOr<std::string> {
    absl::StatusOr<Value> request = core::ParseJson(request_json, "host call");
    if (!request.ok()) return request.status();
    std::string kind = StringOr(*request, "kind");
    if (kind == "client") {
      std::string path = StringOr(*request, "path");
      if (!context.client) {
        return absl::FailedPreconditionError(
            StrCat("client.", path, "(): the host gave plugline no client callback"));
      }
      const Value* args = request->Find("args");
      absl::StatusOr<std::string> answer =
          context.client(path, args != nullptr ? core::ToJson(*args) : "[]");
      if (!answer.ok()) {
        return absl::Status(answer.status().code(),
                            StrCat("client.", path, "() failed: ", answer.status().message()));
      }
      if (answer->empty()) return std::string("null");
      absl::StatusOr<Value> valid = core::ParseJson(*answer, StrCat("client.", path, " answer"));
      if (!valid.ok()) return valid.status();
      return answer;
    }
    if (kind == "shell") return RunShell(*request, context, timeout);
    return absl::InvalidArgumentError(StrCat("unknown host call '", kind, "'"));
  };
}

absl::StatusOr<core::LoadedPlugin> MakeOpenCodePlugin(const core::PluginFile& file,
                                                      const core::JsPluginSettings& settings,
                                                      const JsHostContext& context,
                                                      const core::Log* log,
                                                      std::unique_ptr<Module> module) {
  Value ctx;
  std::string worktree = context.worktree.empty() ? WorktreeOf(context.directory) : context.worktree;
  Value project;
  project.Set("id", Value(worktree));
  project.Set("worktree", Value(worktree));
  if (::access(StrCat(worktree, "/.git").c_str(), F_OK) == 0) project.Set("vcs", Value("git"));
  ctx.Set("project", std::move(project));
  ctx.Set("directory", Value(context.directory));
  ctx.Set("plugin", Value(file.name));  // for the wrapper (auth listings), not the plugin
  if (core::IsOpenCodeToolsSource(file.source)) {
    // A tool file: its tools are named after the file (opencode_host.mjs).
    std::string_view stem = file.entry;
    stem = stem.substr(stem.rfind('/') + 1);
    stem = stem.substr(0, stem.rfind('.'));
    ctx.Set("toolFile", Value(stem));
  }
  ctx.Set("worktree", Value(worktree));
  if (!context.server_url.empty()) ctx.Set("serverUrl", Value(context.server_url));
  CallLimits init_limits;
  init_limits.timeout = absl::Milliseconds(settings.load_timeout_ms);
  std::string init_args = StrCat("[", core::ToJson(ctx), ",",
                                 settings.options_json.empty() ? "null" : settings.options_json, "]");
  absl::StatusOr<std::string> report_json = module->Call("init", init_args, init_limits);
  if (!report_json.ok()) return report_json.status();
  absl::StatusOr<Value> report = core::ParseJson(*report_json, "init report");
  if (!report.ok()) return report.status();

  core::LoadedPlugin loaded;
  std::vector<std::string> hooks;
  if (const Value* list = report->Find("hooks"); list != nullptr && list->is_array()) {
    for (const Value& name : list->as_array()) {
      if (name.is_string()) hooks.push_back(name.as_string());
    }
  }
  if (const Value* unknown = report->Find("unknown"); unknown != nullptr && unknown->is_array()) {
    for (const Value& name : unknown->as_array()) {
      if (name.is_string()) loaded.warnings.push_back(StrCat("unknown hook '", name.as_string(), "'"));
    }
  }
  if (const Value* notes = report->Find("notes"); notes != nullptr && notes->is_array()) {
    for (const Value& note : notes->as_array()) {
      if (note.is_string()) loaded.warnings.push_back(note.as_string());
    }
  }
  std::vector<core::ToolInfo> tools;
  if (const Value* list = report->Find("tools"); list != nullptr && list->is_array()) {
    for (const Value& tool : list->as_array()) {
      const Value* parameters = tool.Find("parameters");
      // Named after the plugin as listed (the module), not the export that defines it.
      tools.push_back({StringOr(tool, "name"), StringOr(tool, "description"),
                       parameters != nullptr ? core::ToJson(*parameters) : "{}", file.name});
    }
  }
  loaded.files = module->files();
  loaded.id = file.name;
  loaded.kind = "opencode";
  for (const std::string& hook : hooks) {
    if (hook == "tool" || hook == "auth" || hook == "provider") continue;  // not events
    loaded.events.push_back(hook);
  }
  bool has_config = std::find(hooks.begin(), hooks.end(), "config") != hooks.end();
  auto plugin = std::make_shared<OpenCodePlugin>(file.name, std::move(module), settings, log,
                                                 std::move(hooks), std::move(tools),
                                                 std::move(init_args), init_limits.timeout);
  // The configuration, once the whole loading pass is done (AfterLoad), as OpenCode does.
  if (has_config) plugin->set_config_json(context.config_json.empty() ? "{}" : context.config_json);
  loaded.hook = plugin;
  loaded.named_hooks = plugin;
  if (!plugin->Tools().empty()) loaded.tools = plugin;
  return loaded;
}

}  // namespace plugline::js
