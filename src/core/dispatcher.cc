#include "core/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/strings.h"
#include "core/suggest.h"

namespace plugline::core {

bool IsCanonicalEvent(std::string_view event) {
  return std::find(std::begin(kCanonicalEvents), std::end(kCanonicalEvents), event) !=
         std::end(kCanonicalEvents);
}

namespace {

// "PreToolCall", "pre-tool-call" -> "pretoolcall".
std::string Squeeze(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '_' || c == '-' || c == '.' || c == ' ') continue;
    out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::optional<std::string_view> NearCanonicalEvent(std::string_view event) {
  if (event.empty() || IsCanonicalEvent(event)) return std::nullopt;
  if (std::optional<std::string_view> meant = SuggestKnown(event, kCanonicalEvents)) return meant;
  const std::string squeezed = Squeeze(event);
  for (std::string_view canonical : kCanonicalEvents) {
    const std::string target = Squeeze(canonical);
    if (squeezed == target || IsOneEditApart(squeezed, target)) return canonical;
  }
  return std::nullopt;
}

std::optional<std::string> NearCanonicalEventWarning(std::string_view event) {
  std::optional<std::string_view> meant = NearCanonicalEvent(event);
  if (!meant.has_value()) return std::nullopt;
  std::string text = "event ";
  AppendJsonString(text, event);  // quoted and escaped: the name may come from anywhere
  StrAppend(&text, " is not a canonical event (did you mean \"", *meant, "\"?)");
  const EventCapabilities caps = CapabilitiesOf(*meant);
  if (caps.can_deny || caps.can_replace_result) {
    StrAppend(&text, ": it is observe-only, so no plugin can ",
              caps.can_deny ? "deny it or rewrite its arguments" : "replace its result");
  }
  return text;
}

EventCapabilities CapabilitiesOf(std::string_view event) {
  EventCapabilities caps;
  if (event == "pre_tool_call") {
    caps.can_deny = true;
    caps.can_rewrite_arguments = true;
  } else if (event == "post_tool_call") {
    caps.can_replace_result = true;
  }
  return caps;
}

namespace {

// "DEADLINE_EXCEEDED" -> "deadline_exceeded".
std::string CodeName(absl::StatusCode code) {
  return absl::AsciiStrToLower(absl::StatusCodeToString(code));
}

// Wall time rounded to microseconds, so a native hook's 0.000412 ms stays readable.
double ElapsedMs(std::chrono::steady_clock::time_point start) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count();
  return std::round(static_cast<double>(ns) / 1000.0) / 1000.0;
}

// The record text of an answer part the event does not allow (see the vocabulary in the header).
std::string IgnoredAction(const std::vector<std::string_view>& parts, std::string_view event) {
  std::string list;
  for (std::string_view part : parts) {
    if (!list.empty()) list.append(", ");
    list.append(part);
  }
  if (event == "pre_tool_call") {
    return StrCat(kActionIgnored, ": ", list, " on ", event,
                  " (it can only deny, rewrite arguments and notice)");
  }
  if (event == "post_tool_call") {
    return StrCat(kActionIgnored, ": ", list, " on ", event,
                  " (it can only replace the result and notice)");
  }
  return StrCat(kActionIgnored, ": ", list, " on observe-only event ", event);
}

// Checks the payload's "arguments"/"result" member: absent, null or a string.
absl::Status CheckStringField(const Value& payload, std::string_view key, std::string_view event) {
  const Value* field = payload.Find(key);
  if (field == nullptr || field->is_null() || field->is_string()) return absl::OkStatus();
  return absl::InvalidArgumentError(StrCat("dispatch ", event, ": payload field \"", key,
                                           "\" must be a string (JSON-encoded for arguments), got ",
                                           Value::KindName(field->kind())));
}

std::optional<std::string> StringField(const Value& payload, std::string_view key) {
  const Value* field = payload.Find(key);
  if (field == nullptr || !field->is_string()) return std::nullopt;
  return field->as_string();
}

}  // namespace

absl::StatusOr<DispatchResult> Dispatch(std::string_view event, std::string_view payload_json,
                                        const std::vector<std::shared_ptr<HookPlugin>>& plugins) {
  if (event.empty()) return absl::InvalidArgumentError("dispatch: the event name is empty");
  for (size_t i = 0; i < plugins.size(); ++i) {
    if (plugins[i] == nullptr) {
      return absl::InvalidArgumentError(
          StrCat("dispatch ", event, ": plugin #", i, " in the chain is null"));
    }
  }
  absl::StatusOr<Value> parsed = ParseJson(payload_json, StrCat("dispatch ", event, " payload"));
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(parsed.status().message());
  }
  Value payload = *std::move(parsed);
  if (!payload.is_object()) {
    return absl::InvalidArgumentError(StrCat("dispatch ", event,
                                             ": the payload must be a JSON object, got ",
                                             Value::KindName(payload.kind())));
  }
  if (absl::Status s = CheckStringField(payload, "arguments", event); !s.ok()) return s;
  if (absl::Status s = CheckStringField(payload, "result", event); !s.ok()) return s;

