// OpenCode's V2 Promise API (`define({ id, setup })` from "@opencode-ai/plugin/v2/promise"):
// real plugin files, in both runtimes, driven by name through Host::Trigger as a host drives V1
// hooks — OpenCode's documented example, transforms in registration order across modules, dispose,
// reload, options, the AI SDK hooks, and what plugline refuses.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/str_split.h"
#include "core/json.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "plugins/host_helpers.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

#if PLUGLINE_TEST_WITH_V8

struct V2Fixture {
  TempDir home;
  TempDir project;
  std::unique_ptr<Host> host;

  explicit V2Fixture(std::string_view runtime) {
    WriteFile(home.Sub("config.yaml"), StrCat("plugins:\n  js:\n    runtime: ", runtime, "\n"));
  }
  void Open() {
    HostOptions options;
    options.home = home.path();
    options.project_dir = project.path();
    auto created = Host::Create(options);
    REQUIRE_MESSAGE(created.ok(), created.status().ToString());
    host = *std::move(created);
  }
  core::Value Trigger(std::string_view name, std::string_view input, std::string_view output = "{}") {
    return plugline::testing::TriggerValue(*host, name, input, output);
  }
  core::Value Entry(std::string_view id) { return plugline::testing::PluginEntry(*host, id); }
};

// `path` (a.b.c) in `v`, as JSON ("<missing>" when absent).
std::string At(const core::Value& v, std::string_view path) {
  const core::Value* at = &v;
  for (absl::string_view key : absl::StrSplit(ToAbsl(path), '.')) {
    at = at->Find(ToStd(key));
    if (at == nullptr) return "<missing>";
  }
  return core::ToJson(*at);
}

// OpenCode's documented V2 example, unchanged.
constexpr std::string_view kSeedExample = R"js(import { define } from "@opencode-ai/plugin/v2/promise"
export const Plugin = define({
id: "example",
setup: async (ctx) => {
await ctx.catalog.transform((catalog) => {
catalog.provider.update("example", (provider) => {
provider.name = "Example"
})
})
},
})
)js";

TEST_CASE("opencode v2: OpenCode's documented example renames its provider through catalog.transform, in both runtimes") {
  for (const char* runtime : {"node", "sandboxed"}) {
    CAPTURE(runtime);
    V2Fixture f(runtime);
    WriteFile(f.home.Sub("plugins/example.js"), kSeedExample);
    f.Open();
    core::Value entry = f.Entry("example");
    CHECK(At(entry, "state") == R"("enabled")");
    CHECK(At(entry, "runtime") == StrCat("\"", runtime, "\""));
    CHECK(Contains(core::ToJson(*entry.Find("events")), "catalog.transform"));
    // A catalog without the provider: update() creates it as OpenCode does, then renames it.
    core::Value r = f.Trigger("catalog.transform", R"({"providers":{}})");
    CHECK(At(r, "errors") == "[]");
    CHECK(At(r, "output.providers.example.provider") ==
          R"({"id":"example","name":"Example","api":{"type":"native","settings":{}},"request":{"headers":{},"body":{}}})");
    CHECK(At(r, "output.providers.example.models") == "{}");
    // A catalog that has it: only the name changes; other providers and the default stay.
    r = f.Trigger("catalog.transform", R"({"providers":{
        "example":{"provider":{"id":"example","name":"old","api":{"type":"aisdk","package":"@ai-sdk/x"}},
                   "models":{"m1":{"id":"m1","name":"M1"}}},
        "other":{"provider":{"id":"other","name":"Other"},"models":{}}},
      "default":{"providerID":"other","modelID":"x"}})");
    CHECK(At(r, "output.providers.example.provider.name") == R"("Example")");
    CHECK(At(r, "output.providers.example.provider.api.package") == R"("@ai-sdk/x")");
    CHECK(At(r, "output.providers.example.models.m1.name") == R"("M1")");
    CHECK(At(r, "output.providers.other.provider.name") == R"("Other")");
    CHECK(At(r, "output.default") == R"({"providerID":"other","modelID":"x"})");
  }
}

