// What `plugline install --agent X` writes into each agent's hook settings (src/agents/install.h):
// merged with another tool's hooks, idempotent, taken out exactly by --uninstall, and a file
// that is not what the agent reads is refused, naming it. The real agents read what is written
// here in tests/agents/test_real_agents.py.
#include "agents/install.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "core/json.h"
#include "core/strings.h"

namespace plugline::agents {
namespace {

using core::Value;

constexpr Agent kAll[] = {Agent::kClaudeCode, Agent::kCodex, Agent::kGemini, Agent::kCursor,
                          Agent::kCopilot};

Value Json(const std::string& text) {
  absl::StatusOr<Value> v = core::ParseJson(text, "settings");
  REQUIRE_MESSAGE(v.ok(), text);
  return *v;
}

// Every command line of plugline's hooks in the settings.
std::vector<std::string> OurCommands(Agent agent, const Value& doc) {
  std::vector<std::string> out;
  const Value* hooks = doc.Find("hooks");
  if (hooks == nullptr) return out;
  for (const auto& [event, list] : hooks->as_object()) {
    for (const Value& entry : list.as_array()) {
      std::vector<const Value*> handlers;
      if (const Value* inner = entry.Find("hooks")) {
        for (const Value& h : inner->as_array()) handlers.push_back(&h);
      } else {
        handlers.push_back(&entry);
      }
      for (const Value* h : handlers) {
        const Value* command = h->Find(agent == Agent::kCopilot ? "bash" : "command");
        if (command != nullptr && command->as_string().find("hook --agent") != std::string::npos) {
          out.push_back(StrCat(event, ": ", command->as_string()));
        }
      }
    }
  }
  return out;
}

TEST_CASE("install: each agent's file gets plugline's hook on every event it maps, in the agent's shape") {
  for (Agent agent : kAll) {
    INFO(AgentName(agent));
    absl::StatusOr<SettingsChange> change =
        InstallHooks(agent, "/opt/plugline/bin/plugline", "", "settings.json");
    REQUIRE(change.ok());
    CHECK(change->changed);
    const Value doc = Json(change->text);
    const std::vector<std::string> ours = OurCommands(agent, doc);
    CHECK(ours.size() == change->events.size());
    CHECK(ours.size() >= 5);
    for (const std::string& line : ours) {
      CHECK(line.find(StrCat("/opt/plugline/bin/plugline hook --agent ", AgentName(agent))) !=
            std::string::npos);
    }
    // Each call the agent makes on these events maps onto a plugline event (dialect.cc).
    for (const std::string& event : change->events) {
      absl::StatusOr<HookCall> call =
          ReadHookCall(agent, StrCat(R"({"hook_event_name":")", event, R"("})"), event);
      REQUIRE(call.ok());
      CHECK(call->event.find('_') != std::string::npos);
    }
  }
  // Copilot's camelCase calls carry no event name: each command names its own.
  absl::StatusOr<SettingsChange> copilot = InstallHooks(Agent::kCopilot, "plugline", "", "p.json");
  REQUIRE(copilot.ok());
  CHECK(copilot->text.find(R"("bash": "plugline hook --agent copilot preToolUse")") !=
        std::string::npos);
  CHECK(Json(copilot->text).Find("version")->as_number() == 1);
  // A path with a space is quoted for the shell the agent runs it with.
  absl::StatusOr<SettingsChange> spaced =
      InstallHooks(Agent::kClaudeCode, "/home/me/my tools/plugline", "", "s.json");
  REQUIRE(spaced.ok());
  CHECK(spaced->text.find(R"('/home/me/my tools/plugline' hook --agent claude-code)") !=
        std::string::npos);
}

TEST_CASE("install: another tool's hooks and settings are kept, a second install changes nothing, uninstall takes out exactly ours") {
  const std::string existing = R"({"model":"opus","hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"other-tool check"}]}],"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}})";
  absl::StatusOr<SettingsChange> once =
      InstallHooks(Agent::kClaudeCode, "/usr/bin/plugline", existing, "s.json");
  REQUIRE(once.ok());
  const Value doc = Json(once->text);
  CHECK(Json(core::ToJson(*doc.Find("model"))).as_string() == "opus");
  const Value& pre = *doc.Find("hooks")->Find("PreToolUse");
  REQUIRE(pre.as_array().size() == 2);
  CHECK(pre.as_array()[0].Find("matcher")->as_string() == "Write");  // theirs first, unchanged
  absl::StatusOr<SettingsChange> twice =
      InstallHooks(Agent::kClaudeCode, "/usr/bin/plugline", once->text, "s.json");
  REQUIRE(twice.ok());
  CHECK_FALSE(twice->changed);
  CHECK(twice->events.empty());
  // Installed again from elsewhere: the same entries, pointed at the new place.
  absl::StatusOr<SettingsChange> moved =
      InstallHooks(Agent::kClaudeCode, "/opt/new/plugline", once->text, "s.json");
  REQUIRE(moved.ok());
  CHECK(moved->text.find("/usr/bin/plugline") == std::string::npos);
  CHECK(OurCommands(Agent::kClaudeCode, Json(moved->text)).size() ==
        OurCommands(Agent::kClaudeCode, doc).size());

  absl::StatusOr<SettingsChange> removed = UninstallHooks(Agent::kClaudeCode, moved->text, "s.json");
  REQUIRE(removed.ok());
  CHECK(removed->events.size() == 8);
  CHECK(core::ToJson(Json(removed->text)) == core::ToJson(Json(existing)));
  // Another agent's plugline hooks in the same file (Copilot reads .claude/settings.json) stay.
  absl::StatusOr<SettingsChange> other = UninstallHooks(Agent::kCodex, once->text, "s.json");
  REQUIRE(other.ok());
  CHECK(other->events.empty());
  // Uninstalling a file plugline made leaves an empty object, not another tool's file.
  absl::StatusOr<SettingsChange> fresh = InstallHooks(Agent::kCursor, "plugline", "", "h.json");
  REQUIRE(fresh.ok());
  absl::StatusOr<SettingsChange> gone = UninstallHooks(Agent::kCursor, fresh->text, "h.json");
  REQUIRE(gone.ok());
  CHECK(core::ToJson(Json(gone->text)) == R"({"version":1})");
}

