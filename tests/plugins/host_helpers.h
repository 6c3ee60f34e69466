// What the plugin tests ask a Host, as JSON values; the test fails when the call does.
#ifndef PLUGLINE_TESTS_PLUGINS_HOST_HELPERS_H_
#define PLUGLINE_TESTS_PLUGINS_HOST_HELPERS_H_

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "core/json.h"
#include "plugline/host.h"

namespace plugline::testing {

// Host::Trigger's result: {name, output, errors, plugins}.
inline core::Value TriggerValue(Host& host, std::string_view name, std::string_view input,
                                std::string_view output) {
  auto result = host.Trigger(name, input, output);
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  auto value = core::ParseJson(result->ToJson(), "trigger");
  REQUIRE(value.ok());
  return *std::move(value);
}

// The listing's entry of plugin `id` (Host::PluginsJson).
inline core::Value PluginEntry(Host& host, std::string_view id) {
  auto all = core::ParseJson(host.PluginsJson(), "plugins");
  REQUIRE(all.ok());
  for (const core::Value& p : all->Find("plugins")->as_array()) {
    if (p.Find("id")->as_string() == id) return p;
  }
  FAIL("no plugin " << id);
  return core::Value();
}

// chat.headers' `order` after every plugin appended its tag (the load-order tests' plugins).
inline std::string HeadersOrder(Host& host) {
  core::Value value = TriggerValue(host, "chat.headers", "{}", R"({"headers":{}})");
  const core::Value* order = value.Find("output")->Find("headers")->Find("order");
  return order != nullptr && order->is_string() ? order->as_string() : std::string();
}

}  // namespace plugline::testing

#endif  // PLUGLINE_TESTS_PLUGINS_HOST_HELPERS_H_
