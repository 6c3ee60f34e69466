#include "test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include "core/trust.h"

namespace plugline::testing {

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/plugline-test-XXXXXX";
  char* made = ::mkdtemp(pattern.data());
  REQUIRE(made != nullptr);
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Sub(std::string_view name) const { return path_ + "/" + std::string(name); }

void WriteFile(const std::string& path, std::string_view content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  REQUIRE(out.good());
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  REQUIRE(out.good());
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string SourceDir() { return PLUGLINE_TEST_SOURCE_DIR; }
std::string BinDir() { return PLUGLINE_TEST_BIN_DIR; }

void TrustProject(const std::string& home, const std::string& project) {
  auto trusted = core::TrustStore(home, core::OpenCodeLocationsOn(home)).Trust(project, nullptr);
  if (absl::IsFailedPrecondition(trusted.status())) return;  // nothing to trust
  REQUIRE_MESSAGE(trusted.ok(), trusted.status().ToString());
}

}  // namespace plugline::testing
