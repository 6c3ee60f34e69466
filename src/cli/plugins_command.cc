#include "cli/plugins_command.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/usage.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/suggest.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::cli {
namespace {

constexpr std::string_view kTiers[] = {"built-in", "community", "premium"};

enum class Mode { kList, kInfo, kEnable, kDisable };

struct Flags {
  Mode mode = Mode::kList;
  std::string id;    // of --info, --enable, --disable
  std::string tier;  // --tier; "" for every tier
  bool json = false;
};

// Parses the arguments of `plugline plugins`; the message when they are wrong.
absl::StatusOr<Flags> ParseFlags(const std::vector<std::string>& args) {
  Flags flags;
  bool moded = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string inline_value;
    if (size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      inline_value = std::string(arg.substr(eq + 1));
      arg = arg.substr(0, eq);
    }
    auto value = [&](std::string_view flag) -> absl::StatusOr<std::string> {
      if (!inline_value.empty()) return inline_value;
      if (i + 1 >= args.size() || args[i + 1].starts_with("--")) {
        return absl::InvalidArgumentError(StrCat(flag, " needs a value"));
      }
      return args[++i];
    };
    if (arg == "--json") {
      flags.json = true;
    } else if (arg == "--tier") {
      absl::StatusOr<std::string> tier = value(arg);
      if (!tier.ok()) return tier.status();
      flags.tier = *tier == "builtin" ? "built-in" : *tier;
      if (std::find(std::begin(kTiers), std::end(kTiers), flags.tier) == std::end(kTiers)) {
        return absl::InvalidArgumentError(StrCat("--tier ", core::EscapeControl(*tier),
                                                 ": a tier is built-in, community or premium"));
      }
    } else if (arg == "--info" || arg == "--enable" || arg == "--disable") {
      if (moded) {
        return absl::InvalidArgumentError(StrCat(arg, " cannot be combined with another action"));
      }
      moded = true;
      flags.mode = arg == "--info" ? Mode::kInfo : arg == "--enable" ? Mode::kEnable : Mode::kDisable;
      absl::StatusOr<std::string> id = value(arg);
      if (!id.ok()) return id.status();
      flags.id = *id;
    } else {
      return absl::InvalidArgumentError(StrCat("unknown argument ", core::EscapeControl(args[i])));
    }
  }
  if (!flags.tier.empty() && flags.mode != Mode::kList) {
    return absl::InvalidArgumentError("--tier filters the listing only");
  }
  if (flags.json && (flags.mode == Mode::kEnable || flags.mode == Mode::kDisable)) {
    return absl::InvalidArgumentError("--json goes with the listing and --info");
  }
  return flags;
}

// A member of a listing entry as the terminal should show it ("-" when absent or null).
std::string Text(const core::Value& p, std::string_view key) {
  const core::Value* f = p.Find(key);
  return f != nullptr && f->is_string() ? core::EscapeControl(f->as_string()) : std::string("-");
}

double StatNumber(const core::Value& p, std::string_view key) {
  const core::Value* stats = p.Find("stats");
  const core::Value* v = stats != nullptr ? stats->Find(key) : nullptr;
  return v != nullptr && v->is_number() ? v->as_number() : 0;
}

std::string Count(double n) {
  std::string formatted = core::FormatCount(static_cast<uint64_t>(n < 0 ? -n : n));
  return n < 0 ? "-" + formatted : formatted;
}

bool HasStats(const core::Value& p) {
  const core::Value* stats = p.Find("stats");
  return stats != nullptr && stats->is_object();
}

std::vector<std::string> Strings(const core::Value& p, std::string_view key) {
  std::vector<std::string> out;
  const core::Value* list = p.Find(key);
  if (list == nullptr || !list->is_array()) return out;
  for (const core::Value& v : list->as_array()) {
    if (v.is_string()) out.push_back(core::EscapeControl(v.as_string()));
  }
  return out;
}

// "enabled", or the state and why ("disabled by `plugline plugins --disable x` (...)").
std::string StateText(const core::Value& p) {
  const std::string state = Text(p, "state");
  const core::Value* reason = p.Find("reason");
  if (reason == nullptr || !reason->is_string()) return state;
  const std::string why = core::EscapeControl(reason->as_string());
  return why.starts_with(state) ? why : StrCat(state, " — ", why);
}

