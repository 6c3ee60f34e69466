#include "js/js_shaper.h"

#include "js/node_imports.h"
#include "js/opencode_plugin.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"
#include "js/runtime.h"

namespace plugline::js {
namespace {

// The JSON type of a value, for messages: "a string", "an object", ...
std::string_view TypeName(const core::Value& value) {
  return core::Value::KindName(value.kind());
}

absl::Status MetaError(std::string_view what) {
  return absl::InvalidArgumentError(StrCat("invalid meta: ", what));
}

absl::StatusOr<core::ShaperMeta> ParseMeta(std::string_view json) {
  absl::StatusOr<core::Value> value = core::ParseJson(json, "meta");
  if (!value.ok()) return MetaError(ToStd(value.status().message()));
  if (value->is_null()) return MetaError("the default export has no meta object");
  if (!value->is_object()) {
    return MetaError(StrCat("meta must be an object, got ", TypeName(*value)));
  }
  core::ShaperMeta meta;
  auto required_string = [&](std::string_view key, std::string* out) -> absl::Status {
    const core::Value* v = value->Find(key);
    if (v == nullptr) return MetaError(StrCat("meta.", key, " is missing"));
    if (!v->is_string()) {
      return MetaError(StrCat("meta.", key, " must be a string, got ", TypeName(*v)));
    }
    *out = v->as_string();
    return absl::OkStatus();
  };
  auto optional_string = [&](std::string_view key, std::string* out) -> absl::Status {
    const core::Value* v = value->Find(key);
    if (v == nullptr || v->is_null()) return absl::OkStatus();
    if (!v->is_string()) {
      return MetaError(StrCat("meta.", key, " must be a string, got ", TypeName(*v)));
    }
    *out = v->as_string();
    return absl::OkStatus();
  };
  for (auto [key, out] : {std::pair<std::string_view, std::string*>{"name", &meta.name},
                          {"version", &meta.version},
                          {"description", &meta.description},
                          {"tier", &meta.tier}}) {
    absl::Status s = required_string(key, out);
    if (!s.ok()) return s;
  }
  if (!core::IsValidPluginId(meta.name)) {
    return MetaError(core::InvalidPluginIdMessage("meta.name", meta.name));
  }
  if (meta.tier != "built-in" && meta.tier != "community" && meta.tier != "premium") {
    return MetaError(StrCat("meta.tier must be \"built-in\", \"community\" or \"premium\", got \"",
                            meta.tier, "\""));
  }
  for (auto [key, out] : {std::pair<std::string_view, std::string*>{"author", &meta.author},
                          {"outputKind", &meta.output_kind}}) {
    absl::Status s = optional_string(key, out);
    if (!s.ok()) return s;
  }
  if (const core::Value* p = value->Find("priority"); p != nullptr && !p->is_null()) {
    if (!p->is_number() || !std::isfinite(p->as_number())) {
      return MetaError(StrCat("meta.priority must be a number, got ", TypeName(*p)));
    }
    double priority = std::round(p->as_number());
    if (priority < -1e6 || priority > 1e6) {
      return MetaError("meta.priority must be between -1000000 and 1000000");
    }
    meta.priority = static_cast<int>(priority);
  }
  if (const core::Value* t = value->Find("targetModels"); t != nullptr && !t->is_null()) {
    if (!t->is_array()) {
      return MetaError(StrCat("meta.targetModels must be an array of strings, got ",
                              TypeName(*t)));
    }
    for (const core::Value& model : t->as_array()) {
      if (!model.is_string()) {
        return MetaError("meta.targetModels must be an array of strings");
      }
    }
  }
  meta.id = meta.name;
  return meta;
}

class JsShaper final : public core::Shaper {
 public:
  JsShaper(core::ShaperMeta meta, std::unique_ptr<Module> module,
           const core::JsPluginSettings& settings)
      : meta_(std::move(meta)), module_(std::move(module)) {
    match_limits_.timeout = absl::Milliseconds(settings.match_timeout_ms);
    shape_limits_.timeout = absl::Milliseconds(settings.shape_timeout_ms);
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int> exit_code) override {
    const Arg args[] = {Arg::String(command), Arg::String(snippet),
                        exit_code ? Arg::Number(*exit_code) : Arg::Null()};
    absl::StatusOr<std::string> result = module_->CallArgs("match", args, match_limits_);
    if (!result.ok()) return result.status();
    return ParseMatchResult(*result);
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    core::JsonWriter w;
    w.BeginObject();
    w.Key("command").String(context.command);
    w.Key("exitCode");
    if (context.exit_code) {
      w.Int(*context.exit_code);
    } else {
      w.Null();
    }
    w.Key("outputBytes").Int(static_cast<int64_t>(context.output_bytes));
    w.Key("outputLines").Int(static_cast<int64_t>(context.output_lines));
    w.Key("maxTokens");
    if (context.max_tokens > 0) {
      w.Int(static_cast<int64_t>(std::min<uint64_t>(context.max_tokens, INT64_MAX)));
    } else {
      w.Null();
    }
    w.EndObject();
    std::string context_json = w.Take();
    const Arg args[] = {Arg::String(output), Arg::Json(context_json)};
    absl::StatusOr<std::string> result = module_->CallArgs("shape", args, shape_limits_);
    if (!result.ok()) return result.status();
    return ParseShapeResult(*result);
  }

