// agent_loop: an agent's tool loop with plugline between the model and the shell, in C++,
// through the C++ API (<plugline/host.h>, target plugline::core) and nlohmann/json.
//
// A real agent gets its tool calls from a model; this one replays four scripted calls, so that
// what plugline does at each step is plain to see:
//
//   session_start          plugins see the session begin
//   rm -rf build/          a native hook denies it
//   python -c '...'        a native hook rewrites it to python3, then it runs
//   printf '...sk-...'     it runs; a plugin redacts the key in post_tool_call
//   seq 1 3000             it runs; the model reads a shaped summary, not 3,000 lines
//   session_end
//
// Usage (from the repository root, after building into build/):
//
//   mkdir -p /tmp/agent-home/plugins
//   cp -r examples/plugins/redact-secrets /tmp/agent-home/plugins/
//   build/bin/agent_loop_cpp /tmp/agent-home
//
// The transcript goes to stdout; tests/examples/agent_loop.expected is what every language's
// agent loop prints. The C++ API is for programs that build plugline into their own CMake
// project; programs that use an installed plugline use the C ABI (c_host/agent_loop.c).
#include <sys/wait.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugline/host.h"

namespace {

using nlohmann::json;

// What the model asks for, one tool call per turn.
const std::vector<std::string> kToolCalls = {
    "rm -rf build/",
    "python -c 'print(6 * 7)'",
    "printf 'OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl\\n'",
    "seq 1 3000",
};

constexpr char kSession[] = "ses_example";

// The "command" of a tool call's payload ({"arguments": "{\"command\": ...}"}).
std::string CommandOf(std::string_view payload_json) {
  const json payload = json::parse(payload_json);
  return json::parse(payload.value("arguments", "{}")).value("command", "");
}

// [native-hooks]
// Denies destructive commands before they run.
absl::StatusOr<plugline::HookAnswer> Guard(std::string_view /*event*/, std::string_view payload) {
  plugline::HookAnswer answer;  // no opinion
  if (CommandOf(payload).find("rm -rf") != std::string::npos) {
    answer.deny = true;
    answer.reason = "rm -rf is not allowed in this workspace";
  }
  return answer;
}

// Rewrites `python ...` to `python3 ...` (this machine has no `python`).
absl::StatusOr<plugline::HookAnswer> Python3(std::string_view /*event*/,
                                             std::string_view payload) {
  plugline::HookAnswer answer;
  const std::string command = CommandOf(payload);
  if (command.starts_with("python ")) {
    answer.arguments = json{{"command", "python3 " + command.substr(7)}}.dump();
  }
  return answer;
}
// [native-hooks]

// Runs `command` with /bin/sh, stdout and stderr interleaved as an agent's terminal tool sees
// them; sets *exit_code.
std::string RunShell(const std::string& command, int* exit_code) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::string output;
  char buffer[65536];
  size_t got = 0;
  while (pipe != nullptr && (got = fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    output.append(buffer, got);
  }
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  *exit_code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 127;
  return output;
}

int CountLines(std::string_view text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines + (!text.empty() && text.back() != '\n');
}

// A dispatch that cannot fail here (plugline reports a hook's failure in the result): an error
// means a bug in this program, so it ends it.
plugline::DispatchResult Dispatch(plugline::Host& host, std::string_view event,
                                  const json& payload) {
  absl::StatusOr<plugline::DispatchResult> result = host.Dispatch(event, payload.dump());
  if (!result.ok()) {
    std::cerr << "agent_loop: dispatch " << event << ": " << result.status() << "\n";
    std::exit(1);
  }
  return *std::move(result);
}

// One tool call: prints what happens, and what the model reads.
void RunTool(plugline::Host& host, std::string command) {
  std::cout << "model wants: " << command << "\n";
  // [pre-tool-call]
  const plugline::DispatchResult decision =
      Dispatch(host, "pre_tool_call",
               {{"session_id", kSession}, {"tool", "bash"},
                {"arguments", json{{"command", command}}.dump()}});
  if (decision.denied) {
    std::cout << "  denied by " << decision.denied_by << ": " << decision.reason << "\n";
    return;  // the model reads "blocked: <reason>"
  }
  command = json::parse(decision.arguments.value_or("{}")).value("command", command);
  // [pre-tool-call]
  for (const auto& step : decision.plugins) {
    if (step.action == "rewrite") std::cout << "  rewritten by " << step.plugin << ": " << command << "\n";
  }

  int exit_code = 0;
  const std::string output = RunShell(command, &exit_code);
  std::cout << "  ran: exit " << exit_code << ", " << CountLines(output) << " lines\n";

  // [post-tool-call]
  // post_tool_call first, so that a plugin's redaction reaches the summary and the stored raw
  // output alike; then shape what the plugins left.
  const plugline::DispatchResult after =
      Dispatch(host, "post_tool_call",
               {{"session_id", kSession}, {"tool", "bash"},
                {"arguments", json{{"command", command}}.dump()}, {"result", output}});
  const std::string result = after.result.value_or(output);
  absl::StatusOr<plugline::ShapeResult> shaped =
      host.Shape(plugline::ShapeRequest{command, result, exit_code, ""});
  // [post-tool-call]
  if (!shaped.ok()) {
    std::cerr << "agent_loop: shape: " << shaped.status() << "\n";
    std::exit(1);
  }
  for (const auto& step : after.plugins) {
    if (step.action == "replace") std::cout << "  redacted by " << step.plugin << "\n";
  }
  std::cout << "  model reads (" << shaped->shaper << ", "
            << (shaped->render_mode == plugline::RenderMode::kRaw ? "raw" : "summary") << ", "
            << shaped->tokens_raw << " -> " << shaped->tokens_summary << " tokens):\n";
  std::istringstream lines(shaped->summary);
  for (std::string line; std::getline(lines, line);) std::cout << "    " << line << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: agent_loop_cpp HOME\n";
    return 2;
  }
  // [host]
  plugline::HostOptions options;
  options.home = argv[1];
  absl::StatusOr<std::unique_ptr<plugline::Host>> host = plugline::Host::Create(options);
  if (!host.ok()) {
    std::cerr << "agent_loop: " << host.status() << "\n";
    return 1;
  }
  for (const std::string& problem : (*host)->diagnostics()) {
    std::cerr << "plugline: " << problem << "\n";
  }
  absl::Status added = (*host)->AddHook({"guard", {"pre_tool_call"}, Guard, /*fail_closed=*/true});
  if (added.ok()) added = (*host)->AddHook({"python3", {"pre_tool_call"}, Python3, false});
  if (!added.ok()) {
    std::cerr << "agent_loop: " << added << "\n";
    return 1;
  }
  // [host]
  const auto started = Dispatch(**host, "session_start", {{"session_id", kSession}});
  std::cout << "session_start: " << started.plugins.size() << " hooks ran\n";
  for (const std::string& command : kToolCalls) RunTool(**host, command);
  const auto ended = Dispatch(**host, "session_end", {{"session_id", kSession}});
  std::cout << "session_end: " << ended.plugins.size() << " hooks ran\n";
  return 0;
}
