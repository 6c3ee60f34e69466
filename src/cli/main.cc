// The plugline command-line tool.
#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <thread>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "absl/strings/str_join.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"
#include "core/trust.h"
#include "cli/cli_io.h"
#include "cli/server_command.h"
#include "exec/process.h"
#include "plugline/host.h"

namespace plugline::cli {
namespace {

constexpr int kExitNotFound = 127;
constexpr int kExitNotExecutable = 126;
// `plugline run` shows a progress line on a terminal once a command has run this long.
constexpr absl::Duration kProgressAfter = absl::Seconds(2);

constexpr std::string_view kUsage =
    "usage: plugline <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [--raw] [--json] [--shaper ID] [--] COMMAND [ARG...]\n"
    "        run COMMAND, store its full output under $PLUGLINE_HOME/outputs, print a\n"
    "        summary, and exit with COMMAND's exit code\n"
    "          --raw         no shaping: pass the output through unchanged\n"
    "          --json        print the shaping result as JSON\n"
    "          --shaper ID   use this shaper instead of the best match\n"
    "  shape --command CMD [--exit-code N] [--json] [--shaper ID]\n"
    "        shape output read from standard input, as if CMD had printed it\n"
    "  hook EVENT [--payload FILE]\n"
    "        dispatch EVENT (pre_tool_call, post_tool_call, session_start, ...) to the hook\n"
    "        plugins with the JSON payload read from FILE (- or none: standard input) and\n"
    "        print the result as JSON; exit status 0, or 3 when a plugin denied\n"
    "  trigger NAME [--input JSON] [--output JSON]\n"
    "        run the OpenCode hook NAME (shell.env, chat.params, ...) of every plugin that has\n"
    "        it with (input, output) and print the result JSON (the final output, errors)\n"
    "  tools [--json]\n"
    "        the tools plugins add: name, plugin, description (--json: with JSON Schema)\n"
    "  tool NAME [--args JSON] [--context JSON]\n"
    "        run a plugin tool and print its result JSON; exit status 0, or 1 when it failed\n"
    "  plugins [--json]\n"
    "        every plugin: built-in shapers, JS shapers, exec hooks (id, kind, tier, state,\n"
    "        statistics); broken plugins with the reason they do not run\n"
    "  stats [--json]\n"
    "        per-shaper statistics: matches, shapes, tokens saved, shape time\n"
    "  trust [DIR]\n"
    "        trust the project DIR (default: the current directory): its .plugline/ config\n"
    "        and plugins may load from now on, as they are now (a changed or added file needs\n"
    "        trusting again); prints each file it trusts with its SHA-256\n"
    "  trust --show [DIR]\n"
    "        what `trust DIR` would trust, and whether DIR is trusted now (files added,\n"
    "        changed or removed since); trusts nothing\n"
    "  trust --revoke [DIR]   (or: untrust [DIR])\n"
    "        stop trusting the project DIR\n"
    "  trust --list\n"
    "        the trusted projects\n"
    "  server [--idle-timeout SECONDS] | server start | server status [--json] | server stop\n"
    "        the per-user server of $PLUGLINE_HOME (a Unix socket in $PLUGLINE_HOME/run/): run\n"
    "        it in the foreground, start it in the background, show it (exit 3 when none\n"
    "        runs), stop it. It answers status queries so far; commands do not use it yet\n"
    "  version\n"
    "        print plugline's version\n"
    "\n"
    "environment: PLUGLINE_HOME (default ~/.plugline)\n";

// Quotes an argument for display so the command line reads back the way a shell would run it.
std::string ShellQuote(std::string_view arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string_view::npos) {
    return std::string(arg);
  }
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += "'";
  return quoted;
}

struct ShapeFlags {
  bool json = false;
  std::string shaper;
};

// Prints a shaping result: the summary (ending in a newline) or its JSON.
void PrintResult(const ShapeResult& result, const ShapeFlags& flags) {
  if (flags.json) {
    WriteAll(STDOUT_FILENO, StrCat(result.ToJson(), "\n"));
    return;
  }
  WriteAll(STDOUT_FILENO, result.summary);
  if (!result.summary.empty() && result.summary.back() != '\n') WriteAll(STDOUT_FILENO, "\n");
  if (result.fallback) Error(StrCat("note: ", core::EscapeControl(*result.fallback)));
}

// How many of the host's diagnostics have been printed: the host adds some while it works (a
// malformed stats file it moved aside), printed once the command is done.
size_t diagnostics_printed = 0;

void PrintNewDiagnostics(const Host& host) {
  std::vector<std::string> diagnostics = host.diagnostics();
  for (size_t i = diagnostics_printed; i < diagnostics.size(); ++i) {
    Error(StrCat("warning: ", diagnostics[i]));
  }
  diagnostics_printed = std::max(diagnostics_printed, diagnostics.size());
}

absl::StatusOr<std::unique_ptr<Host>> OpenHost() {
  HostOptions options;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) != nullptr) options.project_dir = cwd;
  absl::StatusOr<std::unique_ptr<Host>> host = Host::Create(std::move(options));
  if (host.ok()) PrintNewDiagnostics(**host);
  return host;
}

