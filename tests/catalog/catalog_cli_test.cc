// The catalog as a user meets it: `plugline catalog build` over a folder of plugins, a real
// HTTP server on 127.0.0.1 serving it, and `plugline plugins --sync/--available/--install/
// --remove/--info` run as commands.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "core/digest.h"
#include "catalog/loopback_server.h"
#include "cli/cli_runner.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::catalog {
namespace {

using core::Sha256Hex;

using plugline::testing::Cli;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

std::string Shaper(std::string_view name, std::string_view version, std::string_view summary) {
  return StrCat("export default {\n  meta: { name: \"", name, "\", version: \"", version,
                "\", description: \"d\", tier: \"community\" },\n  match(c) { return { matched: "
                "c.startsWith(\"terraform\"), confidence: 0.9 }; },\n  shape() { return { summary: \"",
                summary, "\" }; },\n};\n");
}

// A catalog folder (served by a loopback server) and a home configured to use it.
struct Fixture {
  TempDir root;
  std::string dir = root.Sub("www");
  Cli cli;
  std::unique_ptr<LoopbackServer> server;
  std::string key_pem;
  std::string public_key;

  Fixture() {
    REQUIRE(core::MakeDirs(dir).ok());
    server = std::make_unique<LoopbackServer>(dir);
  }

  exec::ProcessResult Run(std::vector<std::string> args) { return cli.Run(std::move(args)); }

  // Writes catalog.yaml and builds index.json (signed when `sign`).
  void Build(std::string_view yaml, bool sign = false) {
    WriteFile(core::JoinPath(dir, "catalog.yaml"), yaml);
    std::vector<std::string> args = {"catalog", "build", dir, "--base-url", server->Url("/")};
    if (sign) {
      if (key_pem.empty()) {
        key_pem = root.Sub("key.pem");
        exec::ProcessSpec spec;
        spec.argv = {"openssl", "genpkey", "-algorithm", "ed25519", "-out", key_pem};
        auto made = exec::RunProcess(spec);
        REQUIRE((made.ok() && made->exit_status == 0));
      }
      args.push_back("--sign");
      args.push_back(key_pem);
    }
    auto built = Run(args);
    REQUIRE_MESSAGE(built.exit_status == 0, built.error_output);
    Touch(core::JoinPath(dir, "index.json"));
    if (sign) {
      const size_t at = built.output.find("public_key: ");
      REQUIRE(at != std::string::npos);
      public_key = built.output.substr(at + 12, 44);
    }
  }

  void Configure(std::string_view public_key_line = "") {
    WriteFile(cli.home.Sub("config.yaml"),
              StrCat("catalog:\n  url: ", server->Url("/index.json"), "\n", public_key_line));
  }

  std::string Plugin(std::string_view name) { return cli.home.Sub(StrCat("plugins/", name)); }

  // Moves a served file's modification time a second past the last one given, so that
  // If-Modified-Since (one-second resolution) sees every rewrite as new.
  void Touch(const std::string& path) {
    std::filesystem::last_write_time(
        path, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(++touches));
  }
  int touches = 0;
};

const char kTerra[] = R"(name: test
plugins:
  - id: terra
    file: terra-1.2.0.js
    version: 1.2.0
    kind: js-shaper
    description: terraform plans
    author: Ada
)";

TEST_CASE("catalog: build, sync, available, install verified, --info and the listing show it, remove") {
  Fixture f;
  WriteFile(core::JoinPath(f.dir, "terra-1.2.0.js"), Shaper("terra", "1.2.0", "planned"));
  f.Build(kTerra);
  f.Configure();
  auto sync = f.Run({"plugins", "--sync"});
  REQUIRE_MESSAGE(sync.exit_status == 0, sync.error_output);
  CHECK(absl::StrContains(sync.output, "1 plugins (updated)"));
  auto available = f.Run({"plugins", "--available"});
  REQUIRE(available.exit_status == 0);
  CHECK(absl::StrContains(available.output, "terra"));
  // A few seconds at most: the two commands ran one after the other (a slow machine, or one
  // under a sanitizer, may take more than one).
  CHECK(std::regex_search(available.output, std::regex("synced [0-9]{1,2} seconds ago")));

  auto install = f.Run({"plugins", "--install", "terra"});
  REQUIRE_MESSAGE(install.exit_status == 0, install.error_output);
  CHECK(absl::StrContains(install.output, "installed terra 1.2.0"));
  CHECK(absl::StrContains(install.output, "checksum verified"));
  CHECK(ReadFileOrEmpty(f.Plugin("terra.js")) == Shaper("terra", "1.2.0", "planned"));

  // The catalog's expected success: installed, enabled and checksum-verified, and listed.
  auto info = f.Run({"plugins", "--info", "terra", "--json"});
  REQUIRE(info.exit_status == 0);
  auto value = core::ParseJson(info.output, "info");
  REQUIRE(value.ok());
  const core::Value& p = value->Find("plugins")->as_array().at(0);
#if PLUGLINE_TEST_WITH_V8
  CHECK(p.Find("state")->as_string() == "enabled");
#else
  CHECK(p.Find("state")->as_string() == "broken");  // a JS plugin without V8: listed, with why
#endif
  const core::Value* record = p.Find("install");
  REQUIRE((record != nullptr && record->is_object()));
  CHECK(record->Find("verified")->as_bool());
  CHECK(record->Find("version")->as_string() == "1.2.0");
  CHECK(record->Find("sha256")->as_string() == Sha256Hex(Shaper("terra", "1.2.0", "planned")));
  CHECK(record->Find("catalog")->as_string() == f.server->Url("/index.json"));
  CHECK(record->Find("isolation")->as_string() == "process");
  auto text = f.Run({"plugins", "--info", "terra"});
  CHECK(absl::StrContains(text.output, "(verified at install)"));
#if PLUGLINE_TEST_WITH_V8
  std::string plan;
  for (int i = 0; i < 300; ++i) StrAppend(&plan, "  + resource \"aws_instance\" \"web_", i, "\" {}\n");
  auto shaped = f.cli.Run({"shape", "--command", "terraform plan"}, "", plan);
  CHECK(absl::StartsWith(shaped.output, "planned"));
#endif
  auto listing = f.Run({"plugins"});
  CHECK(absl::StrContains(listing.output, "terra "));
  CHECK(absl::StrContains(f.Run({"plugins", "--available"}).output, "1.2.0                "));

  auto removed = f.Run({"plugins", "--remove", "terra"});
  REQUIRE_MESSAGE(removed.exit_status == 0, removed.error_output);
  CHECK(!core::PathExists(f.Plugin("terra.js")));
  CHECK(!absl::StrContains(f.Run({"plugins"}).output, "terra "));
}

TEST_CASE("catalog: reinstall, upgrade, and an upgrade whose download fails keeps the old one") {
  Fixture f;
  WriteFile(core::JoinPath(f.dir, "terra-1.2.0.js"), Shaper("terra", "1.2.0", "old"));
  f.Build(kTerra);
  f.Configure();
  REQUIRE(f.Run({"plugins", "--install", "terra"}).exit_status == 0);
  auto again = f.Run({"plugins", "--install", "terra"});
  REQUIRE(again.exit_status == 0);
  CHECK(absl::StrContains(again.output, "reinstalled terra 1.2.0"));

  // 1.3.0 is listed; the file served is not what the index says.
  WriteFile(core::JoinPath(f.dir, "terra-1.3.0.js"), Shaper("terra", "1.3.0", "new"));
  f.Build(absl::StrReplaceAll(kTerra, {{"1.2.0", "1.3.0"}}));
  WriteFile(core::JoinPath(f.dir, "terra-1.3.0.js"), Shaper("terra", "1.3.0", "NEW"));
  REQUIRE(f.Run({"plugins", "--sync"}).exit_status == 0);
  CHECK(absl::StrContains(f.Run({"plugins", "--available"}).output, "1.2.0 (newer: 1.3.0)"));
  auto failed = f.Run({"plugins", "--install", "terra"});
  CHECK(failed.exit_status == 1);
  CHECK(absl::StrContains(failed.error_output, "checksum mismatch"));
  CHECK(ReadFileOrEmpty(f.Plugin("terra.js")) == Shaper("terra", "1.2.0", "old"));
  CHECK(absl::StrContains(f.Run({"plugins", "--info", "terra"}).output, "installed    1.2.0"));

  WriteFile(core::JoinPath(f.dir, "terra-1.3.0.js"), Shaper("terra", "1.3.0", "new"));
  auto upgraded = f.Run({"plugins", "--install", "terra"});
  REQUIRE_MESSAGE(upgraded.exit_status == 0, upgraded.error_output);
  CHECK(absl::StrContains(upgraded.output, "upgraded terra 1.2.0 -> 1.3.0"));
  CHECK(ReadFileOrEmpty(f.Plugin("terra.js")) == Shaper("terra", "1.3.0", "new"));
  // Nothing temporary is left beside it.
  for (const auto& entry : std::filesystem::directory_iterator(f.cli.home.Sub("plugins"))) {
    CHECK(entry.path().filename() == "terra.js");
  }
}

