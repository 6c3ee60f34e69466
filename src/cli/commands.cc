#include "cli/commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "agents/dialect.h"
#include "agents/wrap.h"
#include "cli/client.h"
#include "cli/plugins_command.h"
#include "cli/usage.h"
#include "core/fs.h"
#include "core/host_internal.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::cli {

HostSession::HostSession(CommandEnv& env) : env_(env) {}

absl::StatusOr<Host*> HostSession::Get() {
  if (!opened_) {
    opened_ = true;
    host_ = env_.open_host();
    PrintNewDiagnostics();
  }
  return host_;
}

void HostSession::PrintNewDiagnostics() {
  if (!host_.ok()) return;
  std::vector<std::string> diagnostics = (*host_)->diagnostics();
  for (size_t i = printed_; i < diagnostics.size(); ++i) {
    env_.io->Error(StrCat("warning: ", diagnostics[i]));
  }
  printed_ = std::max(printed_, diagnostics.size());
}

// Reads `fd` (`name` in messages) to its end, giving each chunk to `consume`, which returns
// false to stop early. A read error is a Status naming `name`.
absl::Status ReadInChunks(int fd, std::string_view name,
                          const std::function<bool(std::string_view)>& consume) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return core::ErrnoToStatus(errno, StrCat("cannot read ", name));
    if (n == 0) return absl::OkStatus();
    if (!consume(std::string_view(buf, static_cast<size_t>(n)))) return absl::OkStatus();
  }
}

// All of `fd` when it holds at most `limit` bytes; ResourceExhausted (having read no more than
// limit + one chunk) when it holds more.
absl::StatusOr<std::string> ReadAtMost(int fd, std::string_view name, size_t limit) {
  std::string data;
  bool over = false;
  absl::Status status = ReadInChunks(fd, name, [&](std::string_view chunk) {
    if (data.size() + chunk.size() > limit) {
      over = true;
      return false;
    }
    data.append(chunk);
    return true;
  });
  if (!status.ok()) return status;
  if (over) {
    return absl::ResourceExhaustedError(
        StrCat("the payload (", name, ") is larger than the ", core::FormatBytes(limit), " limit"));
  }
  return data;
}


namespace {

constexpr int kExitDenied = 3;
// `plugline hook` reads at most this much payload (docs/hooks.md).
constexpr size_t kMaxPayloadBytes = 16u << 20;

// The payload of `plugline hook`: what the client read (the server runs the command), or the
// --payload file (`-`: standard input), at most kMaxPayloadBytes. The error names the source.
absl::StatusOr<std::string> ReadHookInput(const std::string& payload_file, CommandEnv& env) {
  const std::string source = payload_file == "-" ? "standard input" : payload_file;
  if (env.stdin_data != nullptr) {
    // The client read the payload, from its standard input or the file (at most one byte over
    // the limit).
    if (env.stdin_data->size() > kMaxPayloadBytes) {
      return absl::ResourceExhaustedError(StrCat("the payload (", source, ") is larger than the ",
                                                 core::FormatBytes(kMaxPayloadBytes), " limit"));
    }
    return *env.stdin_data;
  }
  int fd = STDIN_FILENO;
  if (payload_file != "-") {
    const std::string path = payload_file.starts_with("/") || env.cwd.empty()
                                 ? payload_file
                                 : core::JoinPath(env.cwd, payload_file);
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return core::ErrnoToStatus(errno, StrCat("cannot open ", payload_file));
  }
  // A payload is one JSON object; one larger than this is refused, not read without end.
  absl::StatusOr<std::string> read = ReadAtMost(fd, source, kMaxPayloadBytes);
  if (fd != STDIN_FILENO) ::close(fd);
  return read;
}

// Plugin text on the terminal: control characters escaped.
void PrintDispatchNotes(Output& io, const DispatchResult& result) {
  using core::EscapeControl;
  for (const DispatchResult::Warning& warning : result.warnings) {
    io.Error(warning.plugin.empty()
                 ? StrCat("warning: ", EscapeControl(warning.text))
                 : StrCat("warning: plugin ", EscapeControl(warning.plugin), ": ",
                          EscapeControl(warning.text)));
  }
  for (const DispatchResult::Skipped& skipped : result.skipped) {
    io.Error(StrCat("note: plugin ", EscapeControl(skipped.plugin), " skipped: ",
                    EscapeControl(skipped.detail)));
  }
}

// `plugline hook --agent NAME`: the agent's hook call in, the agent's answer out
// (src/agents/dialect.h, docs/agents.md).
struct AgentHookFlags {
  agents::Agent agent = agents::Agent::kClaudeCode;
  std::string event;  // named on the command line (Copilot's camelCase calls carry none)
  std::string payload_file = "-";
  bool fail_closed = false;
  // --shaping: auto (wrap where the agent would run the command without asking anyway, else
  // replace where it can exactly), replace, wrap (also where it must be asked for), off.
  enum class Shaping { kAuto, kReplace, kWrap, kOff };
  // From the command line; when absent, adapters.<agent>.shaping decides, else auto.
  std::optional<Shaping> shaping;
};

// auto | replace | wrap | off, as --shaping and adapters.<agent>.shaping spell them.
std::optional<AgentHookFlags::Shaping> ParseShaping(std::string_view name) {
  using Shaping = AgentHookFlags::Shaping;
  if (name == "auto") return Shaping::kAuto;
  if (name == "replace") return Shaping::kReplace;
  if (name == "wrap") return Shaping::kWrap;
  if (name == "off") return Shaping::kOff;
  return std::nullopt;
}

// Whether `program` (a command's first word) is a file that can run: a path, or on PATH.
bool IsProgram(std::string_view program) {
  auto runnable = [](const std::string& path) { return ::access(path.c_str(), X_OK) == 0; };
  if (program.find('/') != std::string_view::npos) return runnable(std::string(program));
  const char* path = std::getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (!dir.empty() && runnable(StrCat(ToStd(dir), "/", program))) return true;
  }
  return false;
}