TEST_CASE("install: a file the agent could not read is refused, naming it, and nothing is changed") {
  for (const char* bad : {"{not json", "[1,2]", R"({"hooks":[]})", R"({"hooks":{"PreToolUse":{}}})"}) {
    INFO(bad);
    absl::StatusOr<SettingsChange> change =
        InstallHooks(Agent::kClaudeCode, "plugline", bad, "/home/me/.claude/settings.json");
    REQUIRE_FALSE(change.ok());
    CHECK(std::string(change.status().message()).find("/home/me/.claude/settings.json") !=
          std::string::npos);
  }
}

TEST_CASE("install: where each agent reads its hooks") {
  CHECK(HookSettingsPath(Agent::kClaudeCode, false, "/h", "/p", "") == "/h/.claude/settings.json");
  CHECK(HookSettingsPath(Agent::kClaudeCode, true, "/h", "/p", "") == "/p/.claude/settings.json");
  CHECK(HookSettingsPath(Agent::kCodex, false, "/h", "/p", "") == "/h/.codex/hooks.json");
  CHECK(HookSettingsPath(Agent::kCodex, false, "/h", "/p", "/ch") == "/ch/hooks.json");
  CHECK(HookSettingsPath(Agent::kCodex, true, "/h", "/p", "/ch") == "/p/.codex/hooks.json");
  CHECK(HookSettingsPath(Agent::kGemini, false, "/h", "/p", "") == "/h/.gemini/settings.json");
  CHECK(HookSettingsPath(Agent::kCursor, true, "/h", "/p", "") == "/p/.cursor/hooks.json");
  CHECK(HookSettingsPath(Agent::kCopilot, false, "/h", "/p", "") == "/h/.copilot/hooks/plugline.json");
  CHECK(HookSettingsPath(Agent::kCopilot, true, "/h", "/p", "") == "/p/.github/hooks/plugline.json");
  CHECK_FALSE(AfterInstall(Agent::kCodex).empty());
  CHECK(HookSettingsPath(Agent::kOpenCode, false, "/h", "/p", "") ==
        "/h/.config/opencode/plugins/plugline.js");
  CHECK(HookSettingsPath(Agent::kOpenCode, false, "/h", "/p", "", "/x") ==
        "/x/opencode/plugins/plugline.js");
  CHECK(HookSettingsPath(Agent::kOpenCode, true, "/h", "/p", "", "/x") ==
        "/p/.opencode/plugins/plugline.js");
}

TEST_CASE("install: OpenCode gets plugline's OpenCode plugin, pointed at this plugline, and only ours is replaced or removed") {
  const std::string path = "/h/.config/opencode/plugins/plugline.js";
  absl::StatusOr<SettingsChange> first =
      InstallHooks(Agent::kOpenCode, "/opt/plugline/bin/plugline", "", path);
  REQUIRE(first.ok());
  CHECK(first->changed);
  CHECK(first->text.starts_with("// plugline-opencode-bridge\n"));
  CHECK(first->text.find(R"(const DEFAULT_BINARY = "/opt/plugline/bin/plugline";)") !=
        std::string::npos);
  CHECK(first->text.find("export const PluglineBridge") != std::string::npos);
  CHECK(std::find(first->events.begin(), first->events.end(), "tool.execute.before") !=
        first->events.end());
  // Again: nothing changes. Another plugline: the plugin is pointed at it.
  absl::StatusOr<SettingsChange> again =
      InstallHooks(Agent::kOpenCode, "/opt/plugline/bin/plugline", first->text, path);
  REQUIRE(again.ok());
  CHECK_FALSE(again->changed);
  absl::StatusOr<SettingsChange> moved =
      InstallHooks(Agent::kOpenCode, "/usr/local/bin/plugline", first->text, path);
  REQUIRE(moved.ok());
  CHECK(moved->changed);
  CHECK(moved->text.find(R"(const DEFAULT_BINARY = "/usr/local/bin/plugline";)") != std::string::npos);
  // A plugin of someone else's by that name is neither replaced nor removed.
  const std::string theirs = "export const Mine = async () => ({});\n";
  absl::StatusOr<SettingsChange> refused = InstallHooks(Agent::kOpenCode, "plugline", theirs, path);
  REQUIRE_FALSE(refused.ok());
  CHECK(std::string(refused.status().message()).find(path) != std::string::npos);
  absl::StatusOr<SettingsChange> kept = UninstallHooks(Agent::kOpenCode, theirs, path);
  REQUIRE(kept.ok());
  CHECK_FALSE(kept->changed);
  CHECK_FALSE(kept->remove_file);
  absl::StatusOr<SettingsChange> removed = UninstallHooks(Agent::kOpenCode, first->text, path);
  REQUIRE(removed.ok());
  CHECK(removed->changed);
  CHECK(removed->remove_file);
}

}  // namespace
}  // namespace plugline::agents