 private:
  const core::ShaperMeta meta_;
  std::unique_ptr<Module> module_;
  CallLimits match_limits_;
  CallLimits shape_limits_;
};

}  // namespace

absl::StatusOr<core::MatchResult> ParseMatchResult(std::string_view json) {
  absl::StatusOr<core::Value> value = core::ParseJson(json, "match() result");
  if (!value.ok()) return value.status();
  auto bad = [](std::string_view what) {
    return absl::InvalidArgumentError(StrCat("match() returned ", what));
  };
  if (!value->is_object()) {
    return bad(StrCat(TypeName(*value), "; expected {matched, confidence, signals?}"));
  }
  core::MatchResult match;
  const core::Value* matched = value->Find("matched");
  if (matched == nullptr || !matched->is_bool()) {
    return bad(StrCat("matched as ", matched == nullptr ? "missing" : TypeName(*matched),
                      "; expected a boolean"));
  }
  match.matched = matched->as_bool();
  const core::Value* confidence = value->Find("confidence");
  if (confidence == nullptr || confidence->is_null()) {
    if (match.matched) return bad("matched: true without a confidence");
  } else if (!confidence->is_number()) {
    return bad(StrCat("confidence as ", TypeName(*confidence), "; expected a number"));
  } else {
    match.confidence = confidence->as_number();
  }
  if (const core::Value* signals = value->Find("signals");
      signals != nullptr && !signals->is_null()) {
    if (!signals->is_array()) {
      return bad(StrCat("signals as ", TypeName(*signals), "; expected an array of strings"));
    }
    for (const core::Value& s : signals->as_array()) {
      if (!s.is_string()) return bad("a signal that is not a string");
      match.signals.push_back(s.as_string());
    }
  }
  return match;
}

absl::StatusOr<core::ShapeOutput> ParseShapeResult(std::string_view json) {
  absl::StatusOr<core::Value> value = core::ParseJson(json, "shape() result");
  if (!value.ok()) return value.status();
  auto bad = [](std::string_view what) {
    return absl::InvalidArgumentError(StrCat("shape() returned ", what));
  };
  if (!value->is_object()) {
    return bad(StrCat(TypeName(*value), "; expected {summary, renderMode?, failed?}"));
  }
  core::ShapeOutput out;
  const core::Value* summary = value->Find("summary");
  if (summary == nullptr || !summary->is_string()) {
    return bad(StrCat("summary as ", summary == nullptr ? "missing" : TypeName(*summary),
                      "; expected a string"));
  }
  out.summary = summary->as_string();
  if (const core::Value* mode = value->Find("renderMode"); mode != nullptr && !mode->is_null()) {
    if (!mode->is_string() || (mode->as_string() != "summary" && mode->as_string() != "raw")) {
      return bad("a renderMode other than \"summary\" or \"raw\"");
    }
    if (mode->as_string() == "raw") out.render_mode = RenderMode::kRaw;
  }
  // The output shows a failed run, whatever its status (core::ShapeOutput::failed).
  if (const core::Value* failed = value->Find("failed"); failed != nullptr && !failed->is_null()) {
    if (!failed->is_bool())
      return bad(StrCat("failed as ", TypeName(*failed), "; expected a boolean"));
    out.failed = failed->as_bool();
  }
  return out;
}

namespace {

ModuleOptions MakeModuleOptions(const core::PluginFile& file,
                                const core::JsPluginSettings& settings,
                                const JsShaperOptions& options) {
  ModuleOptions module_options;
  module_options.root_dir = file.root;
  module_options.heap_limit_bytes = settings.heap_limit_bytes;
  module_options.array_buffer_limit_bytes = settings.heap_limit_bytes / 2;
  module_options.load_timeout = absl::Milliseconds(settings.load_timeout_ms);
  module_options.code_cache_dir = options.code_cache_dir;
  if (options.log != nullptr) {
    const core::Log* log = options.log;
    std::string source = StrCat("plugin ", file.name);
    module_options.log = [log, source](std::string_view level, std::string_view message) {
      log->Write(level, source, message);
    };
  }
  // Every JS plugin loads behind the wrapper entry, which tells shapers from OpenCode plugins.
  AddPluginModules(&module_options, options.host.directory);
  AddNodeImports(&module_options, file.node_modules);
  module_options.host_call =
      MakeHostCall(options.host, file.name, absl::Milliseconds(settings.hook_timeout_ms));
  module_options.working_directory = options.host.directory;
  return module_options;
}

// A loaded module and what its wrapper says it is.
struct Loaded {
  std::unique_ptr<Module> module;
  bool opencode = false;
};

absl::StatusOr<Loaded> LoadIn(absl::StatusOr<Runtime*> runtime, const core::PluginFile& file,
                              const ModuleOptions& module_options) {
  if (!runtime.ok()) return runtime.status();
  absl::StatusOr<std::unique_ptr<Module>> module = (*runtime)->Load(file.entry, module_options);
  if (!module.ok()) return module.status();
  absl::StatusOr<std::string> opencode = (*module)->Get("__plugline_opencode");
  if (!opencode.ok()) return opencode.status();
  return Loaded{*std::move(module), *opencode == "true"};
}

absl::StatusOr<core::LoadedPlugin> MakeShaper(const core::JsPluginSettings& settings,
                                              std::unique_ptr<Module> module) {
  absl::StatusOr<std::string> described = module->DescribeDefault(R"(["match","shape"])");
  if (!described.ok()) return described.status();
  absl::StatusOr<core::Value> shape = core::ParseJson(*described, "the default export");
  if (!shape.ok()) return shape.status();
  const core::Value* type = shape->Find("type");
  std::string type_name = type != nullptr && type->is_string() ? type->as_string() : "unknown";
  if (type_name == "undefined") {
    return absl::InvalidArgumentError(
        "no default export: a shaper plugin must `export default { meta, match, shape }`");
  }
  if (type_name != "object") {
    return absl::InvalidArgumentError(StrCat(
        "the default export is ", type_name == "function" ? "a function" : type_name,
        ", not a shaper: a shaper plugin must `export default { meta, match, shape }`"));
  }
  bool has_match = false;
  bool has_shape = false;
  if (const core::Value* fns = shape->Find("functions"); fns != nullptr && fns->is_array()) {
    for (const core::Value& fn : fns->as_array()) {
      if (fn.is_string() && fn.as_string() == "match") has_match = true;
      if (fn.is_string() && fn.as_string() == "shape") has_shape = true;
    }
  }
  if (!has_match || !has_shape) {
    return absl::InvalidArgumentError(StrCat(
        "the default export has no ", !has_match ? "match()" : "shape()",
        " function: a shaper plugin must `export default { meta, match, shape }`"));
  }
  absl::StatusOr<std::string> meta_json = module->Get("meta");
  if (!meta_json.ok()) return meta_json.status();
  absl::StatusOr<core::ShaperMeta> meta = ParseMeta(*meta_json);
  if (!meta.ok()) return meta.status();
  core::LoadedPlugin loaded;
  loaded.files = module->files();
  loaded.shaper = std::make_shared<JsShaper>(*std::move(meta), std::move(module), settings);
  return loaded;
}

// A loaded module made into registry parts (or the loading's error), marked with its runtime.
absl::StatusOr<core::LoadedPlugin> Finish(absl::StatusOr<Loaded> loaded, core::JsRuntime runtime,
                                          const core::PluginFile& file,
                                          const core::JsPluginSettings& settings,
                                          const JsShaperOptions& options) {
  if (!loaded.ok()) return loaded.status();
  absl::StatusOr<core::LoadedPlugin> plugin =
      loaded->opencode
          ? MakeOpenCodePlugin(file, settings, options.host, options.log, std::move(loaded->module))
          : MakeShaper(settings, std::move(loaded->module));
  if (plugin.ok()) plugin->runtime = std::string(core::JsRuntimeName(runtime));
  return plugin;
}

// Node's built-in modules (Node 18's `require("module").builtinModules`, without the
// internal ones): an import of one of these, or a reference to one of Node's globals, is what
// makes a module fail in the sandboxed runtime and load in Node.
constexpr std::string_view kNodeBuiltins[] = {
    "assert", "assert/strict", "async_hooks", "buffer", "child_process", "cluster", "console",
    "constants", "crypto", "dgram", "diagnostics_channel", "dns", "dns/promises", "domain",
    "events", "fs", "fs/promises", "http", "http2", "https", "inspector", "module", "net", "os",
    "path", "path/posix", "path/win32", "perf_hooks", "process", "punycode", "querystring",
    "readline", "readline/promises", "repl", "stream", "stream/consumers", "stream/promises",
    "stream/web", "string_decoder", "sys", "timers", "timers/promises", "tls", "trace_events",
    "tty", "url", "util", "util/types", "v8", "vm", "wasi", "worker_threads", "zlib"};
constexpr std::string_view kNodeGlobals[] = {
    "process", "require", "Buffer", "__dirname", "__filename", "module", "exports", "global",
    "fetch", "setImmediate", "structuredClone", "Headers", "Request", "Response"};

// Whether the sandboxed runtime refused the module for something Node has.
bool NeedsNode(const absl::Status& status) {
  absl::string_view message = status.message();
  if (absl::StrContains(message, "cannot import 'node:")) return true;
  for (std::string_view name : kNodeBuiltins) {
    if (absl::StrContains(message, StrCat("cannot import '", name, "'"))) return true;
  }
  for (std::string_view name : kNodeGlobals) {
    if (absl::StrContains(message, StrCat("ReferenceError: ", name, " is not defined"))) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<core::LoadedPlugin> LoadJsShaper(const core::PluginFile& file,
                                                const core::JsPluginSettings& settings,
                                                const JsShaperOptions& options) {
  using core::JsRuntime;
  const ModuleOptions module_options = MakeModuleOptions(file, settings, options);
  auto sandboxed = [&]() -> absl::StatusOr<Loaded> {
    if (!file.not_esm.empty()) return absl::FailedPreconditionError(file.not_esm);
    return LoadIn(GetRuntime(settings.process_isolation ? Isolation::kProcess
                                                        : Isolation::kInProcess),
                  file, module_options);
  };
  auto node = [&] { return LoadIn(GetNodeRuntime(), file, module_options); };

  switch (settings.runtime) {
    case JsRuntime::kSandboxed:
      return Finish(sandboxed(), JsRuntime::kSandboxed, file, settings, options);
    case JsRuntime::kNode:
      return Finish(node(), JsRuntime::kNode, file, settings, options);
    case JsRuntime::kAuto:
      break;
  }

  // auto: an OpenCode plugin of the user's runs in Node.js, as it does in OpenCode; a shaper
  // runs sandboxed. A package named in config is an OpenCode plugin by definition.
  const bool node_available = GetNodeRuntime().ok();
  // So is a tool file of OpenCode's tools/ folder: its exports are tools.
  if ((file.package || core::IsOpenCodeToolsSource(file.source)) && node_available) {
    return Finish(node(), JsRuntime::kNode, file, settings, options);
  }
  // Otherwise the module tells: loaded sandboxed (where its top level can reach nothing), a
  // shaper stays there; an OpenCode plugin, or a module that needs what only Node has, is
  // loaded again in Node.js before any plugin function runs.
  absl::StatusOr<Loaded> first = sandboxed();
  if (first.ok() && !first->opencode) {
    return Finish(std::move(first), JsRuntime::kSandboxed, file, settings, options);
  }
  if (!node_available) {
    if (!first.ok()) return first.status();
    absl::StatusOr<core::LoadedPlugin> plugin =
        Finish(std::move(first), JsRuntime::kSandboxed, file, settings, options);
    if (plugin.ok()) {
      plugin->warnings.push_back(StrCat("runs sandboxed: ", GetNodeRuntime().status().message()));
    }
    return plugin;
  }
  const bool loaded_sandboxed = first.ok();
  absl::Status sandboxed_error = first.status();
  first = absl::CancelledError();  // dropped before Node loads it: one copy runs
  absl::StatusOr<Loaded> second = node();
  if (!second.ok()) {
    if (loaded_sandboxed || NeedsNode(sandboxed_error)) return second.status();
    return sandboxed_error;
  }
  if (!second->opencode) {
    return absl::FailedPreconditionError(
        StrCat(sandboxed_error.message(), " (a shaper runs sandboxed; this one loads in Node.js: "
                                          "set plugins.overrides.", file.name,
               ".runtime: node to run it there)"));
  }
  return Finish(std::move(second), JsRuntime::kNode, file, settings, options);
}

}  // namespace plugline::js