// Claude Code's permission rules for Bash from the settings it reads: yours, the project's
// (shared and local) and the machine's managed ones.
void ClaudeRules(const std::string& cwd, std::vector<std::string>* allow,
                 std::vector<std::string>* deny, std::vector<std::string>* ask) {
  std::vector<std::string> files = {"/etc/claude-code/managed-settings.json"};
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    files.push_back(core::JoinPath(home, ".claude/settings.json"));
  }
  if (!cwd.empty()) {
    files.push_back(core::JoinPath(cwd, ".claude/settings.json"));
    files.push_back(core::JoinPath(cwd, ".claude/settings.local.json"));
  }
  for (const std::string& file : files) {
    absl::StatusOr<std::string> text = core::ReadFile(file, 4u << 20);
    if (!text.ok()) continue;
    absl::StatusOr<core::Value> doc = core::ParseJson(*text, file);
    if (!doc.ok() || !doc->is_object()) continue;
    const core::Value* permissions = doc->Find("permissions");
    if (permissions == nullptr || !permissions->is_object()) continue;
    for (auto [key, out] : {std::pair{"allow", allow}, {"deny", deny}, {"ask", ask}}) {
      const core::Value* rules = permissions->Find(key);
      if (rules == nullptr || !rules->is_array()) continue;
      for (const core::Value& rule : rules->as_array()) {
        if (rule.is_string()) out->push_back(rule.as_string());
      }
    }
  }
}

// Whether a wrap — which the agent applies only as an approved call — keeps the agent's own
// say: Claude Code's rules would run every part of the command without asking, or the agent
// asks nothing anyway (bypassPermissions); elsewhere only when asked for (--shaping wrap).
bool WrapPermitted(const agents::HookCall& call, const std::vector<std::string>& segments,
                   AgentHookFlags::Shaping shaping) {
  switch (call.agent) {
    case agents::Agent::kClaudeCode: {
      if (call.permission_mode == "bypassPermissions") return true;
      std::vector<std::string> allow, deny, ask;
      ClaudeRules(call.cwd, &allow, &deny, &ask);
      return agents::ClaudeRulesAllow(segments, allow, deny, ask);
    }
    case agents::Agent::kCodex:
      return call.permission_mode == "bypassPermissions";
    case agents::Agent::kGemini:
    case agents::Agent::kCursor:
    case agents::Agent::kCopilot:
    case agents::Agent::kOpenCode:
      return shaping == AgentHookFlags::Shaping::kWrap;
  }
  return false;
}