  // The text the next plugin gets. It stays the host's own text, byte for byte, until something
  // changes; then it is re-serialized from `payload` (once per change, not once per plugin).
  std::string payload_text;
  bool payload_changed = false;
  if (const Value* e = payload.Find("event");
      e != nullptr && e->is_string() && e->as_string() == event) {
    payload_text = std::string(payload_json);
  } else if (e != nullptr) {
    payload.Set("event", Value(event));
    payload_changed = true;
  } else {
    ValueObject& members = payload.as_object();
    members.insert(members.begin(), {"event", Value(event)});
    payload_changed = true;
  }

  const EventCapabilities caps = CapabilitiesOf(event);
  DispatchResult out;
  out.event = std::string(event);
  if (std::optional<std::string> near = NearCanonicalEventWarning(event)) {
    out.warnings.push_back({"", *std::move(near)});
  }

  for (const std::shared_ptr<HookPlugin>& plugin : plugins) {
    if (!plugin->Handles(event)) continue;
    if (payload_changed) {
      payload_text = ToJson(payload);
      payload_changed = false;
    }
    const std::string& id = plugin->id();

    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<HookAnswer> answer = plugin->Call(event, payload_text);
    const double ms = ElapsedMs(start);
    if (answer.ok()) {
      for (const std::string& warning : answer->warnings) {
        out.warnings.push_back({id, RedactSecrets(warning)});
      }
    }

    // A failure, or an answer the dispatcher cannot use: skipped, or for a fail-closed plugin on
    // an event that can deny, a deny.
    std::string why;
    std::string detail;
    if (!answer.ok()) {
      why = CodeName(answer.status().code());
      // The failure quotes what the plugin printed (its last stderr line, a thrown error): it
      // reaches the agent, so secrets are masked as in the log. Here, where it enters the
      // result, so the fail-closed reason built from it is masked too.
      detail = RedactSecrets(ToStd(answer.status().message()));
      if (detail.empty()) detail = StrCat("plugin ", id, " failed (", why, ")");
    } else if (caps.can_rewrite_arguments && !answer->deny && answer->arguments.has_value() &&
               !answer->arguments->empty()) {
      // The payload's `arguments` is a JSON-encoded string. A rewrite the tool could not parse would
      // only move the failure to the host, so it is rejected here, where the plugin is named.
      absl::StatusOr<Value> args =
          ParseJson(*answer->arguments, StrCat("plugin ", id, " arguments"));
      if (!args.ok()) {
        why = std::string(kWhyBadAnswer);
        detail = RedactSecrets(ToStd(args.status().message()));
      }
    }
    if (!why.empty()) {
      if (plugin->fail_closed() && caps.can_deny) {
        out.denied = true;
        out.denied_by = id;
        out.reason = StrCat("plugin ", id, " failed and fails closed: ", detail);
        out.plugins.push_back({id, std::string(kActionDeny), ms});
        break;
      }
      if (plugin->fail_closed()) {
        detail = StrCat(detail, " (the plugin fails closed, but ", event, " cannot deny)");
      }
      out.skipped.push_back({id, std::move(why), std::move(detail)});
      out.plugins.push_back({id, std::string(kActionSkipped), ms});
      continue;
    }

    const HookAnswer& a = *answer;
    std::string action(kActionNone);
    std::vector<std::string_view> ignored;
    if (a.notice.has_value() && !a.notice->empty()) {
      out.notices.push_back({id, *a.notice});
      action = kActionNotice;
    }
    if (a.deny) {
      if (caps.can_deny) {
        out.denied = true;
        out.denied_by = id;
        out.reason = a.reason.empty() ? StrCat("denied by plugin ", id) : a.reason;
        out.plugins.push_back({id, std::string(kActionDeny), ms});
        break;
      }
      ignored.push_back("deny");
    }
    if (a.arguments.has_value() && !a.arguments->empty()) {
      if (caps.can_rewrite_arguments) {
        payload.Set("arguments", Value(*a.arguments));
        payload_changed = true;
        action = kActionRewrite;
      } else {
        ignored.push_back("arguments");
      }
    }
    if (a.result.has_value() && !a.result->empty()) {
      if (caps.can_replace_result) {
        payload.Set("result", Value(*a.result));
        payload_changed = true;
        action = kActionReplace;
      } else {
        ignored.push_back("result");
      }
    }
    if (!ignored.empty()) action = IgnoredAction(ignored, event);
    out.plugins.push_back({id, std::move(action), ms});
  }

