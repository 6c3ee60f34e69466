#include "catalog/download.h"

#include <doctest/doctest.h>

#include <thread>

#include "absl/time/clock.h"
#include "core/fs.h"
#include "exec/process.h"
#include "catalog/loopback_server.h"
#include "test_util.h"

namespace plugline::catalog {
namespace {

using core::Sha256Hex;

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

constexpr char kPayload[] = "export default { meta: { name: \"demo\" } };\n";
// A well-formed digest that is not kPayload's.
constexpr char kWrongSha256[] =
    "8b0a4a2e8d2a5f4b8a3a0c8de5e1e4e4b6b3c0e5e7e8f2b7d8d6a1e6f0a0c9f1";

TEST_CASE("Sha256Hex matches the standard test vector") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("file:// downloads verify the checksum, a mismatch leaves nothing behind") {
  TempDir dir;
  WriteFile(dir.Sub("plugin.js"), kPayload);
  std::string sha = Sha256Hex(kPayload);
  DownloadOptions options;
  options.expected_sha256 = sha;
  auto ok = DownloadToFile("file://" + dir.Sub("plugin.js"), dir.Sub("installed.js"), options);
  REQUIRE_MESSAGE(ok.ok(), ok.status().ToString());
  CHECK(ok->sha256 == sha);
  CHECK(ReadFileOrEmpty(dir.Sub("installed.js")) == kPayload);

  options.expected_sha256 = std::string(64, '0');
  auto bad = DownloadToFile("file://" + dir.Sub("plugin.js"), dir.Sub("other.js"), options);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kDataLoss);
  std::string message(bad.status().message());
  CHECK(message.find("checksum mismatch") != std::string::npos);
  CHECK(message.find(sha) != std::string::npos);
  CHECK_FALSE(core::PathExists(dir.Sub("other.js")));
  auto names = core::ListDir(dir.path());
  CHECK(names->size() == 2);  // plugin.js and installed.js: no temporary left

  auto missing = Fetch("file://" + dir.Sub("nope.js"), DownloadOptions{});
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  auto scheme = Fetch("ftp://example.org/x", DownloadOptions{});
  CHECK(scheme.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("http:// downloads from a real server on loopback") {
  TempDir root;
  WriteFile(root.Sub("index.json"), "{\"plugins\":[]}");
  WriteFile(root.Sub("plugin.js"), kPayload);
  WriteFile(root.Sub("big.bin"), std::string(300000, 'b'));
  LoopbackServer server(root.path());

  TempDir dest;
  DownloadOptions options;
  options.expected_sha256 = Sha256Hex(kPayload);
  auto ok = DownloadToFile(server.Url("/plugin.js"), dest.Sub("plugin.js"), options);
  REQUIRE_MESSAGE(ok.ok(), ok.status().ToString());
  CHECK(ReadFileOrEmpty(dest.Sub("plugin.js")) == kPayload);

  auto redirected = Fetch(server.Url("/redirect/index.json"), DownloadOptions{});
  REQUIRE(redirected.ok());
  CHECK(redirected->content == "{\"plugins\":[]}");

  auto not_found = Fetch(server.Url("/missing.js"), DownloadOptions{});
  REQUIRE_FALSE(not_found.ok());
  CHECK(not_found.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(not_found.status().message()).find("HTTP 404") != std::string::npos);

  DownloadOptions small;
  small.max_bytes = 1000;
  auto too_big = DownloadToFile(server.Url("/big.bin"), dest.Sub("big.bin"), small);
  CHECK(too_big.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK_FALSE(core::PathExists(dest.Sub("big.bin")));

  options.expected_sha256 = kWrongSha256;
  auto mismatch = DownloadToFile(server.Url("/plugin.js"), dest.Sub("again.js"), options);
  CHECK(mismatch.status().code() == absl::StatusCode::kDataLoss);
  CHECK_FALSE(core::PathExists(dest.Sub("again.js")));
}

TEST_CASE("a connection refused is Unavailable naming the URL") {
  auto refused = Fetch("http://127.0.0.1:9/x", DownloadOptions{});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(refused.status().message()).find("http://127.0.0.1:9/x") == 0);
}

}  // namespace
}  // namespace plugline::catalog