TEST_CASE("catalog: size mismatch, 404, truncated body, slow server, server down and redirect to file:// fail cleanly") {
  Fixture f;
  const std::string body = Shaper("terra", "1.2.0", "x");
  WriteFile(core::JoinPath(f.dir, "terra.js"), body);
  const std::string sha = Sha256Hex(body);
  auto index = [&](std::string_view url, size_t size) {
    const std::string path = core::JoinPath(f.dir, "index.json");
    WriteFile(path,
              StrCat(R"({"catalog": 1, "plugins": [{"id": "terra", "version": "1.2.0", "kind": "js-shaper", "url": ")",
                     url, R"(", "format": "js", "sha256": ")", sha, R"(", "size": )", size, "}]}"));
    f.Touch(path);
  };
  f.Configure();
  struct Case {
    std::string name, url;
    size_t size;
    std::vector<std::string> flags;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"larger than listed", "terra.js", body.size() - 1, {}, "size mismatch"},
      {"smaller than listed", "terra.js", body.size() + 1, {}, "size mismatch"},
      {"404", "missing.js", body.size(), {}, "HTTP 404"},
      {"truncated", "/truncated/terra.js", body.size(), {}, "transfer closed"},
      {"slow", "/slow/terra.js", body.size(), {"--timeout", "1"}, "timed out"},
      {"redirect to file://", "/redirect-file/etc/passwd", body.size(), {}, "Protocol \"file\" not supported"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    index(c.url, c.size);
    REQUIRE(f.Run({"plugins", "--sync"}).exit_status == 0);
    std::vector<std::string> args = {"plugins", "--install", "terra"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    auto run = f.Run(args);
    CHECK(run.exit_status == 1);
    CHECK_MESSAGE(absl::StrContains(run.error_output, c.expect), run.error_output);
    CHECK(absl::StrContains(run.error_output, "nothing was installed"));
    CHECK(!core::PathExists(f.Plugin("terra.js")));
  }
  // The server goes away: --sync says which catalog failed; --available still works from the
  // copy and says how old it is.
  index("terra.js", body.size());
  REQUIRE(f.Run({"plugins", "--sync"}).exit_status == 0);
  f.server->Stop();
  auto down = f.Run({"plugins", "--sync"});
  CHECK(down.exit_status == 1);
  CHECK(absl::StrContains(down.error_output, StrCat("catalog ", f.server->Url("/index.json"))));
  auto offline = f.Run({"plugins", "--available"});
  CHECK(offline.exit_status == 0);
  CHECK(absl::StrContains(offline.output, "terra"));
  CHECK(absl::StrContains(offline.output, "seconds ago"));
}

