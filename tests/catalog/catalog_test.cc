// The catalog's parts on their own: the index format, versions, URLs, Ed25519 signatures
// (real OpenSSL keys), and archives (real tar and zip files, hostile ones included) unpacked
// with libarchive.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "catalog/archive.h"
#include "core/digest.h"
#include "catalog/index.h"
#include "catalog/signature.h"
#include "core/fs.h"
#include "core/strings.h"
#include "exec/process.h"
#include "test_util.h"

namespace plugline::catalog {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

const std::string kSha(64, 'a');

std::string Entry(std::string_view fields) {
  return StrCat(R"({"id": "terra", "version": "1.0.0", "kind": "js-shaper", "url": "terra.js", "sha256": ")",
                kSha, R"(", "size": 10)", fields, "}");
}

TEST_CASE("catalog index: entries resolve against the index URL — a bad entry is skipped with why") {
  const std::string climbing = StrCat(R"({"id": "x", "version": "1", "kind": "js-shaper", "url": "../x.js", "sha256": ")",
                                      kSha, R"(", "size": 1})");
  const std::string json = StrCat(R"({"catalog": 1, "name": "n", "plugins": [)", Entry(""), ",",
                                  climbing, ",", R"({"id": "y"})", ",",
                                  Entry(R"(, "tier": "gold")"), ",", Entry(""), "]}");
  auto index = ParseIndex(json, "https://example.org/c/index.json", "https://example.org/c/index.json");
  REQUIRE_MESSAGE(index.ok(), index.status().ToString());
  REQUIRE(index->plugins.size() == 1);
  CHECK(index->plugins[0].url == "https://example.org/c/terra.js");
  CHECK(index->plugins[0].format == "js");
  CHECK(index->plugins[0].tier == "community");
  REQUIRE(index->skipped.size() == 4);
  CHECK(absl::StrContains(index->skipped[0], "climbs out of the catalog"));
  CHECK(absl::StrContains(index->skipped[1], "plugins[2] (y) is skipped: `size` is missing"));
  CHECK(absl::StrContains(index->skipped[2], "`tier` \"gold\""));
  CHECK(absl::StrContains(index->skipped[3], "version 1.0.0 is listed twice"));
  CHECK(absl::StrContains(index->skipped[0], "https://example.org/c/index.json: plugins[1]"));

  CHECK(!ParseIndex("[]", "u", "https://e/i.json").ok());
  CHECK(!ParseIndex("{\"plugins\": 3}", "u", "https://e/i.json").ok());
  auto newer = ParseIndex(R"({"catalog": 2, "plugins": []})", "https://e/i.json", "https://e/i.json");
  CHECK(newer.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(newer.status().message(), "a newer plugline is needed"));
}

TEST_CASE("catalog index: ids, versions, URLs and formats that could escape are refused") {
  CatalogEntry e;
  e.id = "terra";
  e.version = "1.0.0";
  e.tier = "community";
  e.kind = "js-shaper";
  e.format = "js";
  e.sha256 = kSha;
  CHECK(ValidateEntry(e).ok());
  for (const char* id : {"../x", "a/b", ".hidden", "", "builtin-test"}) {
    CatalogEntry bad = e;
    bad.id = id;
    CHECK_MESSAGE(!ValidateEntry(bad).ok(), id);
  }
  for (const char* version : {"../1", "1/2", "", "1..2", "-1"}) {
    CHECK_MESSAGE(!IsValidVersion(version), version);
  }
  CatalogEntry exec = e;
  exec.kind = "exec-hook";
  CHECK(!ValidateEntry(exec).ok());  // a folder plugin must be an archive
  exec.format = "tar.gz";
  CHECK(ValidateEntry(exec).ok());
  CHECK(*ResolveUrl("https://e.org/a/index.json", "x.js") == "https://e.org/a/x.js");
  CHECK(*ResolveUrl("https://e.org/a/index.json", "/x.js") == "https://e.org/x.js");
  CHECK(*ResolveUrl("https://e.org/a/index.json", "http://o.org/y.tgz") == "http://o.org/y.tgz");
  CHECK(!ResolveUrl("https://e.org/a/index.json", "../x.js").ok());
  CHECK(!ResolveUrl("https://e.org/a/index.json", "ftp://x/y.js").ok());
  CHECK(FormatOfUrl("https://e/x-1.0.tar.gz?sig=1") == "tar.gz");
  CHECK(FormatOfUrl("https://e/x.mjs") == "mjs");
}

TEST_CASE("catalog versions order numerically, a release after its pre-releases") {
  CHECK(CompareVersions("1.10.0", "1.9.9") > 0);
  CHECK(CompareVersions("1.0", "1.0.0") == 0);
  CHECK(CompareVersions("1.0.0-rc.1", "1.0.0") < 0);
  CHECK(CompareVersions("1.0.0-rc.2", "1.0.0-rc.10") < 0);
  CHECK(CompareVersions("2.0.0", "10.0.0") < 0);
}