// A shell call's command wrapped in `plugline run --` (agents/wrap.h) as the dispatch's final
// arguments, when it can be; `why` says why not.
void WrapCommand(const agents::HookCall& call, AgentHookFlags::Shaping shaping,
                 DispatchResult* result, std::string* why) {
  absl::StatusOr<core::Value> args = core::ParseJson(
      result->arguments.value_or(core::ToJson(call.tool_input)), "the arguments");
  if (!args.ok() || !args->is_object()) return;
  const core::Value* command = args->Find("command");
  if (command == nullptr || !command->is_string()) return;
  const agents::WrapCheck check = agents::CheckWrappable(command->as_string(), IsProgram);
  if (!check.ok) {
    *why = check.why_not;
    return;
  }
  if (!WrapPermitted(call, check.segments, shaping)) {
    *why = "the agent would ask before running it, and a wrapped call is an approved one";
    return;
  }
  args->Set("command",
            core::Value(agents::Wrap(command->as_string(), SelfPath(), check.kept_in_shell)));
  result->arguments = core::ToJson(*args);
  result->plugins.push_back({"plugline", "rewrite", 0});
}

// Whether plugline shapes a shell tool's output into the agent's answer by default: where the
// agent shows the replacement as the tool's output, exactly.
bool ReplacesByDefault(const agents::HookCall& call) {
  switch (call.agent) {
    case agents::Agent::kClaudeCode:
      return call.agent_event == "PostToolUse" && call.output_is_bash;
    case agents::Agent::kCodex:
    case agents::Agent::kOpenCode:  // output.output, for failing commands too
      return true;
    case agents::Agent::kCopilot:
      return call.copilot_camel ? call.agent_event == "postToolUse"
                                : call.agent_event == "PostToolUse";
    case agents::Agent::kGemini:  // only as the tool's error
    case agents::Agent::kCursor:  // not at all for its own tools
      return false;
  }
  return false;
}

int AgentHook(const AgentHookFlags& flags, CommandEnv& env) {
  Output& io = *env.io;
  auto answer = [&](const agents::Answer& a) {
    if (!a.out.empty()) io.Out(a.out);
    if (!a.err.empty()) io.Write(STDERR_FILENO, a.err);
    return a.exit_code;
  };
  auto fail = [&](std::string_view why) {
    return answer(agents::FailureAnswer(flags.agent, why, flags.fail_closed));
  };
  absl::StatusOr<std::string> input = ReadHookInput(flags.payload_file, env);
  if (!input.ok()) return fail(StrCat("hook: ", input.status().message()));
  HostSession session(env);
  absl::StatusOr<Host*> host = session.Get();
  if (!host.ok()) return fail(ToStd(host.status().message()));
  // adapters.<agent> of the global config: the shaping mode (the command line's wins) and more
  // shell tools.
  const core::AdapterConfig adapter =
      internal::HostAccess::Adapter(**host, agents::AgentName(flags.agent));
  const AgentHookFlags::Shaping shaping = flags.shaping.value_or(
      ParseShaping(adapter.shaping).value_or(AgentHookFlags::Shaping::kAuto));
  absl::StatusOr<agents::HookCall> call =
      agents::ReadHookCall(flags.agent, *input, flags.event, adapter.shell_tools);
  if (!call.ok()) return fail(StrCat("hook --agent ", agents::AgentName(flags.agent), ": ",
                                     call.status().message()));
  absl::StatusOr<DispatchResult> result = (*host)->Dispatch(call->event, call->payload_json);
  if (!result.ok()) return fail(StrCat("hook: ", result.status().message()));

  using Shaping = AgentHookFlags::Shaping;
  // A shell command that plugline runs itself (`plugline run --`), so the model reads the
  // summary of its whole output whatever its exit code.
  if (call->event == "pre_tool_call" && call->shell && !result->denied &&
      (shaping == Shaping::kAuto || shaping == Shaping::kWrap)) {
    std::string why;
    WrapCommand(*call, shaping, &*result, &why);
    if (!why.empty() && shaping == Shaping::kWrap) {
      io.Error(StrCat("note: the command is not wrapped: ", why));
    }
  }
  // What the model reads of a finished tool call: a plugin's replacement, and for a shell
  // command plugline's summary of it (of the replacement, when there is one) — unless plugline
  // ran it, and the output already is the summary.
  std::optional<std::string> replacement;
  if (call->event == "post_tool_call") {
    const std::string final_output = result->result.value_or(call->output);
    if (final_output != call->output) replacement = final_output;
    const bool shape = shaping == Shaping::kReplace ||
                       (shaping != Shaping::kOff && ReplacesByDefault(*call));
    if (call->shell && call->output_is_preview && shape) {
      io.Error(StrCat("note: ", agents::AgentName(call->agent),
                      " handed over only a preview of this output (it saved the whole of it "
                      "itself): not shaped; adapters.", agents::AgentName(call->agent),
                      ".shaping: wrap shapes long outputs"));
    } else if (call->shell && !call->wrapped && shape) {
      ShapeRequest request;
      request.command = call->command;
      request.output = final_output;
      request.exit_code = call->exit_code;
      absl::StatusOr<ShapeResult> shaped = (*host)->Shape(request);
      if (shaped.ok() && ((shaped->render_mode == RenderMode::kSummary &&
                           shaped->summary.size() < final_output.size()) ||
                          shaped->secrets_masked)) {
        // A summary, or the output as it is but without the secrets it printed.
        replacement = shaped->summary;
      } else if (!shaped.ok()) {
        io.Error(StrCat("warning: the output was not shaped: ", shaped.status().message()));
      }
    }
  }
  PrintDispatchNotes(io, *result);
  session.PrintNewDiagnostics();
  return answer(agents::Respond(*call, *result, replacement));
}

