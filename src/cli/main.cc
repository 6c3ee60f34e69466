// The plugline command-line tool.
#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <thread>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
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
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/remote.h"
#include "cli/usage.h"
#include "core/host_internal.h"
#include "core/output_capture.h"
#include "core/tokens.h"
#include "cli/install_command.h"
#include "cli/server_command.h"
#include "cli/stats_report.h"
#include "exec/process.h"
#include "plugline/host.h"
#include "server/client.h"

namespace plugline::cli {
namespace {

constexpr int kExitNotFound = 127;
constexpr int kExitNotExecutable = 126;
// `plugline run` shows a progress line on a terminal once a command has run this long.
constexpr absl::Duration kProgressAfter = absl::Seconds(2);

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

// The host of this process for the current directory; `opened`, when given, is one that
// deciding where to run already made.
absl::StatusOr<std::unique_ptr<Host>> OpenHost(std::unique_ptr<Host> opened = nullptr) {
  absl::StatusOr<std::unique_ptr<Host>> host = std::move(opened);
  if (*host == nullptr) host = OpenHostFor(CurrentDir());
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

// Whether the server may run this command: what goes over the wire is JSON text, so an
// argument or directory that is not UTF-8 keeps the command in this process.
bool WireSafe(const std::vector<std::string>& args, const std::string& cwd) {
  if (cwd.empty() || !core::IsValidUtf8(cwd)) return false;
  return std::all_of(args.begin(), args.end(),
                     [](const std::string& arg) { return core::IsValidUtf8(arg); });
}

// Where a command that loads plugins runs: a server, or (nullopt) this process, with the host
// deciding opened in `*local`.
std::optional<Remote> ChooseRemote(const std::vector<std::string>& args, std::string* cwd,
                                   std::unique_ptr<Host>* local) {
  *cwd = CurrentDir();
  absl::StatusOr<std::string> home = core::ResolveHome("");
  if (!home.ok() || !WireSafe(args, *cwd)) return std::nullopt;
  return Remote::Choose(*home, *cwd, local);
}

// The token counter for an output captured here and shaped in a server: the one it names.
const core::TokenCounter* CaptureCounter(const core::CaptureSettings& settings) {
  absl::StatusOr<std::string> home = core::ResolveHome("");
  return core::DefaultTokenCounter(settings.tokenizer, home.ok() ? *home : std::string());
}

void FallBack(const absl::Status& why) {
  if (absl::IsCancelled(why)) return;  // `server: never`: in-process is what was asked for
  absl::StatusOr<std::string> home = core::ResolveHome("");
  if (home.ok()) NoteFallback(*home, why);
}

// A server to shape an output this command captures, and how to capture it there; nullopt
// to capture and shape in-process (with the host deciding opened in `*local`).
struct RemoteCapture {
  Remote remote;
  core::CaptureSettings settings;
};
std::optional<RemoteCapture> ChooseRemoteCapture(const std::vector<std::string>& args,
                                                 std::unique_ptr<Host>* local) {
  std::string cwd;
  std::optional<Remote> remote = ChooseRemote(args, &cwd, local);
  if (!remote) return std::nullopt;
  absl::StatusOr<core::CaptureSettings> settings = remote->CaptureSettings();
  if (!settings.ok()) {
    FallBack(settings.status());
    return std::nullopt;
  }
  return RemoteCapture{*std::move(remote), *std::move(settings)};
}

// Shapes an output this process captured: in the server, or here when the server fails.
int ShapeCaptured(Remote& remote, bool run, const std::string& command,
                  std::optional<int> exit_code, const ShapeFlags& flags,
                  const core::CapturedOutput& captured) {
  absl::StatusOr<int> shown = remote.Shape(run, command, exit_code, flags, captured);
  if (shown.ok()) return run ? exit_code.value_or(0) : *shown;
  FallBack(shown.status());
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(StrCat("warning: ", host.status().message(), "; showing the output unshaped"));
    WriteAll(STDOUT_FILENO, captured.text);
    return run ? exit_code.value_or(0) : 1;
  }
  FdOutput io;
  const int status = ShapeAndPrint(
      io,
      [&](std::string_view shaper) {
        return internal::HostAccess::ShapeCaptured(**host, command, exit_code, shaper, captured,
                                                   /*queue_stats=*/false, flags.max_tokens);
      },
      flags, run, run ? exit_code.value_or(0) : 0);
  AbandonHost(*std::move(host));
  return status;
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
    } else if (arg == "--max-tokens") {
      if (++i == args.size() || !ParseMaxTokens(args[i], &flags)) return kExitUsage;
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

  // With a server, this process captures the output (raw file and window, as the server's
  // host would) and the server shapes it; the command itself is this process's child either way.
  // The server is asked how to capture before the command starts and answers while it starts:
  // the answer is read once the child exists, before any of its output is.
  std::unique_ptr<Host> local;
  std::optional<Remote> remote;
  if (!raw) {
    std::string cwd;
    remote = ChooseRemote({}, &cwd, &local);
    if (remote) {
      absl::Status asked = remote->RequestCaptureSettings();
      if (!asked.ok()) {
        FallBack(asked);
        remote.reset();
      }
    }
  }
  std::unique_ptr<core::RawCapture> remote_capture;

  // In-process, plugins load while the command runs (V8 and one isolate per JS plugin take a
  // while), so a command that runs longer than that pays nothing for them. Started once the
  // child exists, so no descriptor the loader opens can leak into it.
  absl::StatusOr<std::unique_ptr<Host>> host = absl::UnavailableError("not opened");
  std::unique_ptr<OutputCapture> capture;
  std::thread preload;
  auto open_local = [&] {
    host = OpenHost(std::move(local));
    if (host.ok()) {
      capture = (*host)->StartCapture();
    } else {
      // Without a state directory nothing can be stored, so nothing is elided.
      Error(StrCat("warning: ", host.status().message(), "; showing the output unshaped"));
    }
  };
  if (!raw && !remote) open_local();
  spec.on_spawn = [&](int) {
    if (remote) {
      absl::StatusOr<core::CaptureSettings> settings = remote->CaptureSettings();
      if (settings.ok()) {
        remote_capture = std::make_unique<core::RawCapture>(
            *settings, CaptureCounter(*settings));
        remote_capture->DeferPruning();  // the server prunes the store once it has answered
      } else {
        FallBack(settings.status());
        remote.reset();
        open_local();
      }
    }
    if (capture != nullptr) {
      Host* opened = host->get();
      preload = std::thread([opened] { opened->Preload(); });
    }
  };
  // Where the output goes is known once the child exists (on_spawn runs before any output).
  spec.on_output = [&](std::string_view chunk) {
    if (remote_capture != nullptr) {
      remote_capture->Append(chunk);
    } else if (capture != nullptr) {
      capture->Append(chunk);
    } else {
      // No shaping: the output streams through as it arrives.
      WriteAll(STDOUT_FILENO, chunk);
    }
  };
  // Lines captured so far; nullopt while the output streams through.
  auto lines_seen = [&]() -> std::optional<uint64_t> {
    if (remote_capture != nullptr) return remote_capture->lines();
    if (capture != nullptr) return capture->lines();
    return std::nullopt;
  };
  bool progress_shown = false;
  if (!raw && ::isatty(STDERR_FILENO)) {
    // A person is watching: after a few seconds, show that the command is alive and how
    // much it has printed, on one line of stderr that is rewritten in place.
    spec.tick_interval = absl::Seconds(1);
    spec.on_tick = [&](absl::Duration elapsed) {
      const std::optional<uint64_t> seen = lines_seen();
      if (elapsed < kProgressAfter || !seen) return;
      progress_shown = true;
      const uint64_t lines = *seen;
      WriteAll(STDERR_FILENO,
               StrCat("\rplugline: running ", spec.argv[0], " — ", absl::ToInt64Seconds(elapsed),
                      "s, ", core::FormatCount(lines), lines == 1 ? " line" : " lines",
                      " so far\x1b[K"));
    };
  }
  absl::StatusOr<exec::ProcessResult> result = exec::RunProcess(spec);
  if (preload.joinable()) preload.join();
  if (progress_shown) WriteAll(STDERR_FILENO, "\r\x1b[K");  // clear the progress line
  if (!result.ok()) {
    Error(ToStd(result.status().message()));
    return absl::IsNotFound(result.status()) ? kExitNotFound : kExitNotExecutable;
  }
  const int exit_code = result->ShellExitCode();
  if (remote_capture != nullptr) {
    return ShapeCaptured(*remote, /*run=*/true, command, exit_code, flags,
                         remote_capture->Take());
  }
  if (capture == nullptr) return exit_code;

  FdOutput io;
  ShapeAndPrint(
      io,
      [&](std::string_view shaper) {
        return capture->Finish(command, exit_code, shaper, flags.max_tokens);
      },
      flags, /*run=*/true, exit_code);
  capture.reset();
  AbandonHost(*std::move(host));
  return exit_code;
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
    } else if (arg == "--max-tokens") {
      const std::string* v = value("--max-tokens");
      if (v == nullptr || !ParseMaxTokens(*v, &flags)) return kExitUsage;
    } else {
      Error(StrCat("shape: unknown argument ", arg, "\n\n", kUsage));
      return kExitUsage;
    }
  }
  if (!have_command) {
    Error(StrCat("shape: --command is required\n\n", kUsage));
    return kExitUsage;
  }
  std::unique_ptr<Host> local;
  if (std::optional<RemoteCapture> remote = ChooseRemoteCapture(args, &local)) {
    // Standard input is captured here (raw file and window) and shaped in the server.
    core::RawCapture capture(remote->settings,
                             CaptureCounter(remote->settings));
    capture.DeferPruning();
    absl::Status read = ReadInChunks(STDIN_FILENO, "standard input", [&](std::string_view chunk) {
      capture.Append(chunk);
      return true;
    });
    if (!read.ok()) {
      Error(StrCat("shape: ", read.message()));
      return 1;
    }
    return ShapeCaptured(remote->remote, /*run=*/false, command, exit_code, flags, capture.Take());
  }
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost(std::move(local));
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
  FdOutput io;
  const int status = ShapeAndPrint(
      io,
      [&](std::string_view shaper) {
        return capture->Finish(command, exit_code, shaper, flags.max_tokens);
      },
      flags, /*run=*/false, 0);
  if (status != 0) return status;
  capture.reset();
  AbandonHost(*std::move(host));
  return 0;
}

