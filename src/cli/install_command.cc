#include "cli/install_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agents/install.h"
#include "cli/cli_io.h"
#include "core/fs.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "exec/process.h"

namespace plugline::cli {
namespace {

constexpr std::string_view kInstallUsage =
    "usage: plugline install --agent AGENT [--project] [--dry-run] [--uninstall]\n"
    "  AGENT: claude-code, codex, gemini, cursor, copilot, opencode (plugline's OpenCode plugin)\n"
    "  --project    the project's settings (in this directory) instead of your own\n"
    "  --dry-run    print what would change (a diff), change nothing\n"
    "  --uninstall  take out exactly what install added\n";

// `diff -u` of the file as it is and as it would be.
int PrintDiff(const std::string& path, const std::string& before, const std::string& after) {
  char dir_template[] = "/tmp/plugline-install-XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  if (dir == nullptr) {
    Error(StrCat("install: cannot make a temporary folder: ", std::strerror(errno)));
    return 1;
  }
  const std::string old_file = core::JoinPath(dir, "before");
  const std::string new_file = core::JoinPath(dir, "after");
  absl::Status written = core::WriteFileAtomic(old_file, before, core::Durability::kNone);
  if (written.ok()) written = core::WriteFileAtomic(new_file, after, core::Durability::kNone);
  int status = 1;
  if (written.ok()) {
    exec::ProcessSpec spec;
    spec.argv = {"diff", "-u", "--label", StrCat(path, " (now)"), "--label",
                 StrCat(path, " (after install)"), old_file, new_file};
    absl::StatusOr<exec::ProcessResult> diff = exec::RunProcess(spec);
    if (diff.ok()) {
      WriteAll(STDOUT_FILENO, diff->output);
      status = 0;
    } else {
      Error(StrCat("install: diff: ", diff.status().message()));
    }
  } else {
    Error(StrCat("install: ", written.message()));
  }
  ::unlink(old_file.c_str());
  ::unlink(new_file.c_str());
  ::rmdir(dir);
  return status;
}

}  // namespace

int InstallCommand(const std::vector<std::string>& args) {
  std::string agent_name;
  bool project = false, dry_run = false, uninstall = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--agent" && i + 1 < args.size()) {
      agent_name = args[++i];
    } else if (arg.starts_with("--agent=")) {
      agent_name = arg.substr(8);
    } else if (arg == "--project") {
      project = true;
    } else if (arg == "--dry-run") {
      dry_run = true;
    } else if (arg == "--uninstall") {
      uninstall = true;
    } else {
      Error(StrCat("install: unexpected argument ", core::EscapeControl(arg), "\n\n", kInstallUsage));
      return kExitUsage;
    }
  }
  if (agent_name.empty()) {
    Error(StrCat("install: which agent? (--agent)\n\n", kInstallUsage));
    return kExitUsage;
  }
  absl::StatusOr<agents::Agent> agent = agents::AgentNamed(agent_name);
  if (!agent.ok()) {
    Error(StrCat("install: ", agent.status().message()));
    return kExitUsage;
  }
  const char* home = std::getenv("HOME");
  const char* codex_home = std::getenv("CODEX_HOME");
  const char* config_home = std::getenv("XDG_CONFIG_HOME");
  if (!project && (home == nullptr || *home == '\0')) {
    Error("install: HOME is not set: where are your settings?");
    return 1;
  }
  const std::string path = agents::HookSettingsPath(*agent, project, home != nullptr ? home : "",
                                                    CurrentDir(),
                                                    codex_home != nullptr ? codex_home : "",
                                                    config_home != nullptr ? config_home : "");
  std::string existing;
  const bool exists = core::PathExists(path);
  if (exists) {
    absl::StatusOr<std::string> read = core::ReadFile(path, 16u << 20);
    if (!read.ok()) {
      Error(StrCat("install: ", read.status().message()));
      return 1;
    }
    existing = *std::move(read);
  }
  absl::StatusOr<agents::SettingsChange> change =
      uninstall ? agents::UninstallHooks(*agent, existing, path)
                : agents::InstallHooks(*agent, SelfPath(), existing, path);
  if (!change.ok()) {
    Error(StrCat("install: ", change.status().message()));
    return 1;
  }
  const std::string_view name = agents::AgentName(*agent);
  if (!change->changed || (uninstall && change->events.empty())) {
    WriteAll(STDOUT_FILENO, uninstall ? StrCat(path, ": no plugline hooks for ", name, "; nothing to do\n")
                                      : StrCat(path, ": plugline's hooks for ", name,
                                               " are already there; nothing to do\n"));
    return 0;
  }
  if (dry_run) return PrintDiff(path, existing, change->text);
  const bool plugin_file = *agent == agents::Agent::kOpenCode;
  std::string backup;
  if (exists) {
    const std::string stem = StrCat(path, ".plugline-backup-",
                                    absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone()));
    backup = stem;
    for (int n = 1; core::PathExists(backup); ++n) backup = StrCat(stem, "-", n);  // never over one
    absl::Status saved = core::WriteFileAtomic(backup, existing);
    if (!saved.ok()) {
      Error(StrCat("install: cannot keep a backup, nothing was changed: ", saved.message()));
      return 1;
    }
  }
  if (change->remove_file) {
    if (::unlink(path.c_str()) != 0) {
      Error(StrCat("install: cannot remove ", path, ": ", std::strerror(errno)));
      return 1;
    }
  } else {
    absl::Status made = core::MakeDirs(path.substr(0, path.rfind('/')));
    absl::Status written = made.ok() ? core::WriteFileAtomic(path, change->text) : made;
    if (!written.ok()) {
      Error(StrCat("install: ", written.message()));
      return 1;
    }
  }
  std::string said;
  if (plugin_file) {
    said = StrCat(uninstall ? "removed plugline's OpenCode plugin " : "added plugline's OpenCode plugin ",
                  "(", absl::StrJoin(change->events, ", "), ") ", uninstall ? "from " : "to ", path);
  } else {
    said = StrCat(uninstall ? "took plugline's hook out of " : "added plugline's hook to ",
                  change->events.size(), change->events.size() == 1 ? " event" : " events",
                  " of ", name, " in ", path);
  }
  if (!backup.empty()) said += StrCat(" (the file as it was: ", backup, ")");
  said += "\n";
  if (!uninstall && !agents::AfterInstall(*agent).empty()) {
    said += StrCat("still to do by hand: ", agents::AfterInstall(*agent), "\n");
  }
  WriteAll(STDOUT_FILENO, said);
  return 0;
}

}  // namespace plugline::cli