TEST_CASE("catalog signatures: a real Ed25519 key signs, the public key verifies, a change fails") {
  TempDir dir;
  exec::ProcessSpec spec;
  spec.argv = {"openssl", "genpkey", "-algorithm", "ed25519", "-out", dir.Sub("key.pem")};
  auto made = exec::RunProcess(spec);
  REQUIRE((made.ok() && made->exit_status == 0));
  auto key = ReadSigningKey(dir.Sub("key.pem"));
  REQUIRE_MESSAGE(key.ok(), key.status().ToString());
  auto signature = Sign("{\"plugins\": []}", *key);
  REQUIRE(signature.ok());
  CHECK(Verify("{\"plugins\": []}", *signature, key->public_base64).ok());
  CHECK(Verify("{\"plugins\": []}", *signature + "\n", key->public_base64).ok());
  auto changed = Verify("{\"plugins\": [] }", *signature, key->public_base64);
  CHECK(changed.code() == absl::StatusCode::kPermissionDenied);
  // The PEM form of the public key works too (what `openssl pkey -pubout` prints).
  spec.argv = {"openssl", "pkey", "-in", dir.Sub("key.pem"), "-pubout", "-out", dir.Sub("pub.pem")};
  REQUIRE(exec::RunProcess(spec).ok());
  CHECK(Verify("{\"plugins\": []}", *signature, ReadFileOrEmpty(dir.Sub("pub.pem"))).ok());
  CHECK(Verify("x", *signature, "not a key").code() == absl::StatusCode::kInvalidArgument);
  CHECK(Verify("x", "@@", key->public_base64).code() == absl::StatusCode::kInvalidArgument);
  WriteFile(dir.Sub("rsa.pem"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
  CHECK(!ReadSigningKey(dir.Sub("rsa.pem")).ok());
}

// A real archive with the given entries (tests/catalog/make_archive.py).
std::string Archive(const TempDir& dir, std::string_view name, std::string_view spec_json) {
  exec::ProcessSpec spec;
  const std::string path = dir.Sub(std::string(name));
  spec.argv = {"python3", plugline::testing::SourceDir() + "/catalog/make_archive.py", path,
               std::string(spec_json)};
  auto made = exec::RunProcess(spec);
  const std::string said = made.ok() ? made->output : std::string(made.status().message());
  REQUIRE_MESSAGE((made.ok() && made->exit_status == 0), said);
  return ReadFileOrEmpty(path);
}

TEST_CASE("archives: a plugin folder unpacks whole (tar.gz, tar, zip), one top folder is the plugin") {
  TempDir dir;
  const char kSpec[] = R"([{"name": "guard", "type": "dir"},
      {"name": "guard/plugin.yaml", "type": "file", "data": "name: guard\n"},
      {"name": "guard/run.sh", "type": "file", "mode": 493, "data": "#!/bin/sh\n"},
      {"name": "guard/lib/link", "type": "symlink", "target": "../run.sh"}])";
  for (const char* format : {"tar.gz", "tar", "zip"}) {
    CAPTURE(format);
    const std::string data = Archive(dir, StrCat("g.", format), kSpec);
    const std::string dest = dir.Sub(StrCat("out-", format));
    REQUIRE(InstallArchive(data, format, dest).ok());
    CHECK(ReadFileOrEmpty(dest + "/plugin.yaml") == "name: guard\n");
    if (std::string_view(format) != "zip") {
      struct stat st;
      REQUIRE(::stat((dest + "/run.sh").c_str(), &st) == 0);
      CHECK((st.st_mode & 0100) != 0);
      CHECK(std::filesystem::is_symlink(dest + "/lib/link"));
    }
    // Again over it: replaced in one rename, nothing hidden left behind.
    REQUIRE(InstallArchive(data, format, dest).ok());
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(!entry.path().filename().string().starts_with("."));
  }
}

TEST_CASE("archives: escapes, absolute paths, links out, devices, hard links and bombs are refused, nothing left") {
  TempDir dir;
  struct Case {
    const char* name;
    const char* spec;
    const char* expect;
  };
  const Case cases[] = {
      {"dot-dot", R"([{"name": "p/../../evil", "type": "file", "data": "x"}])", "climbs out"},
      {"absolute", R"([{"name": "/tmp/evil", "type": "file", "data": "x"}])", "absolute path"},
      {"link out", R"([{"name": "p/l", "type": "symlink", "target": "../../../etc"}])", "points outside"},
      {"absolute link", R"([{"name": "p/l", "type": "symlink", "target": "/etc/passwd"}])", "points outside"},
      {"through a link", R"([{"name": "l", "type": "symlink", "target": "."}, {"name": "l/x", "type": "file", "data": "x"}])", "through the link"},
      {"fifo", R"([{"name": "p/f", "type": "fifo"}])", "device, FIFO or socket"},
      {"device", R"([{"name": "p/d", "type": "chardev"}])", "device, FIFO or socket"},
      {"hard link", R"([{"name": "p/a", "type": "file", "data": "x"}, {"name": "p/h", "type": "hardlink", "target": "/etc/passwd"}])", "hard link"},
      {"bomb", R"([{"name": "p/zeros", "type": "zeros", "size": 3000000}])", "unpacks to more than"},
  };
  ArchiveLimits limits;
  limits.max_unpacked_bytes = 2 << 20;
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string data = Archive(dir, "a.tgz", c.spec);
    const std::string dest = dir.Sub("plugins/p");
    REQUIRE(core::MakeDirs(dir.Sub("plugins")).ok());
    absl::Status status = InstallArchive(data, "tar.gz", dest, limits);
    CHECK(!status.ok());
    CHECK_MESSAGE(absl::StrContains(status.message(), c.expect), status.message());
    CHECK(!core::PathExists(dest));
    CHECK(std::filesystem::is_empty(dir.Sub("plugins")));
    CHECK(!core::PathExists("/tmp/evil"));
  }
  // A zip bomb too (deflate packs zeros a thousandfold).
  const std::string zip = Archive(dir, "b.zip", R"([{"name": "p/zeros", "type": "zeros", "size": 3000000}])");
  CHECK(zip.size() < 100000);
  CHECK(absl::StrContains(InstallArchive(zip, "zip", dir.Sub("plugins/z"), limits).message(),
                          "unpacks to more than"));
  CHECK(!InstallArchive("not an archive", "tar.gz", dir.Sub("plugins/n")).ok());
}

}  // namespace
}  // namespace plugline::catalog