// What a command reads from standard input or a file: `plugline hook ARGS` its payload ("-",
// standard input, or the --payload file); `plugline trigger NAME --input -` (or --output -)
// standard input; nullopt for the rest.
std::optional<std::string> InputSource(const std::string& name, const std::vector<std::string>& args) {
  if (name != "hook" && name != "trigger") return std::nullopt;
  std::optional<std::string> source;
  if (name == "hook") source = "-";
  for (size_t i = 0; i < args.size(); ++i) {
    if (name == "hook" && args[i] == "--payload" && i + 1 < args.size()) {
      source = args[++i];
    } else if (name == "hook" && args[i].starts_with("--payload=")) {
      source = args[i].substr(std::string_view("--payload=").size());
    } else if (name == "trigger" && (args[i] == "--input" || args[i] == "--output") &&
               i + 1 < args.size()) {
      if (args[++i] == "-") source = "-";
    } else if (name == "trigger" && (args[i] == "--input=-" || args[i] == "--output=-")) {
      source = "-";
    }
  }
  return source;
}

// plugins, hook, trigger, tools, tool: in the server when one serves (or is started for)
// this home, else here.
int HostCommand(const std::string& name, const std::vector<std::string>& args) {
  std::string cwd;
  std::unique_ptr<Host> local;
  std::string stdin_data;
  bool have_stdin = false;
  std::optional<Remote> remote = ChooseRemote(args, &cwd, &local);
  if (std::optional<std::string> input = InputSource(name, args); remote && input) {
    // The payload is read here, from this process's standard input or the file as this
    // process sees it: the server never opens a file a client names. One byte over the limit
    // is enough for the server to refuse it as this process would. A file that cannot be
    // opened is left to the in-process path, which says so.
    const std::string& source = *input;
    const int fd = source == "-" ? STDIN_FILENO : ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      absl::Status read = ReadInChunks(fd, source == "-" ? "standard input" : source,
                                       [&](std::string_view chunk) {
        stdin_data.append(chunk.substr(0, kMaxPayloadBytes + 1 - stdin_data.size()));
        return stdin_data.size() <= kMaxPayloadBytes;
      });
      if (fd != STDIN_FILENO) ::close(fd);
      if (!read.ok()) {
        Error(StrCat(name, ": ", read.message()));
        return 1;
      }
      have_stdin = true;
    } else {
      remote.reset();
    }
  }
  if (remote) {
    absl::StatusOr<int> status = remote->Command(name, args, have_stdin ? &stdin_data : nullptr);
    if (status.ok()) return *status;
    FallBack(status.status());
  }
  FdOutput io;
  CommandEnv env;
  env.io = &io;
  env.cwd = cwd;
  if (have_stdin) env.stdin_data = &stdin_data;
  env.open_host = [&local, &cwd]() -> absl::StatusOr<Host*> {
    if (local == nullptr) {
      absl::StatusOr<std::unique_ptr<Host>> host = OpenHostFor(cwd);
      if (!host.ok()) return host.status();
      local = *std::move(host);
    }
    return local.get();
  };
  const int status = RunHostCommand(name, args, env);
  // See AbandonHost: the process ends now.
  if (local != nullptr) {
    local->DisposePlugins();
    (void)local.release();
  }
  return status;
}

// A server records statistics right after it answers: a command that reads them waits until
// it has (nothing when no server runs).
void FlushServer() {
  absl::StatusOr<std::string> home = core::ResolveHome("");
  if (!home.ok()) return;
  absl::StatusOr<server::Client> client = server::Client::Connect(*home, absl::Seconds(1));
  if (client.ok()) (void)client->Call("{\"type\":\"flush\"}", absl::Seconds(10));
}

int Stats(const std::vector<std::string>& args) {
  bool json = false;
  std::string html;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--html" && i + 1 < args.size()) {
      html = args[++i];
    } else if (args[i].starts_with("--html=")) {
      html = args[i].substr(7);
    } else {
      Error(StrCat("stats: unknown argument ", args[i], "\n\n", kUsage));
      return kExitUsage;
    }
  }
  if (json && !html.empty()) {
    Error(StrCat("stats: --json and --html are two different outputs; choose one\n\n", kUsage));
    return kExitUsage;
  }
  FlushServer();
  absl::StatusOr<std::unique_ptr<Host>> host = OpenHost();
  if (!host.ok()) {
    Error(ToStd(host.status().message()));
    return 1;
  }
  absl::StatusOr<plugline::Stats> stats = (*host)->Stats();
  PrintNewDiagnostics(**host);
  if (!stats.ok()) {
    Error(ToStd(stats.status().message()));
    return 1;
  }
  if (json) {
    WriteAll(STDOUT_FILENO, StrCat(stats->ToJson(), "\n"));
    return 0;
  }
  if (!html.empty()) {
    const std::string path = html.starts_with("/") ? html : core::JoinPath(CurrentDir(), html);
    absl::Status written =
        core::WriteFileAtomic(path, StatsHtml(*stats, (*host)->home(), absl::Now()));
    if (!written.ok()) {
      Error(ToStd(written.message()));
      return 1;
    }
    WriteAll(STDOUT_FILENO, StrCat("wrote ", path, "\n"));
    return 0;
  }
  if (stats->shapers.empty()) {
    WriteAll(STDOUT_FILENO, StrCat("no statistics yet (", (*host)->home(), "/stats.json)\n"));
    return 0;
  }
  WriteAll(STDOUT_FILENO, StatsTable(*stats));
  return 0;
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
  core::TrustStore store(*home, core::OpenCodeLocationsOn(*home));
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

