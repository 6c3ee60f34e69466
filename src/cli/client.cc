#include "cli/client.h"

#include <unistd.h>

#include "cli/cli_io.h"
#include "core/config.h"
#include "core/json.h"
#include "core/log.h"
#include "core/plugin_id.h"
#include "core/redact.h"
#include "core/strings.h"

namespace plugline::cli {
namespace {

using core::Value;

// `options.body.<key>` of an SDK call's first argument, as text ("" when absent or not text).
std::string BodyText(const Value& args, std::string_view key) {
  if (!args.is_array() || args.as_array().empty()) return "";
  const Value* body = args.as_array().front().Find("body");
  const Value* value = body != nullptr ? body->Find(key) : nullptr;
  if (value == nullptr || value->is_null()) return "";
  return value->is_string() ? value->as_string() : core::ToJson(*value);
}

std::string_view LogLevel(std::string_view level) {
  for (std::string_view known : {"debug", "info", "warn", "error"}) {
    if (level == known) return known;
  }
  return "info";
}

}  // namespace

absl::StatusOr<std::string> CommandLineClient(std::string_view path, std::string_view args_json) {
  if (path != "app.log" && path != "tui.showToast") {
    return absl::UnimplementedError(StrCat(
        "the plugline command line has no OpenCode server behind it: it answers app.log and "
        "tui.showToast, not ", path));
  }
  absl::StatusOr<Value> args = core::ParseJson(args_json, StrCat("client.", path, " arguments"));
  if (!args.ok()) return args.status();
  if (path == "app.log") {
    std::string service = BodyText(*args, "service");
    std::string message = BodyText(*args, "message");
    std::string extra = BodyText(*args, "extra");
    if (!extra.empty()) message = StrCat(message, " ", extra);
    absl::StatusOr<std::string> home = core::ResolveHome("");
    if (home.ok()) {
      core::Log(*home + "/logs")
          .Write(LogLevel(BodyText(*args, "level")),
                 StrCat("plugin ", service.empty() ? "(no service)" : service), message);
    }
    return std::string(R"({"data":true})");
  }
  std::string variant = BodyText(*args, "variant");
  std::string title = BodyText(*args, "title");
  std::string message = BodyText(*args, "message");
  std::string line = StrCat("plugline: [", variant.empty() ? "info" : variant, "] ",
                            title.empty() ? "" : StrCat(title, ": "), message);
  WriteAll(STDERR_FILENO, StrCat(core::EscapeControl(core::RedactSecrets(line)), "\n"));
  return std::string(R"({"data":true})");
}

}  // namespace plugline::cli