TEST_CASE("opencode v2: transforms run in registration order across modules, options reach setup, dispose removes one") {
  V2Fixture f("node");
  WriteFile(f.home.Sub("config.yaml"),
            "plugins:\n  overrides:\n    a:\n      options: {suffix: \" (tuned)\", agent: plan}\n");
  WriteFile(f.home.Sub("plugins/a.js"), R"js(import { define } from "@opencode-ai/plugin/v2/promise";
export default define({
  id: "a",
  setup: async (ctx) => {
    await ctx.catalog.transform((c) => c.provider.update("p", (p) => { p.name = "P"; }));
    await ctx.catalog.transform((c) => {
      c.provider.update("p", (p) => { p.name += ctx.options.suffix; });
      c.model.update("p", "m", (m) => { m.name = "Model M"; });
      c.model.default.set("p", "m");
    });
    const gone = await ctx.command.transform((d) => d.update("never", (c) => { c.template = "x"; }));
    await gone.dispose();
    await ctx.command.transform((d) => {
      d.update("review", (c) => { c.template = "Review $ARGUMENTS"; });
      d.remove("old");
    });
    await ctx.agent.transform((d) => {
      d.update("helper", (a) => { a.mode = "subagent"; });
      d.default(ctx.options.agent);
    });
  },
});
)js");
  // b.js loads after a.js (name order): its transform sees what a's left.
  WriteFile(f.home.Sub("plugins/b.js"), R"js(import { define } from "@opencode-ai/plugin/v2/promise";
export default define({
  id: "b",
  setup: (ctx) => ctx.catalog.transform((c) => {
    const p = c.provider.get("p");
    c.provider.update("p", (info) => { info.description = `after ${p.provider.name}, ${p.models.size} model`; });
    c.provider.remove("unwanted");
    c.model.update("p", "m", (m) => { m.request.body.baseURL = "http://127.0.0.1:9/v1"; });
  }),
});
)js");
  f.Open();
  core::Value r = f.Trigger("catalog.transform", R"({"providers":{"unwanted":{"provider":{"id":"unwanted"},"models":{}}}})");
  CHECK(At(r, "errors") == "[]");
  CHECK(At(r, "output.providers.p.provider.name") == R"x("P (tuned)")x");
  CHECK(At(r, "output.providers.p.provider.description") == R"x("after P (tuned), 1 model")x");
  CHECK(At(r, "output.providers.p.models.m.name") == R"("Model M")");
  CHECK(At(r, "output.providers.p.models.m.providerID") == R"("p")");
  // As in OpenCode, a request body's baseURL moves to api.url.
  CHECK(At(r, "output.providers.p.models.m.api.url") == R"("http://127.0.0.1:9/v1")");
  CHECK(At(r, "output.providers.p.models.m.request.body") == "{}");
  CHECK(At(r, "output.providers.unwanted") == "<missing>");
  CHECK(At(r, "output.default") == R"({"providerID":"p","modelID":"m"})");

  r = f.Trigger("command.transform", R"({"commands":{"old":{"name":"old","template":"o"}}})");
  CHECK(At(r, "output.commands") == R"({"review":{"name":"review","template":"Review $ARGUMENTS"}})");
  r = f.Trigger("agent.transform", "{}");
  CHECK(At(r, "output.agents.helper.mode") == R"("subagent")");
  CHECK(At(r, "output.agents.helper.permissions") == "[]");
  CHECK(At(r, "output.default") == R"("plan")");
}

TEST_CASE("opencode v2: reload re-runs a domain's transforms over the data last handed in") {
  V2Fixture f("sandboxed");
  WriteFile(f.home.Sub("plugins/counter.js"), R"js(import { define } from "@opencode-ai/plugin/v2/promise";
let runs = 0;
export default define({
  id: "counter",
  setup: async (ctx) => {
    await ctx.skill.transform((d) => { runs += 1; d.source({ type: "directory", path: `/skills/${runs}` }); });
    await ctx.reference.transform((d) => d.add("docs", { type: "local", path: "/docs" }));
  },
});
)js");
  f.Open();
  core::Value r = f.Trigger("skill.transform", R"({"sources":[{"type":"directory","path":"/base"}]})");
  CHECK(At(r, "output.sources") == R"([{"type":"directory","path":"/base"},{"type":"directory","path":"/skills/1"}])");
  // The host asks again without data: the transforms run again over the base it last gave.
  r = f.Trigger("skill.reload", "{}");
  CHECK(At(r, "output.sources") == R"([{"type":"directory","path":"/base"},{"type":"directory","path":"/skills/2"}])");
  r = f.Trigger("reference.transform", "{}");
  CHECK(At(r, "output.sources") == R"({"docs":{"type":"local","path":"/docs"}})");
}

TEST_CASE("opencode v2: the AI SDK hooks edit options, and the host learns which plugin set the SDK") {
  V2Fixture f("node");
  WriteFile(f.home.Sub("plugins/sdk.js"), R"js(import { define } from "@opencode-ai/plugin/v2/promise";
export default define({
  id: "sdk",
  setup: async (ctx) => {
    await ctx.aisdk.sdk((e) => {
      if (e.package !== "@ai-sdk/openai-compatible") return;
      e.options.headers = { "x-from": "plugin" };
      e.sdk = { languageModel: (id) => ({ id }) };
    });
    await ctx.aisdk.language((e) => { e.options.tuned = e.model.id; });
  },
});
)js");
  f.Open();
  core::Value r = f.Trigger("aisdk.sdk", R"({"model":{"id":"m"},"package":"@ai-sdk/openai-compatible","options":{"a":1}})");
  CHECK(At(r, "errors") == "[]");
  CHECK(At(r, "output.options") == R"({"a":1,"headers":{"x-from":"plugin"}})");
  CHECK(At(r, "output.sdkSetBy") == R"("sdk")");
  r = f.Trigger("aisdk.sdk", R"({"model":{"id":"m"},"package":"@ai-sdk/anthropic","options":{}})");
  CHECK(At(r, "output.sdkSetBy") == "<missing>");
  r = f.Trigger("aisdk.language", R"({"model":{"id":"m7"},"options":{}})");
  CHECK(At(r, "output.options.tuned") == R"("m7")");
}

TEST_CASE("opencode v2: a throwing transform is reported with its plugin, the Effect API and ctx.plugin are refused by name") {
  V2Fixture f("sandboxed");
  WriteFile(f.home.Sub("plugins/throws.js"), R"js(import { define } from "@opencode-ai/plugin/v2/promise";
export default define({
  id: "throws",
  setup: async (ctx) => {
    await ctx.catalog.transform(() => { throw new Error("catalog broke"); });
    let refused = "";
    try { await ctx.plugin.add({ id: "x", setup() {} }); } catch (e) { refused = e.message; }
    await ctx.command.transform((d) => d.update("refused", (c) => { c.template = refused; }));
  },
});
)js");
  WriteFile(f.home.Sub("plugins/effect.js"), R"js(export const Plugin = { id: "fx", effect: () => {} };
)js");
  f.Open();
  core::Value r = f.Trigger("catalog.transform", R"({"providers":{}})");
  CHECK(Contains(At(r, "errors"), R"("plugin":"throws")"));
  CHECK(Contains(At(r, "errors"), "catalog broke"));
  r = f.Trigger("command.transform", "{}");
  CHECK(Contains(At(r, "output.commands.refused.template"),
                 "ctx.plugin.add: plugline loads plugins from its configuration, not from other plugins"));
  core::Value effect = f.Entry("effect");
  CHECK(At(effect, "state") == R"("broken")");
  CHECK(Contains(At(effect, "reason"), "OpenCode's V2 Effect API"));
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline
