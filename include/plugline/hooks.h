// plugline's C++ API for hook events: what a hook plugin answers, and what a dispatch gives
// back to the host (docs/hooks.md "Order and rules", "What the host gets back"). Included by
// <plugline/host.h>; see docs/hooks.md.
#ifndef PLUGLINE_HOOKS_H_
#define PLUGLINE_HOOKS_H_

#include <optional>
#include <string>
#include <vector>

namespace plugline {

// A hook plugin's answer to one event; every field optional; all absent = no opinion. It is the
// exec protocol's answer object (docs/plugins-exec.md) as a struct.
struct HookAnswer {
  bool deny = false;
  std::string reason;                    // why it denied
  std::optional<std::string> arguments;  // new arguments (a JSON-encoded string), pre_tool_call
  std::optional<std::string> result;     // a replacement result, post_tool_call
  std::optional<std::string> notice;     // a message for the agent or user, any event
  // What was wrong with the answer without making it unusable, one sentence each: a key
  // plugline does not read ("unknown answer key \"denied\" ignored (did you mean \"deny\"?)").
  // The dispatcher moves them into DispatchResult::warnings under the plugin's id.
  std::vector<std::string> warnings;
};

// What one run of a named hook (an OpenCode hook, called with input and output) left.
struct NamedHookRun {
  std::string output_json;  // the output after the hook ran (a JSON object)
  std::string error;        // non-empty: the hook threw this; the output is what it left
};

// What a dispatch decided: final values after every plugin ran, in order.
struct DispatchResult {
  struct Notice {
    std::string plugin;
    std::string text;
  };
  struct Skipped {
    std::string plugin;
    std::string why;     // a short code: "bad_answer" or a status code name ("deadline_exceeded")
    std::string detail;  // the failure's message, secrets masked (core/redact.h)
  };
  struct Warning {
    std::string plugin;  // the plugin it is about; "" for the dispatch itself (its event name)
    std::string text;
  };
  // A plugin that could not load (a bad manifest, a program that is not executable, a syntax
  // error): it does not run, or, when it fails closed, denies in its place.
  struct Broken {
    std::string plugin;
    std::string reason;
  };
  struct PluginRecord {
    std::string plugin;
    // "none", "notice", "rewrite", "replace", "deny", "skipped", or "ignored: <what> on <event>"
    // (docs/hooks.md).
    std::string action;
    double ms = 0;  // wall time of the plugin's call, in milliseconds (µs resolution)
  };

  std::string event;
  bool denied = false;
  std::string denied_by;  // the denying plugin's id, when denied
  std::string reason;     // the deny reason (never empty when denied)
  // The payload's final "arguments" / "result" after every plugin ran; nullopt when the
  // payload had none and no plugin set one.
  std::optional<std::string> arguments;
  std::optional<std::string> result;
  std::vector<Notice> notices;        // in the order the plugins gave them
  std::vector<Skipped> skipped;       // in chain order
  std::vector<PluginRecord> plugins;  // one per plugin that ran, in chain order
  // Things that did not stop the dispatch but probably are not what was meant: an answer key
  // plugline does not read (`denied` for `deny`), an event name one edit away from a canonical
  // one (`pre_tool_cal`, dispatched as observe-only). In chain order, the event's first.
  std::vector<Warning> warnings;

  std::vector<Broken> broken;         // every broken plugin of the host, in chain order

  // {"event","denied","denied_by","reason","arguments","result","notices":[{"plugin","text"}],
  //  "skipped":[{"plugin","why","detail"}],"plugins":[{"plugin","action","ms"}],
  //  "warnings":[{"plugin","text"}],"broken":[{"plugin","reason"}]}; denied_by and reason are
  //  null unless denied, arguments and result null when absent, a warning's plugin null when it
  //  is about the dispatch itself.
  std::string ToJson() const;
};

}  // namespace plugline

#endif  // PLUGLINE_HOOKS_H_