int Hook(const std::vector<std::string>& args, CommandEnv& env) {
  Output& io = *env.io;
  HostSession session(env);
  std::string event;
  std::string payload_file = "-";
  std::optional<std::string> agent;
  bool fail_closed = false;
  std::optional<AgentHookFlags::Shaping> shaping;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--payload" || arg == "--agent" || arg == "--shaping") {
      if (i + 1 >= args.size()) {
        io.Error(arg == "--payload" ? "--payload needs a file name (- for standard input)"
                 : arg == "--agent" ? StrCat("--agent needs an agent: ", agents::AgentNames())
                                    : std::string("--shaping needs auto, replace, wrap or off"));
        return kExitUsage;
      }
      const std::string& value = args[++i];
      if (arg == "--payload") {
        payload_file = value;
      } else if (arg == "--agent") {
        agent = value;
      } else if (ParseShaping(value)) {
        shaping = ParseShaping(value);
      } else {
        io.Error(StrCat("--shaping: expected auto, replace, wrap or off, got ",
                        core::EscapeControl(value)));
        return kExitUsage;
      }
    } else if (arg.starts_with("--payload=")) {
      payload_file = arg.substr(std::string_view("--payload=").size());
    } else if (arg.starts_with("--agent=")) {
      agent = arg.substr(std::string_view("--agent=").size());
    } else if (arg == "--fail-closed") {
      fail_closed = true;
    } else if (arg.starts_with("-") && arg != "-") {
      io.Error(StrCat("hook: unknown option ", arg, "\n\n", kUsage));
      return kExitUsage;
    } else if (event.empty()) {
      event = arg;
    } else {
      io.Error(StrCat("hook: unexpected argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    }
  }
  if (agent) {
    absl::StatusOr<agents::Agent> named = agents::AgentNamed(*agent);
    if (!named.ok()) {
      io.Error(StrCat("hook: ", named.status().message()));
      return kExitUsage;
    }
    return AgentHook(AgentHookFlags{*named, event, payload_file, fail_closed, shaping}, env);
  }
  if (fail_closed || shaping) {
    io.Error("hook: --fail-closed and --shaping go with --agent");
    return kExitUsage;
  }
  if (event.empty()) {
    io.Error(StrCat("hook: no event given\n\n", kUsage));
    return kExitUsage;
  }
  const std::string source = payload_file == "-" ? "standard input" : payload_file;
  absl::StatusOr<std::string> read = ReadHookInput(payload_file, env);
  if (!read.ok()) {
    io.Error(StrCat("hook: ", read.status().message()));
    return absl::IsResourceExhausted(read.status()) ? kExitUsage : 1;
  }
  std::string payload = *std::move(read);
  // Nothing at all is an empty payload: `plugline hook session_start </dev/null`.
  if (payload.find_first_not_of(" \t\r\n") == std::string::npos) payload = "{}";
  absl::StatusOr<Host*> host = session.Get();
  if (!host.ok()) {
    io.Error(ToStd(host.status().message()));
    return 1;
  }
  absl::StatusOr<DispatchResult> result = (*host)->Dispatch(event, payload);
  if (!result.ok()) {
    io.Error(StrCat("hook: the payload (", source, "): ", result.status().message()));
    return kExitUsage;
  }
  io.Out(StrCat(result->ToJson(), "\n"));
  PrintDispatchNotes(io, *result);
  session.PrintNewDiagnostics();
  return result->denied ? kExitDenied : 0;
}


// Options of the form `--name VALUE` (or `--name=VALUE`) after one positional argument.
struct NamedArgs {
  std::string positional;
  std::vector<std::pair<std::string, std::string>> options;
  std::string error;

  const std::string* Get(std::string_view name) const {
    for (const auto& [key, value] : options) {
      if (key == name) return &value;
    }
    return nullptr;
  }
};

NamedArgs ParseNamed(const std::vector<std::string>& args,
                     const std::vector<std::string_view>& allowed, bool want_positional) {
  NamedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.starts_with("--")) {
      std::string name = arg.substr(2);
      std::string value;
      if (size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name.resize(eq);
      } else if (name != "json") {
        if (i + 1 >= args.size()) {
          parsed.error = StrCat("--", name, " needs a value");
          return parsed;
        }
        value = args[++i];
      }
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
        parsed.error = StrCat("unknown option --", name);
        return parsed;
      }
      parsed.options.emplace_back(name, value);
    } else if (want_positional && parsed.positional.empty()) {
      parsed.positional = arg;
    } else {
      parsed.error = StrCat("unexpected argument ", arg);
      return parsed;
    }
  }
  if (want_positional && parsed.positional.empty()) parsed.error = "a name is required";
  return parsed;
}