// `plugline tokens`: the counts shaping results report, for any text.
int Tokens(const std::vector<std::string>& args) {
  absl::StatusOr<std::string> home = core::ResolveHome("");
  const std::string home_dir = home.ok() ? *home : std::string();
  std::string tokenizer;
  bool json = false;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--tokenizer" && i + 1 < args.size()) {
      tokenizer = args[++i];
    } else if (args[i].starts_with("--tokenizer=")) {
      tokenizer = args[i].substr(std::string_view("--tokenizer=").size());
    } else if (args[i] != "-" && args[i].starts_with("-")) {
      Error(StrCat("tokens: unknown option ", args[i], "\n\n", kUsage));
      return kExitUsage;
    } else {
      files.push_back(args[i]);
    }
  }
  if (tokenizer.empty()) {
    // What shaping results use: config's shaping.tokenizer (the global file: a project's is
    // read only once the project is trusted, which this command does not decide).
    tokenizer = core::LoadConfig(home_dir, "", nullptr).tokenizer;
  }
  if (!core::IsKnownTokenizer(tokenizer)) {
    Error(StrCat("tokens: unknown tokenizer \"", tokenizer,
                 "\" (o200k_base, cl100k_base or estimate)"));
    return kExitUsage;
  }
  if (files.empty()) files.push_back("-");
  const core::TokenCounter* counter = core::DefaultTokenCounter(tokenizer, home_dir);
  core::JsonWriter w;
  w.BeginArray();
  std::string text_out;
  for (const std::string& file : files) {
    std::string text;
    if (file == "-") {
      absl::Status read = ReadInChunks(STDIN_FILENO, "standard input", [&](std::string_view chunk) {
        text.append(chunk);
        return true;
      });
      if (!read.ok()) {
        Error(StrCat("tokens: ", read.message()));
        return 1;
      }
    } else {
      absl::StatusOr<std::string> read = core::ReadFile(file);
      if (!read.ok()) {
        Error(StrCat("tokens: ", read.status().message()));
        return 1;
      }
      text = std::move(*read);
    }
    const uint64_t tokens = counter->Count(text);
    w.BeginObject().Key("file").String(file).Key("tokens").Int(static_cast<int64_t>(tokens));
    w.Key("bytes").Int(static_cast<int64_t>(text.size()));
    w.Key("tokenizer").String(counter->name()).EndObject();
    StrAppend(&text_out, tokens, "\t", file, "\n");
  }
  w.EndArray();
  if (std::string problem = counter->problem(); !problem.empty()) {
    Error(StrCat("tokens: warning: ", problem));
  }
  WriteAll(STDOUT_FILENO, json ? StrCat(w.Take(), "\n") : text_out);
  return 0;
}