// The process ends right after this: tearing down each JS plugin's isolate (≈ 2 ms each)
// would only delay the exit. OpenCode plugins' dispose hooks run (a command is their whole
// session); everything a host persists (outputs, stats, log) is already written; worker
// processes of isolated plugins exit when their stdin closes.
void AbandonHost(std::unique_ptr<Host> host) {
  PrintNewDiagnostics(*host);
  host->DisposePlugins();
  (void)host.release();
}

int Run(const std::vector<std::string>& args) {
  ShapeFlags flags;
  bool raw = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    } else if (arg == "--raw") {
      raw = true;
    } else if (arg == "--json") {
      flags.json = true;
    } else if (arg == "--shaper") {
      if (++i == args.size()) {
        Error("--shaper needs a shaper id");
        return kExitUsage;
      }
      flags.shaper = args[i];
    } else if (arg.size() > 1 && arg[0] == '-') {
      Error(StrCat("run: unknown option ", arg, "\n\n", kUsage));
      return kExitUsage;
    } else {
      break;
    }
  }
  if (i >= args.size()) {
    Error(StrCat("run: no command given\n\n", kUsage));
    return kExitUsage;
  }
  exec::ProcessSpec spec;
  spec.argv.assign(args.begin() + static_cast<ptrdiff_t>(i), args.end());
  spec.inherit_stdin = true;
  spec.merge_output = true;
  spec.forward_signals = true;
  // The output goes to the raw file and the shaping window as it arrives (or straight
  // through); nothing collects it whole.
  spec.collect_output = false;
  // RunProcess runs on the main thread, which lives as long as this process.
  spec.kill_with_parent = true;
  std::vector<std::string> quoted;
  for (const std::string& arg : spec.argv) quoted.push_back(ShellQuote(arg));
  // A command line that is not UTF-8 is shown (and matched) with U+FFFD in its place.
  const std::string command = core::SanitizeUtf8(absl::StrJoin(quoted, " "));

  // Plugins load while the command runs (V8 and one isolate per JS plugin take a while), so a
  // command that runs longer than that pays nothing for them. Started once the child exists,
  // so no descriptor the loader opens can leak into it.
  absl::StatusOr<std::unique_ptr<Host>> host = absl::UnavailableError("not opened");
  std::unique_ptr<OutputCapture> capture;
  std::thread preload;
  if (!raw) {
    host = OpenHost();
    if (host.ok()) {
      capture = (*host)->StartCapture();
      Host* opened = host->get();
      spec.on_spawn = [&preload, opened](int) {
        preload = std::thread([opened] { opened->Preload(); });
      };
    } else {
      // Without a state directory nothing can be stored, so nothing is elided.
      Error(StrCat("warning: ", host.status().message(), "; showing the output unshaped"));
    }
  }
  bool progress_shown = false;
  if (capture == nullptr) {
    // No shaping: the output streams through as it arrives.
    spec.on_output = [](std::string_view chunk) { WriteAll(STDOUT_FILENO, chunk); };
  } else {
    OutputCapture* sink = capture.get();
    spec.on_output = [sink](std::string_view chunk) { sink->Append(chunk); };
    if (::isatty(STDERR_FILENO)) {
      // A person is watching: after a few seconds, show that the command is alive and how
      // much it has printed, on one line of stderr that is rewritten in place.
      spec.tick_interval = absl::Seconds(1);
      spec.on_tick = [&, sink](absl::Duration elapsed) {
        if (elapsed < kProgressAfter) return;
        progress_shown = true;
        const uint64_t lines_seen = sink->lines();
        WriteAll(STDERR_FILENO,
                 StrCat("\rplugline: running ", spec.argv[0], " — ", absl::ToInt64Seconds(elapsed),
                        "s, ", core::FormatCount(lines_seen), lines_seen == 1 ? " line" : " lines",
                        " so far\x1b[K"));
      };
    }
  }
  absl::StatusOr<exec::ProcessResult> result = exec::RunProcess(spec);
  if (preload.joinable()) preload.join();
  if (progress_shown) WriteAll(STDERR_FILENO, "\r\x1b[K");  // clear the progress line
  if (!result.ok()) {
    Error(ToStd(result.status().message()));
    return absl::IsNotFound(result.status()) ? kExitNotFound : kExitNotExecutable;
  }
  const int exit_code = result->ShellExitCode();
  if (capture == nullptr) return exit_code;

  absl::StatusOr<ShapeResult> shaped = capture->Finish(command, exit_code, flags.shaper);
  if (!shaped.ok() && !flags.shaper.empty()) {
    // An unknown --shaper: say so, and shape with the best match rather than lose the output.
    Error(ToStd(shaped.status().message()));
    shaped = capture->Finish(command, exit_code);
  }
  if (!shaped.ok()) {
    Error(ToStd(shaped.status().message()));
    return exit_code;
  }
  PrintResult(*shaped, flags);
  capture.reset();
  AbandonHost(*std::move(host));
  return exit_code;
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