int Trigger(const std::vector<std::string>& args, CommandEnv& env) {
  Output& io = *env.io;
  HostSession session(env);
  NamedArgs parsed = ParseNamed(args, {"input", "output"}, true);
  if (!parsed.error.empty()) {
    io.Error(StrCat("trigger: ", parsed.error, "\n\n", kUsage));
    return kExitUsage;
  }
  std::string input = parsed.Get("input") != nullptr ? *parsed.Get("input") : "{}";
  std::string output = parsed.Get("output") != nullptr ? *parsed.Get("output") : "{}";
  // `-`: the JSON is on standard input (an OpenCode input can be larger than one argument may).
  if (input == "-" && output == "-") {
    io.Error("trigger: only one of --input and --output can be read from standard input");
    return kExitUsage;
  }
  for (std::string* json : {&input, &output}) {
    if (*json != "-") continue;
    absl::StatusOr<std::string> read = ReadHookInput("-", env);
    if (!read.ok()) {
      io.Error(StrCat("trigger: ", read.status().message()));
      return kExitUsage;
    }
    *json = *std::move(read);
  }
  absl::StatusOr<Host*> host = session.Get();
  if (!host.ok()) {
    io.Error(ToStd(host.status().message()));
    return 1;
  }
  absl::StatusOr<TriggerResult> result = (*host)->Trigger(parsed.positional, input, output);
  if (!result.ok()) {
    io.Error(StrCat("trigger: ", result.status().message()));
    return kExitUsage;
  }
  io.Out(StrCat(result->ToJson(), "\n"));
  session.PrintNewDiagnostics();
  return 0;
}

int Tools(const std::vector<std::string>& args, CommandEnv& env) {
  Output& io = *env.io;
  HostSession session(env);
  NamedArgs parsed = ParseNamed(args, {"json"}, false);
  if (!parsed.error.empty()) {
    io.Error(StrCat("tools: ", parsed.error, "\n\n", kUsage));
    return kExitUsage;
  }
  absl::StatusOr<Host*> host = session.Get();
  if (!host.ok()) {
    io.Error(ToStd(host.status().message()));
    return 1;
  }
  std::string listing = (*host)->ToolsJson();
  if (parsed.Get("json") != nullptr) {
    io.Out(StrCat(listing, "\n"));
  } else {
    absl::StatusOr<core::Value> tools = core::ParseJson(listing, "tools");
    std::string table = absl::StrFormat("%-24s %-20s %s\n", "tool", "plugin", "description");
    if (tools.ok()) {
      for (const core::Value& t : tools->Find("tools")->as_array()) {
        // Plugin text: control characters escaped before they reach the terminal.
        StrAppend(&table,
                  absl::StrFormat("%-24s %-20s %s\n", core::EscapeControl(t.Find("name")->as_string()),
                                  core::EscapeControl(t.Find("plugin")->as_string()),
                                  core::EscapeControl(t.Find("description")->as_string())));
      }
    }
    io.Out(table);
  }
  session.PrintNewDiagnostics();
  return 0;
}