// The plugins flags that download or change what is installed, and `plugline catalog`, run in
// plugline-catalog (src/catalog/tool_main.cc), which links libcurl and libarchive: this
// program, started for every agent hook, never maps them.
bool IsCatalogCommand(std::string_view subcommand, const std::vector<std::string>& args) {
  if (subcommand == "catalog") return true;
  if (subcommand != "plugins") return false;
  for (const std::string& arg : args) {
    for (std::string_view flag : {"--sync", "--available", "--install", "--remove"}) {
      if (arg == flag || arg.starts_with(StrCat(flag, "="))) return true;
    }
  }
  return false;
}

// Where plugline-catalog is: $PLUGLINE_CATALOG_TOOL, else beside the JS backend (bin/../lib/
// plugline/ in the build tree and when installed), else the configured libdir.
std::vector<std::string> CatalogToolCandidates() {
  if (const char* env = std::getenv("PLUGLINE_CATALOG_TOOL"); env != nullptr && *env != '\0') {
    return {env};
  }
  std::vector<std::string> paths;
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    std::string dir(buf, static_cast<size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    paths.push_back(StrCat(dir, "/../lib/", PLUGLINE_BACKEND_SUBDIR, "/plugline-catalog"));
    paths.push_back(StrCat(dir, "/../", PLUGLINE_INSTALL_LIBDIR_RELATIVE, "/",
                           PLUGLINE_BACKEND_SUBDIR, "/plugline-catalog"));
  }
  paths.push_back(StrCat(PLUGLINE_INSTALL_LIBDIR, "/", PLUGLINE_BACKEND_SUBDIR, "/plugline-catalog"));
  return paths;
}

int CatalogCommand(int argc, char** argv) {
  std::vector<std::string> tried;
  for (const std::string& path : CatalogToolCandidates()) {
    if (::access(path.c_str(), X_OK) != 0) {
      tried.push_back(path);
      continue;
    }
    argv[0] = const_cast<char*>(path.c_str());
    ::execv(path.c_str(), argv);
    tried.push_back(StrCat(path, " (", std::strerror(errno), ")"));
  }
  Error(StrCat("cannot find plugline-catalog, which runs this command; tried ",
               absl::StrJoin(tried, ", ")));
  return 1;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    WriteAll(args.empty() ? STDERR_FILENO : STDOUT_FILENO, kUsage);
    return args.empty() ? kExitUsage : 0;
  }
  std::string subcommand = args[0];
  args.erase(args.begin());
  if (IsCatalogCommand(subcommand, args)) return CatalogCommand(argc, argv);
  if (subcommand == "run") return Run(args);
  if (subcommand == "shape") return Shape(args);
  if (subcommand == "stats") return Stats(args);
  if (IsHostCommand(subcommand)) return HostCommand(subcommand, args);
  if (subcommand == "trust") return Trust(args, false);
  if (subcommand == "untrust") return Trust(args, true);
  if (subcommand == "server") return ServerCommand(args);
  if (subcommand == "install") return InstallCommand(args);
  if (subcommand == "tokens") return Tokens(args);
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
