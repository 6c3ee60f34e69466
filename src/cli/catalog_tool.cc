// plugline-catalog: the commands that download (`plugline plugins --sync`, `--available`,
// `--install`, `--remove`) and `plugline catalog build`. `plugline` runs this program for
// them (it lives beside the JS backend, in <libdir>/plugline/), so that the command every
// agent hook starts never maps libcurl, libarchive or their libraries.
//
// usage: plugline-catalog plugins --sync | --available [--tier T] [--json]
//                                | --install ID[@VERSION] | --remove ID   [--timeout SECONDS]
//        plugline-catalog catalog build DIR --base-url URL [--sign KEY.pem]
#include <unistd.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "core/digest.h"
#include "catalog/index.h"
#include "catalog/manager.h"
#include "catalog/signature.h"
#include "cli/cli_io.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::catalog {
namespace {

using core::Sha256Hex;

constexpr int kExitUsage = 2;

void Out(std::string_view text) { cli::WriteAll(STDOUT_FILENO, text); }
void Err(std::string_view text) { cli::WriteAll(STDERR_FILENO, StrCat("plugline: ", text, "\n")); }
void Err(const std::string& text) { Err(std::string_view(text)); }
void Err(const char* text) { Err(std::string_view(text)); }
void Err(absl::string_view text) { Err(ToStd(text)); }

int Usage(std::string_view problem) {
  Err(StrCat(problem, "\n\nusage: plugline plugins --sync | --available [--tier T] [--json] | "
                      "--install ID[@VERSION] | --remove ID   [--timeout SECONDS]\n"
                      "       plugline catalog build DIR --base-url URL [--sign KEY.pem]"));
  return kExitUsage;
}

std::string Age(absl::Time then) {
  if (then == absl::InfinitePast()) return "at an unknown time";
  const int64_t s = absl::ToInt64Seconds(absl::Now() - then);
  if (s < 60) return StrCat(s < 0 ? 0 : s, " seconds ago");
  if (s < 3600) return StrCat(s / 60, " minutes ago");
  if (s < 86400 * 2) return StrCat(s / 3600, " hours ago");
  return StrCat(s / 86400, " days ago");
}

// Shows download progress on a terminal.
ProgressFn TerminalProgress() {
  if (!::isatty(STDERR_FILENO)) return nullptr;
  return [](std::string_view url, uint64_t received, uint64_t total) {
    std::string line = total > 0 ? absl::StrFormat("\r%s: %s of %s", std::string(url),
                                                   core::FormatBytes(received), core::FormatBytes(total))
                                 : absl::StrFormat("\r%s: %s", std::string(url), core::FormatBytes(received));
    cli::WriteAll(STDERR_FILENO, StrCat(line, "\x1b[K"));
  };
}
void EndProgress() {
  if (::isatty(STDERR_FILENO)) cli::WriteAll(STDERR_FILENO, "\r\x1b[K");
}

struct Home {
  std::string path;
  core::Config config;
};

absl::StatusOr<Home> OpenHome() {
  absl::StatusOr<std::string> home = core::ResolveHome("");
  if (!home.ok()) return home.status();
  std::vector<std::string> diagnostics;
  Home h{*home, core::LoadConfig(*home, "", &diagnostics)};
  for (const std::string& d : diagnostics) Err(StrCat("warning: ", d));
  return h;
}

int Sync(const CatalogManager& manager) {
  if (manager.Copies().empty()) {
    Err("no catalog is configured: add `catalog: {url: ...}` to config.yaml (docs/catalog.md)");
    return 1;
  }
  int status = 0;
  std::vector<SyncReport> reports = manager.Sync(TerminalProgress());
  EndProgress();
  for (const SyncReport& report : reports) {
    for (const std::string& skipped : report.skipped) Err(StrCat("warning: ", skipped));
    if (!report.status.ok()) {
      Err(report.status.message());
      status = 1;
      continue;
    }
    Out(StrCat("catalog ", report.url, ": ", report.plugins, " plugins (",
               report.not_modified ? "not modified" : "updated",
               report.signature_verified ? ", signature verified" : "", ")\n"));
  }
  return status;
}

int Available(const CatalogManager& manager, std::string_view tier, bool json) {
  std::vector<std::string> warnings;
  Availability offer = manager.Available(tier, &warnings, TerminalProgress());
  EndProgress();
  for (const std::string& w : warnings) Err(StrCat("warning: ", w));
  if (offer.copies.empty()) {
    Err("no catalog is configured: add `catalog: {url: ...}` to config.yaml (docs/catalog.md)");
    return 1;
  }
  if (json) {
    Out(StrCat(AvailabilityJson(offer, absl::Now()), "\n"));
  } else {
    constexpr char kRow[] = "%-24s %-10s %-10s %-10s %-20s %s\n";
    std::string table = absl::StrFormat(kRow, "id", "version", "tier", "kind", "installed", "description");
    for (const Availability::Row& row : offer.rows) {
      const CatalogEntry& e = row.entry;
      std::string state = "-";
      if (row.installed.has_value()) {
        state = row.update_available ? StrCat(row.installed->version, " (newer: ", e.version, ")")
                                     : row.installed->version;
      }
      StrAppend(&table, absl::StrFormat(kRow, core::EscapeControl(e.id), core::EscapeControl(e.version),
                                        e.tier, e.kind, core::EscapeControl(state),
                                        core::EscapeControl(e.description)));
    }
    Out(table);
    for (const auto& copy : offer.copies) {
      if (copy.ok()) {
        Out(StrCat("catalog ", copy->source.url, ": synced ", Age(copy->fetched), " (",
                   copy->fetched_at, ")", copy->signature_verified ? ", signature verified" : "",
                   "\n"));
      }
    }
  }
  int status = 0;
  for (const auto& copy : offer.copies) {
    if (!copy.ok()) {
      Err(copy.status().message());
      status = 1;
    }
  }
  return status;
}

int Install(const CatalogManager& manager, std::string_view spec) {
  std::string_view id = spec, version;
  if (size_t at = spec.find('@'); at != std::string_view::npos) {
    id = spec.substr(0, at);
    version = spec.substr(at + 1);
  }
  absl::StatusOr<InstallOutcome> outcome = manager.Install(id, version, TerminalProgress());
  EndProgress();
  if (!outcome.ok()) {
    Err(StrCat("plugins --install ", core::EscapeControl(spec), ": ", outcome.status().message()));
    return 1;
  }
  const core::InstallRecord& r = outcome->record;
  const std::string verb = outcome->previous_version.empty()   ? "installed"
                           : outcome->previous_version == r.version ? "reinstalled"
                                                                    : "upgraded";
  Out(StrCat(verb, " ", id, " ",
             outcome->previous_version.empty() || outcome->previous_version == r.version
                 ? r.version
                 : StrCat(outcome->previous_version, " -> ", r.version),
             " from ", r.catalog, "\n  ", r.path, "\n  sha256 ", r.sha256, ", ",
             core::FormatCount(r.size), " bytes: checksum verified",
             r.signed_index ? ", from a signed index" : "", "; runs with isolation ",
             r.isolation, "\n"));
  return 0;
}

int Remove(const CatalogManager& manager, std::string_view id) {
  absl::StatusOr<core::InstallRecord> removed = manager.Remove(id);
  if (!removed.ok()) {
    Err(StrCat("plugins --remove ", core::EscapeControl(id), ": ", removed.status().message()));
    return 1;
  }
  Out(StrCat("removed ", id, " ", removed->version, " (", removed->path, ")\n"));
  return 0;
}

int Plugins(const std::vector<std::string>& args) {
  enum class Mode { kNone, kSync, kAvailable, kInstall, kRemove } mode = Mode::kNone;
  std::string operand, tier;
  bool json = false;
  Limits limits;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    if (size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    auto take = [&]() -> bool {
      if (!value.empty()) return true;
      if (i + 1 >= args.size()) return false;
      value = args[++i];
      return true;
    };
    Mode next = arg == "--sync" ? Mode::kSync : arg == "--available" ? Mode::kAvailable
                : arg == "--install" ? Mode::kInstall : arg == "--remove" ? Mode::kRemove
                                                                           : Mode::kNone;
    if (next != Mode::kNone) {
      if (mode != Mode::kNone) return Usage(StrCat("plugins: ", arg, " cannot be combined with another action"));
      mode = next;
      if (next == Mode::kInstall || next == Mode::kRemove) {
        if (!take()) return Usage(StrCat("plugins: ", arg, " needs a plugin id"));
        operand = value;
      }
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--tier") {
      if (!take()) return Usage("plugins: --tier needs a value");
      tier = value == "builtin" ? "built-in" : value;
      if (tier != "built-in" && tier != "community" && tier != "premium") {
        return Usage(StrCat("plugins: --tier ", core::EscapeControl(value),
                            ": a tier is built-in, community or premium"));
      }
    } else if (arg == "--timeout") {
      double seconds = 0;
      if (!take() || !absl::SimpleAtod(value, &seconds) || seconds <= 0) {
        return Usage("plugins: --timeout needs a number of seconds");
      }
      limits.timeout = absl::Seconds(seconds);
    } else {
      return Usage(StrCat("plugins: unknown argument ", core::EscapeControl(args[i])));
    }
  }
  if ((json || !tier.empty()) && mode != Mode::kAvailable) {
    return Usage("plugins: --json and --tier go with --available here");
  }
  absl::StatusOr<Home> home = OpenHome();
  if (!home.ok()) {
    Err(home.status().message());
    return 1;
  }
  CatalogManager manager(home->path, home->config.catalogs, limits);
  switch (mode) {
    case Mode::kSync:
      return Sync(manager);
    case Mode::kAvailable:
      return Available(manager, tier, json);
    case Mode::kInstall:
      return Install(manager, operand);
    case Mode::kRemove:
      return Remove(manager, operand);
    case Mode::kNone:
      break;
  }
  return Usage("plugins: expected --sync, --available, --install or --remove");
}

// catalog.yaml in DIR: {name, plugins: [{id, file, version, tier, kind, description, author,
// homepage, isolation, requires}]}; writes DIR/index.json (and DIR/index.json.sig).
int Build(const std::vector<std::string>& args) {
  std::string dir, base_url, key_path;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--base-url" && i + 1 < args.size()) {
      base_url = args[++i];
    } else if (args[i] == "--sign" && i + 1 < args.size()) {
      key_path = args[++i];
    } else if (!args[i].starts_with("-") && dir.empty()) {
      dir = args[i];
    } else {
      return Usage(StrCat("catalog build: unexpected argument ", core::EscapeControl(args[i])));
    }
  }
  if (dir.empty() || base_url.empty()) return Usage("catalog build: needs DIR and --base-url URL");
  if (!base_url.ends_with("/")) base_url += "/";
  const std::string manifest_path = core::JoinPath(dir, "catalog.yaml");
  absl::StatusOr<std::string> text = core::ReadFile(manifest_path, 4 << 20);
  if (!text.ok()) {
    Err(text.status().message());
    return 1;
  }
  absl::StatusOr<core::Value> manifest = core::ParseYaml(*text, manifest_path);
  if (!manifest.ok()) {
    Err(manifest.status().message());
    return 1;
  }
  const core::Value* plugins = manifest->is_object() ? manifest->Find("plugins") : nullptr;
  if (plugins == nullptr || !plugins->is_array()) {
    Err(StrCat(manifest_path, ": expected `plugins:`, a list of {id, file, version, kind, ...}"));
    return 1;
  }
  CatalogIndex index;
  if (const core::Value* name = manifest->Find("name"); name != nullptr && name->is_string()) {
    index.name = name->as_string();
  }
  index.generated_at = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
  int status = 0;
  const auto& items = plugins->as_array();
  for (size_t i = 0; i < items.size(); ++i) {
    const core::Value& item = items[i];
    const std::string where = StrCat(manifest_path, ": plugins[", i, "]");
    CatalogEntry e;
    e.id = item.StringMember("id");
    e.name = item.StringMember("name").empty() ? e.id : item.StringMember("name");
    e.version = item.StringMember("version");
    e.tier = item.StringMember("tier").empty() ? "community" : item.StringMember("tier");
    e.kind = item.StringMember("kind");
    e.description = item.StringMember("description");
    e.author = item.StringMember("author");
    e.homepage = item.StringMember("homepage");
    e.isolation = item.StringMember("isolation");
    const std::string file = item.StringMember("file");
    absl::StatusOr<std::string> relative = ResolveUrl(base_url, file);
    if (file.empty() || file.starts_with("/") || !relative.ok()) {
      Err(StrCat(where, ": `file` must name a file inside ", dir));
      status = 1;
      continue;
    }
    e.format =
        item.StringMember("format").empty() ? FormatOfUrl(file) : item.StringMember("format");
    absl::StatusOr<std::string> content = core::ReadFile(core::JoinPath(dir, file), uint64_t{64} << 20);
    if (!content.ok()) {
      Err(StrCat(where, ": ", content.status().message()));
      status = 1;
      continue;
    }
    e.sha256 = Sha256Hex(*content);
    e.size = content->size();
    e.url = file;
    if (absl::Status valid = ValidateEntry(e); !valid.ok()) {
      Err(StrCat(where, ": ", valid.message()));
      status = 1;
      continue;
    }
    index.plugins.push_back(std::move(e));
  }
  if (status != 0) return status;
  const std::string out_path = core::JoinPath(dir, "index.json");
  const std::string json = WriteIndex(index);
  if (absl::Status written = core::WriteFileAtomic(out_path, json); !written.ok()) {
    Err(written.message());
    return 1;
  }
  Out(StrCat("wrote ", out_path, ": ", index.plugins.size(), " plugins, served from ", base_url,
             "index.json\n"));
  if (!key_path.empty()) {
    absl::StatusOr<SigningKey> key = ReadSigningKey(key_path);
    absl::StatusOr<std::string> signature = key.ok() ? Sign(json, *key) : key.status();
    if (!signature.ok()) {
      Err(signature.status().message());
      return 1;
    }
    const std::string sig_path = StrCat(out_path, ".sig");
    if (absl::Status written = core::WriteFileAtomic(sig_path, StrCat(*signature, "\n")); !written.ok()) {
      Err(written.message());
      return 1;
    }
    Out(StrCat("wrote ", sig_path, ": signed; users add to config.yaml\n  catalog:\n    url: ",
               base_url, "index.json\n    public_key: ", key->public_base64, "\n"));
  }
  return 0;
}

}  // namespace
}  // namespace plugline::catalog

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() >= 2 && args[0] == "catalog" && args[1] == "build") {
    return plugline::catalog::Build(std::vector<std::string>(args.begin() + 2, args.end()));
  }
  if (!args.empty() && args[0] == "plugins") {
    return plugline::catalog::Plugins(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  return plugline::catalog::Usage("expected `plugins ...` or `catalog build ...`");
}