int Tool(const std::vector<std::string>& args, CommandEnv& env) {
  Output& io = *env.io;
  HostSession session(env);
  NamedArgs parsed = ParseNamed(args, {"args", "context"}, true);
  if (!parsed.error.empty()) {
    io.Error(StrCat("tool: ", parsed.error, "\n\n", kUsage));
    return kExitUsage;
  }
  const std::string* tool_args = parsed.Get("args");
  const std::string* context = parsed.Get("context");
  absl::StatusOr<Host*> host = session.Get();
  if (!host.ok()) {
    io.Error(ToStd(host.status().message()));
    return 1;
  }
  std::string default_context = "{}";
  if (context == nullptr && !env.cwd.empty()) {
    core::JsonWriter w;
    w.BeginObject().Key("directory").String(env.cwd).EndObject();
    default_context = w.Take();
  }
  absl::StatusOr<ToolResult> result = (*host)->ExecuteTool(
      parsed.positional, tool_args != nullptr ? *tool_args : "{}",
      context != nullptr ? *context : default_context);
  if (!result.ok()) {
    io.Error(StrCat("tool: ", result.status().message()));
    return absl::IsNotFound(result.status()) ? 1 : kExitUsage;
  }
  io.Out(StrCat(result->ToJson(), "\n"));
  session.PrintNewDiagnostics();
  return result->ok ? 0 : 1;
}

}  // namespace


// Prints a shaping result: the summary (ending in a newline) or its JSON.
bool ParseMaxTokens(std::string_view value, ShapeFlags* flags) {
  uint64_t n = 0;
  if (!absl::SimpleAtoi(ToAbsl(value), &n)) {
    Error(StrCat("--max-tokens needs a whole number of tokens (0: no budget), not '", value, "'"));
    return false;
  }
  // As shaping.max_summary_tokens: a budget smaller has no room for a summary's outcome line,
  // its path and the statement of what was cut.
  if (n != 0 && n < core::kMinSummaryTokens) {
    Error(StrCat("--max-tokens ", value, ": expected 0 (no budget) or at least ",
                 core::kMinSummaryTokens));
    return false;
  }
  flags->max_tokens = n;
  return true;
}

void PrintResult(Output& io, const ShapeResult& result, const ShapeFlags& flags) {
  if (flags.json) {
    io.Out(StrCat(result.ToJson(), "\n"));
    return;
  }
  io.Out(result.summary);
  if (!result.summary.empty() && result.summary.back() != '\n') io.Out("\n");
  if (result.fallback) io.Error(StrCat("note: ", core::EscapeControl(*result.fallback)));
}


int ShapeAndPrint(Output& io, const ShapeFunction& shape, const ShapeFlags& flags, bool run,
                  int exit_code) {
  absl::StatusOr<ShapeResult> shaped = shape(flags.shaper);
  if (run && !shaped.ok() && !flags.shaper.empty()) {
    // An unknown --shaper: say so, and shape with the best match rather than lose the output.
    io.Error(ToStd(shaped.status().message()));
    shaped = shape("");
  }
  if (!shaped.ok()) {
    io.Error(ToStd(shaped.status().message()));
    return run ? exit_code : kExitUsage;
  }
  PrintResult(io, *shaped, flags);
  return exit_code;
}

absl::StatusOr<std::unique_ptr<Host>> OpenHostFor(const std::string& dir) {
  HostOptions options;
  options.project_dir = dir;
  // OpenCode plugins' `client`: what the command line can answer on its own (cli/client.h).
  options.client = CommandLineClient;
  options.client_thread_safe = true;
  return Host::Create(std::move(options));
}

bool IsHostCommand(std::string_view name) {
  return name == "plugins" || name == "hook" || name == "trigger" || name == "tools" ||
         name == "tool";
}

int RunHostCommand(std::string_view name, const std::vector<std::string>& args, CommandEnv& env) {
  if (name == "plugins") return PluginsCommand(args, env);
  if (name == "hook") return Hook(args, env);
  if (name == "trigger") return Trigger(args, env);
  if (name == "tools") return Tools(args, env);
  if (name == "tool") return Tool(args, env);
  env.io->Error(StrCat("unknown command '", name, "'"));
  return kExitUsage;
}

}  // namespace plugline::cli