  out.arguments = StringField(payload, "arguments");
  out.result = StringField(payload, "result");
  return out;
}

}  // namespace plugline::core

namespace plugline {

std::string DispatchResult::ToJson() const {
  core::JsonWriter w;
  w.BeginObject();
  w.Key("event").String(event);
  w.Key("denied").Bool(denied);
  auto string_or_null = [&w](std::string_view key, const std::string* text) {
    w.Key(key);
    if (text != nullptr) {
      w.String(*text);
    } else {
      w.Null();
    }
  };
  string_or_null("denied_by", denied ? &denied_by : nullptr);
  string_or_null("reason", denied ? &reason : nullptr);
  string_or_null("arguments", arguments.has_value() ? &*arguments : nullptr);
  string_or_null("result", result.has_value() ? &*result : nullptr);
  w.Key("notices").BeginArray();
  for (const Notice& n : notices) {
    w.BeginObject().Key("plugin").String(n.plugin).Key("text").String(n.text).EndObject();
  }
  w.EndArray();
  w.Key("skipped").BeginArray();
  for (const Skipped& s : skipped) {
    w.BeginObject()
        .Key("plugin")
        .String(s.plugin)
        .Key("why")
        .String(s.why)
        .Key("detail")
        .String(s.detail)
        .EndObject();
  }
  w.EndArray();
  w.Key("plugins").BeginArray();
  for (const PluginRecord& p : plugins) {
    w.BeginObject()
        .Key("plugin")
        .String(p.plugin)
        .Key("action")
        .String(p.action)
        .Key("ms")
        .Double(p.ms)
        .EndObject();
  }
  w.EndArray();
  w.Key("warnings").BeginArray();
  for (const Warning& warning : warnings) {
    w.BeginObject().Key("plugin");
    if (warning.plugin.empty()) {
      w.Null();
    } else {
      w.String(warning.plugin);
    }
    w.Key("text").String(warning.text).EndObject();
  }
  w.EndArray();
  w.Key("broken").BeginArray();
  for (const Broken& b : broken) {
    w.BeginObject().Key("plugin").String(b.plugin).Key("reason").String(b.reason).EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace plugline

namespace plugline::core {

NativeHook::NativeHook(std::string id, std::vector<std::string> events, Function function,
                       bool fail_closed)
    : id_(std::move(id)),
      events_(std::move(events)),
      function_(std::move(function)),
      fail_closed_(fail_closed) {}

bool NativeHook::Handles(std::string_view event) const {
  for (const std::string& e : events_) {
    if (e == "*" || e == event) return true;
  }
  return false;
}

absl::StatusOr<HookAnswer> NativeHook::Call(std::string_view event, std::string_view payload_json) {
  if (!function_)
    return absl::FailedPreconditionError(StrCat("native hook ", id_, " has no function"));
  // A host's callback is not plugline's code; an exception from it is this plugin's failure,
  // never the dispatch's.
  try {
    return function_(event, payload_json);
  } catch (const std::exception& e) {
    return absl::InternalError(StrCat("native hook ", id_, " threw: ", e.what()));
  } catch (...) {
    return absl::InternalError(StrCat("native hook ", id_, " threw a non-standard exception"));
  }
}

}  // namespace plugline::core