int Shape(const std::vector<std::string>& args) {
  ShapeFlags flags;
  std::string command;
  bool have_command = false;
  std::optional<int> exit_code;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string_view name) -> const std::string* {
      if (i + 1 >= args.size()) {
        Error(StrCat(name, " needs a value"));
        return nullptr;
      }
      return &args[++i];
    };
    if (arg == "--command") {
      const std::string* v = value("--command");
      if (v == nullptr) return kExitUsage;
      command = *v;
      have_command = true;
    } else if (arg == "--exit-code") {
      const std::string* v = value("--exit-code");
      int code;
      if (v == nullptr || !absl::SimpleAtoi(*v, &code)) {
        Error("--exit-code needs an integer");
        return kExitUsage;
      }
      exit_code = code;
    } else if (arg == "--json") {
      flags.json = true;
    } else if (arg == "--shaper") {
      const std::string* v = value("--shaper");
      if (v == nullptr) return kExitUsage;
      flags.shaper = *v;
    } else {
      Error(StrCat("shape: unknown argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    }
  }
  if (!have_command) {
    Error(StrCat("shape: --command is required\n\n", kUsage));
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  // Standard input goes through the same bounded path as `plugline run`'s output: to the raw
  // file and the shaping window as it is read.
  std::unique_ptr<OutputCapture> capture = (*host)->StartCapture();
  absl::Status read = ReadInChunks(STDIN_FILENO, "standard input", [&](std::string_view chunk) {
    capture->Append(chunk);
    return true;
  });
  if (!read.ok()) {
    Error(StrCat("shape: ", read.message()));
    return 1;
  }
  absl::StatusOr<ShapeResult> shaped = capture->Finish(command, exit_code, flags.shaper);
  if (!shaped.ok()) {
    Error(ToStd(shaped.status().message()));
    return kExitUsage;
  }
  PrintResult(*shaped, flags);
  capture.reset();
  AbandonHost(*std::move(host));
  return 0;
}

int Stats(const std::vector<std::string>& args) {
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else {
      Error(StrCat("stats: unknown argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    }
  }
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  absl::StatusOr<std::string> stats = (*host)->StatsJson();
  PrintNewDiagnostics(**host);
  if (!stats.ok()) {
    Error(ToStd(stats.status().message()));
    return 1;
  }
  if (json) {
    WriteAll(STDOUT_FILENO, StrCat(*stats, "\n"));
    return 0;
  }
  absl::StatusOr<core::Value> value = core::ParseJson(*stats, "stats");
  const core::Value* shapers = value.ok() ? value->Find("shapers") : nullptr;
  if (shapers == nullptr || !shapers->is_object() || shapers->as_object().empty()) {
    WriteAll(STDOUT_FILENO, StrCat("no statistics yet (", (*host)->home(), "/stats.json)\n"));
    return 0;
  }
  auto number = [](const core::Value& s, std::string_view key) {
    const core::Value* v = s.Find(key);
    return v != nullptr && v->is_number() ? v->as_number() : 0.0;
  };
  std::string table = absl::StrFormat("%-22s %8s %8s %6s %14s %8s\n", "shaper", "matches",
                                      "shapes", "fails", "tokens saved", "avg ms");
  for (const auto& [id, s] : shapers->as_object()) {
    double saved = number(s, "tokens_saved");
    std::string saved_text = core::FormatCount(static_cast<uint64_t>(saved < 0 ? -saved : saved));
    if (saved < 0) saved_text = "-" + saved_text;
    StrAppend(&table, absl::StrFormat("%-22s %8s %8s %6s %14s %8.2f\n", id,
                                      core::FormatCount(static_cast<uint64_t>(number(s, "match_count"))),
                                      core::FormatCount(static_cast<uint64_t>(number(s, "shape_count"))),
                                      core::FormatCount(static_cast<uint64_t>(number(s, "fail_count"))),
                                      saved_text, number(s, "average_shape_ms")));
  }
  WriteAll(STDOUT_FILENO, table);
  return 0;
}

int Plugins(const std::vector<std::string>& args) {
  bool json = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else {
      Error(StrCat("plugins: unknown argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    }
  }
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  std::string listing = (*host)->PluginsJson();
  if (json) {
    WriteAll(STDOUT_FILENO, StrCat(listing, "\n"));
    return 0;
  }
  absl::StatusOr<core::Value> plugins = core::ParseJson(listing, "plugins");
  if (!plugins.ok()) {
    Error(ToStd(plugins.status().message()));
    return 1;
  }
  // Statistics are optional here: a corrupt stats file must not hide the listing.
  absl::StatusOr<std::string> stats_json = (*host)->StatsJson();
  absl::StatusOr<core::Value> stats =
      stats_json.ok() ? core::ParseJson(*stats_json, "stats") : stats_json.status();
  const core::Value* shapers = stats.ok() ? stats->Find("shapers") : nullptr;
  // Ids, reasons and warnings come from plugins (and their file names): control characters are
  // escaped before they reach the terminal.
  auto text = [](const core::Value& v, std::string_view key) -> std::string {
    const core::Value* f = v.Find(key);
    return f != nullptr && f->is_string() ? core::EscapeControl(f->as_string()) : std::string("-");
  };
  auto count = [&](std::string_view id, std::string_view key) -> std::string {
    const core::Value* s = shapers != nullptr ? shapers->Find(id) : nullptr;
    const core::Value* v = s != nullptr ? s->Find(key) : nullptr;
    if (v == nullptr || !v->is_number()) return "0";
    double n = v->as_number();
    std::string formatted = core::FormatCount(static_cast<uint64_t>(n < 0 ? -n : n));
    return n < 0 ? "-" + formatted : formatted;
  };
  std::string table = absl::StrFormat("%-22s %-15s %-10s %-9s %8s %8s %13s\n", "id", "kind",
                                      "tier", "state", "matches", "shapes", "tokens saved");
  std::string problems;
  std::string hooks;
  for (const core::Value& p : plugins->Find("plugins")->as_array()) {
    std::string id = text(p, "id");
    std::string state = text(p, "state");
    if (const core::Value* events = p.Find("events");
        events != nullptr && events->is_array() && state == "enabled") {
      std::vector<std::string> names;
      for (const core::Value& e : events->as_array()) {
        if (e.is_string()) names.push_back(core::EscapeControl(e.as_string()));
      }
      if (!names.empty()) {
        StrAppend(&hooks, absl::StrFormat("  %-22s %s\n", id, absl::StrJoin(names, ", ")));
      }
    }
    StrAppend(&table, absl::StrFormat("%-22s %-15s %-10s %-9s %8s %8s %13s\n", id,
                                      text(p, "kind"), text(p, "tier"), state,
                                      count(id, "match_count"), count(id, "shape_count"),
                                      count(id, "tokens_saved")));
    if (state != "enabled") {
      StrAppend(&problems, "\n", id, " (", state, "): ", text(p, "path"), "\n  ",
                text(p, "reason"), "\n");
    }
    if (const core::Value* warnings = p.Find("warnings");
        warnings != nullptr && warnings->is_array()) {
      for (const core::Value& warning : warnings->as_array()) {
        if (!warning.is_string()) continue;
        StrAppend(&problems, "\n", id, " (warning): ", core::EscapeControl(warning.as_string()),
                  "\n");
      }
    }
  }
  if (!hooks.empty()) hooks = StrCat("\nhooks (plugline hook EVENT):\n", hooks);
  WriteAll(STDOUT_FILENO, StrCat(table, hooks, problems));
  PrintNewDiagnostics(**host);
  return 0;
}

constexpr int kExitDenied = 3;
// `plugline hook` reads at most this much payload (docs/hooks.md).
constexpr size_t kMaxPayloadBytes = 16u << 20;

int Hook(const std::vector<std::string>& args) {
  std::string event;
  std::string payload_file = "-";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--payload") {
      if (i + 1 >= args.size()) {
        Error("--payload needs a file name (- for standard input)");
        return kExitUsage;
      }
      payload_file = args[++i];
    } else if (arg.starts_with("--payload=")) {
      payload_file = arg.substr(std::string_view("--payload=").size());
    } else if (arg.starts_with("-") && arg != "-") {
      Error(StrCat("hook: unknown option ", arg, "\n\n", kUsage));
      return kExitUsage;
    } else if (event.empty()) {
      event = arg;
    } else {
      Error(StrCat("hook: unexpected argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    }
  }
  if (event.empty()) {
    Error(StrCat("hook: no event given\n\n", kUsage));
    return kExitUsage;
  }
  const std::string source = payload_file == "-" ? "standard input" : payload_file;
  int fd = STDIN_FILENO;
  if (payload_file != "-") {
    fd = ::open(payload_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      Error(StrCat("hook: ",
                   core::ErrnoToStatus(errno, StrCat("cannot open ", payload_file)).message()));
      return 1;
    }
  }
  // A payload is one JSON object; one larger than this is refused, not read without end.
  absl::StatusOr<std::string> read = ReadAtMost(fd, source, kMaxPayloadBytes);
  if (fd != STDIN_FILENO) ::close(fd);
  if (!read.ok()) {
    Error(StrCat("hook: ", read.status().message()));
    return absl::IsResourceExhausted(read.status()) ? kExitUsage : 1;
  }
  std::string payload = *std::move(read);
  // Nothing at all is an empty payload: `plugline hook session_start </dev/null`.
  if (payload.find_first_not_of(" \t\r\n") == std::string::npos) payload = "{}";
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  absl::StatusOr<DispatchResult> result = (*host)->Dispatch(event, payload);
  if (!result.ok()) {
    Error(StrCat("hook: the payload (", source, "): ", result.status().message()));
    return kExitUsage;
  }
  WriteAll(STDOUT_FILENO, StrCat(result->ToJson(), "\n"));
  // Plugin text on the terminal: control characters escaped (the JSON above escapes its own).
  using core::EscapeControl;
  for (const DispatchResult::Warning& warning : result->warnings) {
    Error(warning.plugin.empty()
              ? StrCat("warning: ", EscapeControl(warning.text))
              : StrCat("warning: plugin ", EscapeControl(warning.plugin), ": ",
                       EscapeControl(warning.text)));
  }
  for (const DispatchResult::Skipped& skipped : result->skipped) {
    Error(StrCat("note: plugin ", EscapeControl(skipped.plugin), " skipped: ",
                 EscapeControl(skipped.detail)));
  }
  AbandonHost(*std::move(host));
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

int Trigger(const std::vector<std::string>& args) {
  NamedArgs parsed = ParseNamed(args, {"input", "output"}, true);
  if (!parsed.error.empty()) {
    Error(StrCat("trigger: ", parsed.error, "\n\n", kUsage));
    return kExitUsage;
  }
  const std::string* input = parsed.Get("input");
  const std::string* output = parsed.Get("output");
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  absl::StatusOr<TriggerResult> result = (*host)->Trigger(
      parsed.positional, input != nullptr ? *input : "{}", output != nullptr ? *output : "{}");
  if (!result.ok()) {
    Error(StrCat("trigger: ", result.status().message()));
    return kExitUsage;
  }
  WriteAll(STDOUT_FILENO, StrCat(result->ToJson(), "\n"));
  AbandonHost(*std::move(host));
  return 0;
}

int Tools(const std::vector<std::string>& args) {
  NamedArgs parsed = ParseNamed(args, {"json"}, false);
  if (!parsed.error.empty()) {
    Error(StrCat("tools: ", parsed.error, "\n\n", kUsage));
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  std::string listing = (*host)->ToolsJson();
  if (parsed.Get("json") != nullptr) {
    WriteAll(STDOUT_FILENO, StrCat(listing, "\n"));
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
    WriteAll(STDOUT_FILENO, table);
  }
  AbandonHost(*std::move(host));
  return 0;
}

int Tool(const std::vector<std::string>& args) {
  NamedArgs parsed = ParseNamed(args, {"args", "context"}, true);
  if (!parsed.error.empty()) {
    Error(StrCat("tool: ", parsed.error, "\n\n", kUsage));
    return kExitUsage;
  }
  const std::string* tool_args = parsed.Get("args");
  const std::string* context = parsed.Get("context");
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  std::string default_context = "{}";
  if (context == nullptr) {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) != nullptr) {
      core::JsonWriter w;
      w.BeginObject().Key("directory").String(cwd).EndObject();
      default_context = w.Take();
    }
  }
  absl::StatusOr<std::string> result = (*host)->ExecuteTool(
      parsed.positional, tool_args != nullptr ? *tool_args : "{}",
      context != nullptr ? *context : default_context);
  if (!result.ok()) {
    Error(StrCat("tool: ", result.status().message()));
    return absl::IsNotFound(result.status()) ? 1 : kExitUsage;
  }
  WriteAll(STDOUT_FILENO, StrCat(*result, "\n"));
  AbandonHost(*std::move(host));
  return result->find("\"ok\":true") != std::string::npos ? 0 : 1;
}

// A file name as the terminal should show it: a repository may name a file with a newline or
// an escape sequence in it, which would otherwise forge or hide lines of the listing.
std::string Printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      out += absl::StrFormat("\\x%02x", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// `plugline trust [--show|--revoke|--list] [DIR]`; `untrust DIR` is `trust --revoke DIR`.
int Trust(const std::vector<std::string>& args, bool revoke) {
  enum class Mode { kTrust, kShow, kRevoke, kList } mode = revoke ? Mode::kRevoke : Mode::kTrust;
  std::string dir;
  for (const std::string& arg : args) {
    if (arg == "--show" && mode == Mode::kTrust) {
      mode = Mode::kShow;
    } else if (arg == "--revoke" && mode == Mode::kTrust) {
      mode = Mode::kRevoke;
    } else if (arg == "--list" && mode == Mode::kTrust) {
      mode = Mode::kList;
    } else if (arg.starts_with("-") || !dir.empty()) {
      Error(StrCat("trust: unexpected argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    } else {
      dir = arg;
    }
  }
  if (mode == Mode::kList && !dir.empty()) {
    Error(StrCat("trust: --list takes no directory\n\n", kUsage));
    return kExitUsage;
  }
  absl::StatusOr<std::string> home = core::ResolveHome("");
  if (!home.ok()) {
    Error(ToStd(home.status().message()));
    return 1;
  }
  if (dir.empty()) {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) {
      Error("trust: cannot tell the current directory; name the project");
      return kExitUsage;
    }
    dir = cwd;
  }
  core::TrustStore store(*home);
  std::vector<std::string> warnings;
  auto flush_warnings = [&warnings] {
    for (const std::string& w : warnings) Error(StrCat("warning: ", w));
    warnings.clear();
  };
  auto listing = [](const std::vector<core::ContentFile>& files, std::string_view mark) {
    std::string out;
    for (const core::ContentFile& file : files) {
      StrAppend(&out, mark, file.sha256, "  ", Printable(file.path), "\n");
    }
    return out;
  };
  switch (mode) {
    case Mode::kList: {
      absl::StatusOr<std::vector<core::TrustStore::Record>> records = store.List(&warnings);
      flush_warnings();
      if (!records.ok()) {
        Error(StrCat("trust: ", records.status().message()));
        return 1;
      }
      if (records->empty()) {
        WriteAll(STDOUT_FILENO, StrCat("no trusted projects (", store.path(), ")\n"));
        return 0;
      }
      std::string out;
      for (const core::TrustStore::Record& r : *records) {
        StrAppend(&out, Printable(r.project), "  trusted ", r.trusted_at, ", ",
                  r.files.size(), r.files.size() == 1 ? " file" : " files", ", digest ", r.digest,
                  "\n");
      }
      WriteAll(STDOUT_FILENO, out);
      return 0;
    }
    case Mode::kRevoke: {
      absl::Status revoked = store.Revoke(dir, &warnings);
      flush_warnings();
      if (!revoked.ok()) {
        Error(StrCat("trust --revoke: ", revoked.message()));
        return 1;
      }
      WriteAll(STDOUT_FILENO, StrCat("no longer trusted: ", dir, "\n"));
      return 0;
    }
    case Mode::kShow:
    case Mode::kTrust:
      break;
  }
  const std::string project = core::EffectiveProjectDir(*home, dir);
  if (project.empty()) {
    if (!core::IsDirectory(dir)) {
      Error(StrCat("trust: ", dir, " is not a directory"));
      return 1;
    }
    WriteAll(STDOUT_FILENO, StrCat(dir, "/.plugline is plugline's home (", *home,
                                   "): its config and plugins are your own and need no trust\n"));
    return 0;
  }
  if (mode == Mode::kShow) {
    core::TrustCheck check = store.Check(project, &warnings);
    flush_warnings();
    std::string out = StrCat("project ", Printable(project), ": ");
    switch (check.state) {
      case core::TrustState::kNothingToTrust:
        StrAppend(&out, "nothing to trust (no .plugline/config.yaml, no .plugline/plugins/)\n");
        WriteAll(STDOUT_FILENO, out);
        return 0;
      case core::TrustState::kUnknown:
        Error(StrCat("trust --show: ", check.problem));
        return 1;
      case core::TrustState::kTrusted:
        StrAppend(&out, "trusted since ", check.trusted_at, "\n");
        break;
      case core::TrustState::kUntrusted:
        StrAppend(&out, "not trusted\n");
        break;
      case core::TrustState::kChanged:
        StrAppend(&out, "changed since it was trusted at ", check.trusted_at,
                  " (+ added, ~ changed, - removed)\n");
        break;
    }
    auto has = [](const std::vector<std::string>& paths, const std::string& path) {
      return std::find(paths.begin(), paths.end(), path) != paths.end();
    };
    for (const core::ContentFile& file : check.content.files) {
      std::string_view mark = has(check.added, file.path)     ? "+ "
                              : has(check.changed, file.path) ? "~ "
                                                              : "  ";
      StrAppend(&out, listing({file}, mark));
    }
    for (const std::string& path : check.removed) {
      StrAppend(&out, "- ", Printable(path), "\n");
    }
    StrAppend(&out, check.content.files.size(), check.content.files.size() == 1 ? " file" : " files",
              ", digest ", check.content.digest, "\n");
    if (check.state != core::TrustState::kTrusted) {
      StrAppend(&out, "to let these load: plugline trust ", ShellQuote(project), "\n");
    }
    WriteAll(STDOUT_FILENO, out);
    return 0;
  }
  absl::StatusOr<core::ProjectContent> trusted = store.Trust(project, &warnings);
  flush_warnings();
  if (!trusted.ok()) {
    Error(StrCat("trust: ", trusted.status().message()));
    return 1;
  }
  WriteAll(STDOUT_FILENO,
           StrCat("trusted ", Printable(trusted->project), " (",
                  trusted->files.size(), trusted->files.size() == 1 ? " file" : " files",
                  ", digest ", trusted->digest, "):\n", listing(trusted->files, "  "),
                  "a protected global plugin still cannot be disabled or replaced by it; "
                  "`plugline trust --revoke` undoes this\n"));
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    WriteAll(args.empty() ? STDERR_FILENO : STDOUT_FILENO, kUsage);
    return args.empty() ? kExitUsage : 0;
  }
  std::string subcommand = args[0];
  args.erase(args.begin());
  if (subcommand == "run") return Run(args);
  if (subcommand == "shape") return Shape(args);
  if (subcommand == "stats") return Stats(args);
  if (subcommand == "plugins") return Plugins(args);
  if (subcommand == "hook") return Hook(args);
  if (subcommand == "trigger") return Trigger(args);
  if (subcommand == "tools") return Tools(args);
  if (subcommand == "tool") return Tool(args);
  if (subcommand == "trust") return Trust(args, false);
  if (subcommand == "untrust") return Trust(args, true);
  if (subcommand == "server") return ServerCommand(args);
  if (subcommand == "version" || subcommand == "--version") {
    WriteAll(STDOUT_FILENO, StrCat("plugline ", VersionString(), "\n"));
    return 0;
  }
  Error(StrCat("unknown command '", subcommand, "'\n\n", kUsage));
  return kExitUsage;
}

}  // namespace
}  // namespace plugline::cli

int main(int argc, char** argv) {
  int rc = plugline::cli::Main(argc, argv);
  // Skip static destructors: a loaded V8 backend (libnode) would otherwise tear down its
  // process-wide state while its threads still run. Output is written with write(2);
  // stdio is flushed here.
  std::fflush(nullptr);
  ::_exit(rc);
}