TEST_CASE("catalog: a signed index verifies — tampered or under another key it is refused") {
  Fixture f;
  WriteFile(core::JoinPath(f.dir, "terra-1.2.0.js"), Shaper("terra", "1.2.0", "s"));
  f.Build(kTerra, /*sign=*/true);
  f.Configure(StrCat("  public_key: ", f.public_key, "\n"));
  auto good = f.Run({"plugins", "--sync"});
  REQUIRE_MESSAGE(good.exit_status == 0, good.error_output);
  CHECK(absl::StrContains(good.output, "signature verified"));
  auto install = f.Run({"plugins", "--install", "terra"});
  REQUIRE(install.exit_status == 0);
  CHECK(absl::StrContains(install.output, "from a signed index"));

  // Tampered: one byte of the index changes, the signature does not.
  const std::string index_path = core::JoinPath(f.dir, "index.json");
  std::string index = ReadFileOrEmpty(index_path);
  WriteFile(index_path, absl::StrReplaceAll(index, {{"terraform plans", "terraform plan!"}}));
  f.Touch(index_path);
  auto tampered = f.Run({"plugins", "--sync"});
  CHECK(tampered.exit_status == 1);
  CHECK(absl::StrContains(tampered.error_output, "the signature does not match"));
  CHECK(absl::StrContains(tampered.error_output, f.server->Url("/index.json")));
  WriteFile(index_path, index);
  f.Touch(index_path);

  // Another key: what a catalog's owner would not have signed.
  TempDir other;
  exec::ProcessSpec spec;
  spec.argv = {"openssl", "genpkey", "-algorithm", "ed25519", "-out", other.Sub("k.pem")};
  REQUIRE(exec::RunProcess(spec).ok());
  f.key_pem = other.Sub("k.pem");
  const std::string configured = f.public_key;
  f.Build(kTerra, /*sign=*/true);
  f.Configure(StrCat("  public_key: ", configured, "\n"));
  CHECK(f.Run({"plugins", "--sync"}).exit_status == 1);
  // No signature at all.
  std::filesystem::remove(index_path + ".sig");
  f.Touch(index_path);
  auto unsigned_index = f.Run({"plugins", "--sync"});
  CHECK(unsigned_index.exit_status == 1);
  CHECK(absl::StrContains(unsigned_index.error_output, "its signature could not be fetched"));
}

TEST_CASE("catalog: a malformed entry is skipped with its reason, ids cannot climb out, hand-placed plugins are kept") {
  Fixture f;
  WriteFile(core::JoinPath(f.dir, "a.js"), Shaper("a", "1", "a"));
  const std::string sha = Sha256Hex(Shaper("a", "1", "a"));
  const size_t size = Shaper("a", "1", "a").size();
  WriteFile(core::JoinPath(f.dir, "index.json"),
            StrCat(R"({"plugins": [)",
                   R"({"id": "../evil", "version": "1", "kind": "js-shaper", "url": "a.js", "sha256": ")", sha, R"(", "size": )", size, "},",
                   R"({"id": "climber", "version": "1", "kind": "js-shaper", "url": "../a.js", "sha256": ")", sha, R"(", "size": )", size, "},",
                   R"({"id": "mine", "version": "1", "kind": "js-shaper", "url": "a.js", "sha256": ")", sha, R"(", "size": )", size, "}]}"));
  f.Configure();
  auto sync = f.Run({"plugins", "--sync"});
  REQUIRE_MESSAGE(sync.exit_status == 0, sync.error_output);
  CHECK(absl::StrContains(sync.output, "1 plugins"));
  CHECK(absl::StrContains(sync.error_output, "plugins[0] (../evil) is skipped"));
  CHECK(absl::StrContains(sync.error_output, "plugins[1] (climber) is skipped"));
  CHECK(f.Run({"plugins", "--install", "../evil"}).exit_status == 1);
  WriteFile(f.Plugin("mine.js"), "// my own\n");
  auto refused = f.Run({"plugins", "--install", "mine"});
  CHECK(refused.exit_status == 1);
  CHECK(absl::StrContains(refused.error_output, "you put there yourself"));
  CHECK(ReadFileOrEmpty(f.Plugin("mine.js")) == "// my own\n");
  auto remove = f.Run({"plugins", "--remove", "mine"});
  CHECK(remove.exit_status == 1);
  CHECK(absl::StrContains(remove.error_output, "was not installed from a catalog"));
  CHECK(core::PathExists(f.Plugin("mine.js")));
  auto builtin = f.Run({"plugins", "--remove", "builtin-test"});
  CHECK(builtin.exit_status == 1);
  CHECK(absl::StrContains(builtin.error_output, "--disable builtin-test"));
}