std::string Table(const std::vector<const core::Value*>& plugins) {
  constexpr char kRow[] = "%-22s %-14s %-9s %-14s %-9s %-8s %8s %8s %13s %7s\n";
  std::string table = absl::StrFormat(kRow, "id", "kind", "tier", "source", "state", "version",
                                      "matches", "shapes", "tokens saved", "avg ms");
  std::string problems;
  std::string hooks;
  for (const core::Value* p : plugins) {
    const std::string id = Text(*p, "id");
    const std::string state = Text(*p, "state");
    const bool stats = HasStats(*p);
    StrAppend(&table,
              absl::StrFormat(kRow, id, Text(*p, "kind"), Text(*p, "tier"), Text(*p, "source"),
                              state, Text(*p, "version"),
                              stats ? Count(StatNumber(*p, "match_count")) : "-",
                              stats ? Count(StatNumber(*p, "shape_count")) : "-",
                              stats ? Count(StatNumber(*p, "tokens_saved")) : "-",
                              stats ? absl::StrFormat("%.2f", StatNumber(*p, "average_shape_ms"))
                                    : "-"));
    if (std::vector<std::string> events = Strings(*p, "events");
        !events.empty() && state == "enabled") {
      StrAppend(&hooks, absl::StrFormat("  %-22s %s\n", id, absl::StrJoin(events, ", ")));
    }
    if (state != "enabled") {
      StrAppend(&problems, "\n", id, " (", state, "): ", Text(*p, "path"), "\n  ",
                Text(*p, "reason"), "\n");
    }
    for (const std::string& warning : Strings(*p, "warnings")) {
      StrAppend(&problems, "\n", id, " (warning): ", warning, "\n");
    }
  }
  if (!hooks.empty()) hooks = StrCat("\nhooks (plugline hook EVENT):\n", hooks);
  return StrCat(table, hooks, problems);
}

// One plugin in full, a line per fact.
std::string Info(const core::Value& p) {
  std::string out = StrCat(Text(p, "id"), "\n");
  auto line = [&out](std::string_view name, std::string_view value) {
    StrAppend(&out, absl::StrFormat("  %-12s %s\n", name, value));
  };
  line("state", StateText(p));
  line("kind", Text(p, "kind"));
  line("tier", Text(p, "tier"));
  line("version", Text(p, "version"));
  line("source", Text(p, "source"));
  if (const core::Value* runtime = p.Find("runtime"); runtime != nullptr && runtime->is_string()) {
    line("runtime", runtime->as_string() == "node"
                        ? "node (Node.js in a worker process; runs as you)"
                        : "sandboxed (plugline's V8 runtime)");
  }
  line("path", Text(p, "path"));
  line("description", Text(p, "description"));
  const core::Value* protect = p.Find("protected");
  line("protected", protect != nullptr && protect->is_bool() && protect->as_bool() ? "yes" : "no");
  if (std::vector<std::string> events = Strings(p, "events"); !events.empty()) {
    line("events", absl::StrJoin(events, ", "));
  }
  if (HasStats(p)) {
    line("stats", absl::StrFormat("%s matches, %s shapes, %s failed, %s tokens saved, %.2f ms "
                                  "per shape on average",
                                  Count(StatNumber(p, "match_count")),
                                  Count(StatNumber(p, "shape_count")),
                                  Count(StatNumber(p, "fail_count")),
                                  Count(StatNumber(p, "tokens_saved")),
                                  StatNumber(p, "average_shape_ms")));
  }
  if (const core::Value* install = p.Find("install"); install != nullptr && install->is_object()) {
    line("installed", StrCat(Text(*install, "version"), " from ", Text(*install, "catalog"), " at ",
                             Text(*install, "installed_at")));
    line("download", Text(*install, "url"));
    const core::Value* verified = install->Find("verified");
    const core::Value* signed_index = install->Find("signed");
    line("checksum",
         StrCat("sha256 ", Text(*install, "sha256"),
                verified != nullptr && verified->is_bool() && verified->as_bool()
                    ? " (verified at install)"
                    : " (not verified)",
                signed_index != nullptr && signed_index->is_bool() && signed_index->as_bool()
                    ? ", from a signed index"
                    : ""));
    line("author", Text(*install, "author"));
    line("homepage", Text(*install, "homepage"));
    line("isolation", Text(*install, "isolation"));
  }
  for (const std::string& warning : Strings(p, "warnings")) line("warning", warning);
  return out;
}

}  // namespace

