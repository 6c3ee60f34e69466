#include "test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include "core/strings.h"
#include "core/text.h"
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

std::string ReadFixture(std::string_view family, std::string_view name) {
  return ReadFileOrEmpty(StrCat(SourceDir(), "/fixtures/", family, "/", name, ".out"));
}

std::vector<std::string> LostLocations(std::string_view output, std::string_view summary,
                                       std::string_view marker) {
  std::vector<std::string> lost;
  for (std::string_view line : core::SplitLines(output)) {
    const size_t at = line.find(marker);
    if (at == std::string_view::npos) continue;
    const std::string where(line.substr(0, at));
    if (!Contains(summary, where + ";") && !Contains(summary, where + " ") &&
        !Contains(summary, where + ":") && !Contains(summary, where + "\n")) {
      lost.push_back(where);
    }
  }
  return lost;
}

void TrustProject(const std::string& home, const std::string& project) {
  auto trusted = core::TrustStore(home, core::OpenCodeLocationsOn(home)).Trust(project, nullptr);
  if (absl::IsFailedPrecondition(trusted.status())) return;  // nothing to trust
  REQUIRE_MESSAGE(trusted.ok(), trusted.status().ToString());
}

}  // namespace plugline::testing