TEST_CASE("catalog: sync picks up a new entry with a conditional request, and two installs at once both land") {
  Fixture f;
  WriteFile(core::JoinPath(f.dir, "terra-1.2.0.js"), Shaper("terra", "1.2.0", "t"));
  f.Build(kTerra);
  f.Configure();
  REQUIRE(f.Run({"plugins", "--sync"}).exit_status == 0);
  auto same = f.Run({"plugins", "--sync"});
  CHECK(absl::StrContains(same.output, "not modified"));
  CHECK(absl::StrContains(ReadFileOrEmpty(f.root.Sub("requests.log")), "/index.json 304 ims="));
  WriteFile(core::JoinPath(f.dir, "other-1.0.0.js"), Shaper("other", "1.0.0", "o"));
  f.Build(StrCat(kTerra, "  - id: other\n    file: other-1.0.0.js\n    version: 1.0.0\n    kind: js-shaper\n"));
  auto updated = f.Run({"plugins", "--sync"});
  CHECK(absl::StrContains(updated.output, "2 plugins (updated)"));
  std::thread a([&] { CHECK(f.Run({"plugins", "--install", "terra"}).exit_status == 0); });
  std::thread b([&] { CHECK(f.Run({"plugins", "--install", "other"}).exit_status == 0); });
  a.join();
  b.join();
  auto state = core::ParseJson(ReadFileOrEmpty(f.cli.home.Sub("plugins.json")), "plugins.json");
  REQUIRE(state.ok());
  CHECK(state->Find("plugins")->Find("terra")->Find("installed") != nullptr);
  CHECK(state->Find("plugins")->Find("other")->Find("installed") != nullptr);
}

TEST_CASE("catalog: an exec plugin arrives as a tar.gz folder and runs — --remove takes the folder") {
  Fixture f;
  exec::ProcessSpec spec;
  spec.argv = {"python3", plugline::testing::SourceDir() + "/catalog/make_archive.py",
               core::JoinPath(f.dir, "guard-1.0.0.tgz"),
               R"([{"name": "guard", "type": "dir"},
                   {"name": "guard/plugin.yaml", "type": "file", "data": "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\n"},
                   {"name": "guard/run.sh", "type": "file", "mode": 493, "data": "#!/bin/sh\ncase \"$(cat)\" in *'rm -rf'*) echo '{\"deny\":true,\"reason\":\"no\"}';; *) echo '{}';; esac\n"}])"};
  auto made = exec::RunProcess(spec);
  REQUIRE((made.ok() && made->exit_status == 0));
  f.Build("plugins:\n  - id: guard\n    file: guard-1.0.0.tgz\n    version: 1.0.0\n    kind: exec-hook\n");
  f.Configure();
  auto install = f.Run({"plugins", "--install", "guard@1.0.0"});
  REQUIRE_MESSAGE(install.exit_status == 0, install.error_output);
  CHECK(core::IsRegularFile(f.Plugin("guard/plugin.yaml")));
  const std::string payload = R"({"tool":"terminal","arguments":"{\"command\":\"rm -rf /\"}"})";
  CHECK(f.cli.Run({"hook", "pre_tool_call"}, "", payload).exit_status == 3);
  REQUIRE(f.Run({"plugins", "--remove", "guard"}).exit_status == 0);
  CHECK(!core::PathExists(f.Plugin("guard")));
  CHECK(f.cli.Run({"hook", "pre_tool_call"}, "", payload).exit_status == 0);
}

}  // namespace
}  // namespace plugline::catalog