int PluginsCommand(const std::vector<std::string>& args, CommandEnv& env) {
  Output& io = *env.io;
  absl::StatusOr<Flags> flags = ParseFlags(args);
  if (!flags.ok()) {
    io.Error(StrCat("plugins: ", flags.status().message(), "\n\n", kUsage));
    return kExitUsage;
  }
  HostSession session(env);
  absl::StatusOr<Host*> host = session.Get();
  if (!host.ok()) {
    io.Error(ToStd(host.status().message()));
    return 1;
  }
  if (flags->mode == Mode::kEnable || flags->mode == Mode::kDisable) {
    const bool enable = flags->mode == Mode::kEnable;
    if (absl::Status status = (*host)->SetPluginEnabled(flags->id, enable); !status.ok()) {
      io.Error(StrCat("plugins: ", status.message()));
      session.PrintNewDiagnostics();
      return 1;
    }
  }
  absl::StatusOr<core::Value> listing = core::ParseJson((*host)->PluginsJson(), "plugins");
  if (!listing.ok()) {
    io.Error(ToStd(listing.status().message()));
    return 1;
  }
  std::vector<const core::Value*> chosen;
  for (const core::Value& p : listing->Find("plugins")->as_array()) {
    const core::Value* id = p.Find("id");
    const core::Value* tier = p.Find("tier");
    if (flags->mode != Mode::kList && (id == nullptr || !id->is_string() || id->as_string() != flags->id)) {
      continue;
    }
    if (!flags->tier.empty() &&
        (tier == nullptr || !tier->is_string() || tier->as_string() != flags->tier)) {
      continue;
    }
    chosen.push_back(&p);
  }
  if (flags->mode == Mode::kInfo && chosen.empty()) {
    std::vector<std::string> ids;
    for (const core::Value& p : listing->Find("plugins")->as_array()) ids.push_back(Text(p, "id"));
    std::vector<std::string_view> known(ids.begin(), ids.end());
    std::optional<std::string_view> near = core::SuggestKnown(flags->id, known);
    io.Error(StrCat("plugins: no plugin has the id '", core::EscapeControl(flags->id), "'",
                    near ? StrCat(" (did you mean '", *near, "'?)") : "",
                    "; `plugline plugins` lists them"));
    return 1;
  }
  if (flags->json) {
    core::JsonWriter w;
    w.BeginObject().Key("plugins").BeginArray();
    for (const core::Value* p : chosen) w.Value(*p);
    w.EndArray().EndObject();
    io.Out(StrCat(w.Take(), "\n"));
    session.PrintNewDiagnostics();
    return 0;
  }
  std::string out;
  switch (flags->mode) {
    case Mode::kList:
      out = Table(chosen);
      break;
    case Mode::kInfo:
      for (const core::Value* p : chosen) StrAppend(&out, out.empty() ? "" : "\n", Info(*p));
      break;
    case Mode::kEnable:
    case Mode::kDisable:
      for (const core::Value* p : chosen) {
        StrAppend(&out, Text(*p, "id"), ": ", StateText(*p));
        StrAppend(&out, " (", Text(*p, "path") == "-" ? Text(*p, "source") : Text(*p, "path"),
                  ")\n");
        const core::Value* protect = p->Find("protected");
        if (flags->mode == Mode::kDisable && protect != nullptr && protect->is_bool() &&
            protect->as_bool()) {
          StrAppend(&out, "note: ", Text(*p, "id"),
                    " is a protected guard: what it denied is no longer denied\n");
        }
      }
      break;
  }
  io.Out(out);
  session.PrintNewDiagnostics();
  return 0;
}

}  // namespace plugline::cli
