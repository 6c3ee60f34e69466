// Project trust: what a project's content is, and the trust store in a temporary home. Real
// files, real hashes.
#include "core/trust.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "catalog/download.h"
#include "core/fs.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

std::vector<std::string> Paths(const ProjectContent& content) {
  std::vector<std::string> paths;
  for (const ContentFile& file : content.files) paths.push_back(file.path);
  return paths;
}

bool Has(const std::vector<std::string>& paths, std::string_view path) {
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

TEST_CASE("trust content: config, plugins, config dirs and the project's packages with their dependencies") {
  TempDir project, elsewhere;
  WriteFile(project.Sub(".plugline/config.yaml"),
            StrCat("plugins:\n  dirs: [tools/plugins, ", elsewhere.path(), "]\n",
                   "  packages: [opencode-a, opencode-home-only]\n"));
  WriteFile(project.Sub(".plugline/plugins/guard/plugin.yaml"), "name: guard\n");
  WriteFile(project.Sub(".plugline/plugins/guard/lib/.hidden.sh"), "echo hidden\n");
  WriteFile(project.Sub(".plugline/plugins/shaper.js"), "export default {};\n");
  WriteFile(project.Sub("tools/plugins/t.js"), "export default {};\n");
  WriteFile(elsewhere.Sub("e.js"), "export default {};\n");
  WriteFile(project.Sub("node_modules/opencode-a/package.json"),
            R"({"name":"opencode-a","dependencies":{"dep-b":"1"},"peerDependencies":{"../x":"1"}})");
  WriteFile(project.Sub("node_modules/opencode-a/index.js"), "export default async () => ({});\n");
  WriteFile(project.Sub("node_modules/dep-b/package.json"), R"({"name":"dep-b"})");
  WriteFile(project.Sub("node_modules/dep-b/index.js"), "export const b = 1;\n");
  WriteFile(project.Sub("node_modules/unrelated/index.js"), "export const u = 1;\n");
  WriteFile(project.Sub("src/main.c"), "int main(void) { return 0; }\n");
  // A FIFO never loads, and reading it would block: not part of the content.
  REQUIRE(::mkfifo(project.Sub(".plugline/plugins/pipe").c_str(), 0600) == 0);
  // A symlink loop is walked once.
  std::filesystem::create_directory_symlink("..", project.Sub(".plugline/plugins/guard/lib/up"));

  auto content = ScanProjectContent(project.path());
  REQUIRE_MESSAGE(content.ok(), content.status().ToString());
  std::vector<std::string> paths = Paths(*content);
  CAPTURE(paths.size());
  CHECK(Has(paths, ".plugline/config.yaml"));
  CHECK(Has(paths, ".plugline/plugins/guard/plugin.yaml"));
  CHECK(Has(paths, ".plugline/plugins/guard/lib/.hidden.sh"));
  CHECK(Has(paths, ".plugline/plugins/shaper.js"));
  CHECK(Has(paths, "tools/plugins/t.js"));
  CHECK(Has(paths, elsewhere.Sub("e.js")));  // outside the project: its absolute path
  CHECK(Has(paths, "node_modules/opencode-a/index.js"));
  CHECK(Has(paths, "node_modules/dep-b/index.js"));  // a declared dependency, hoisted
  CHECK(!Has(paths, "node_modules/unrelated/index.js"));
  CHECK(!Has(paths, "src/main.c"));
  CHECK(!Has(paths, ".plugline/plugins/pipe"));
  CHECK(paths.size() == 10);
  CHECK(std::is_sorted(paths.begin(), paths.end()));
  for (const ContentFile& file : content->files) {
    if (file.path == ".plugline/plugins/shaper.js") {
      CHECK(file.sha256 == core::Sha256Hex("export default {};\n"));
    }
  }
  // The digest is of the whole listing: any file's change changes it.
  WriteFile(project.Sub("node_modules/dep-b/index.js"), "export const b = 2;\n");
  auto again = ScanProjectContent(project.path());
  REQUIRE(again.ok());
  CHECK(again->digest != content->digest);
}

TEST_CASE("trust content: a project without .plugline/ has nothing, a missing one is an error") {
  TempDir project;
  WriteFile(project.Sub("README"), "hello\n");
  auto content = ScanProjectContent(project.path());
  REQUIRE(content.ok());
  CHECK(content->files.empty());
  CHECK(absl::IsNotFound(ScanProjectContent(project.Sub("nope")).status()));
}

TEST_CASE("trust content: past the file bound a project cannot be trusted") {
  TempDir project;
  std::string dir = project.Sub(".plugline/plugins/many");
  REQUIRE(MakeDirs(dir).ok());
  size_t made = 0;
  for (size_t i = 0; i <= kTrustMaxFiles; ++i) {
    int fd = ::open(StrCat(dir, "/f", i).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) ++made;
    ::close(fd);
  }
  REQUIRE(made == kTrustMaxFiles + 1);
  auto content = ScanProjectContent(project.path());
  CHECK(absl::IsResourceExhausted(content.status()));
  CHECK(Contains(std::string(content.status().message()), StrCat("more than ", kTrustMaxFiles, " files")));
  TempDir home;
  TrustStore store(home.path());
  CHECK(absl::IsResourceExhausted(store.Trust(project.path(), nullptr).status()));
  TrustCheck check = store.Check(project.path(), nullptr);
  CHECK(check.state == TrustState::kUnknown);
  CHECK(Contains(UntrustedReason(check), "cannot be checked"));
}

TEST_CASE("trust store: trust, change, add, remove, trust again, revoke") {
  TempDir home, project;
  WriteFile(project.Sub(".plugline/plugins/a.js"), "export default {};\n");
  TrustStore store(home.path());
  const std::string real = std::filesystem::canonical(project.path()).string();

  TrustCheck check = store.Check(project.path(), nullptr);
  CHECK(check.state == TrustState::kUntrusted);
  CHECK(check.project == real);
  CHECK(Contains(UntrustedReason(check), StrCat("`plugline trust ", real, "`")));

  auto trusted = store.Trust(project.path(), nullptr);
  REQUIRE_MESSAGE(trusted.ok(), trusted.status().ToString());
  CHECK(trusted->files.size() == 1);
  CHECK(store.Check(project.path(), nullptr).state == TrustState::kTrusted);
  CHECK(UntrustedReason(store.Check(project.path(), nullptr)).empty());
  std::string stored = ReadFileOrEmpty(store.path());
  CHECK(Contains(stored, R"("version":1)"));
  CHECK(Contains(stored, core::Sha256Hex("export default {};\n")));
  struct stat st;
  REQUIRE(::stat(store.path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // Same size, mtime set back: the ctime still tells, and the hash is taken again.
  std::string a = project.Sub(".plugline/plugins/a.js");
  REQUIRE(::stat(a.c_str(), &st) == 0);
  WriteFile(a, "export default [];\n");
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, a.c_str(), times, 0) == 0);
  check = store.Check(project.path(), nullptr);
  CHECK(check.state == TrustState::kChanged);
  REQUIRE(check.changed.size() == 1);
  CHECK(check.changed[0] == ".plugline/plugins/a.js");
  CHECK(Contains(UntrustedReason(check), "changed since it was trusted (1 changed (.plugline/plugins/a.js))"));
  CHECK(Contains(UntrustedReason(check), "again"));

  WriteFile(a, "export default {};\n");  // back as it was: trusted again
  CHECK(store.Check(project.path(), nullptr).state == TrustState::kTrusted);

  WriteFile(project.Sub(".plugline/plugins/b.js"), "export default {};\n");
  check = store.Check(project.path(), nullptr);
  CHECK(check.state == TrustState::kChanged);
  CHECK(check.added == std::vector<std::string>{".plugline/plugins/b.js"});
  ::unlink(a.c_str());
  check = store.Check(project.path(), nullptr);
  CHECK(check.removed == std::vector<std::string>{".plugline/plugins/a.js"});
  REQUIRE(store.Trust(project.path(), nullptr).ok());
  CHECK(store.Check(project.path(), nullptr).state == TrustState::kTrusted);

  auto list = store.List(nullptr);
  REQUIRE(list.ok());
  REQUIRE(list->size() == 1);
  CHECK((*list)[0].project == real);
  CHECK((*list)[0].files.size() == 1);

  CHECK(store.Revoke(project.path(), nullptr).ok());
  CHECK(store.Check(project.path(), nullptr).state == TrustState::kUntrusted);
  CHECK(absl::IsNotFound(store.Revoke(project.path(), nullptr)));
}

TEST_CASE("trust store: nothing to trust is not an error of Check, but Trust refuses it") {
  TempDir home, project;
  TrustStore store(home.path());
  CHECK(store.Check(project.path(), nullptr).state == TrustState::kNothingToTrust);
  CHECK(absl::IsFailedPrecondition(store.Trust(project.path(), nullptr).status()));
  CHECK(!PathExists(store.path()));
}

TEST_CASE("trust store: a malformed trust.json is moved aside with a warning, and trusts nothing") {
  TempDir home, project;
  WriteFile(project.Sub(".plugline/config.yaml"), "plugins: {}\n");
  TrustStore store(home.path());
  REQUIRE(store.Trust(project.path(), nullptr).ok());
  WriteFile(store.path(), R"({"version":1,"projects":{"/p":{"trusted_at":"x","digest":"y"}}})");
  std::vector<std::string> warnings;
  CHECK(store.Check(project.path(), &warnings).state == TrustState::kUntrusted);
  REQUIRE(warnings.size() == 1);
  CHECK(Contains(warnings[0], "trust.json is malformed"));
  CHECK(Contains(warnings[0], "files` is missing"));
  CHECK(Contains(warnings[0], "moved it aside to"));
  CHECK(!PathExists(store.path()));
  bool kept = false;
  for (const auto& entry : std::filesystem::directory_iterator(home.path())) {
    kept = kept || entry.path().filename().string().starts_with("trust.json.corrupt-");
  }
  CHECK(kept);
}

TEST_CASE("trust store: a newer trust.json is left alone and trusts nothing") {
  TempDir home, project;
  WriteFile(project.Sub(".plugline/config.yaml"), "plugins: {}\n");
  TrustStore store(home.path());
  const std::string newer = R"({"version":2,"projects":{}})";
  WriteFile(store.path(), newer);
  std::vector<std::string> warnings;
  CHECK(store.Check(project.path(), &warnings).state == TrustState::kUntrusted);
  REQUIRE(!warnings.empty());
  CHECK(Contains(warnings[0], "newer than this plugline"));
  CHECK(absl::IsFailedPrecondition(store.Trust(project.path(), nullptr).status()));
  CHECK(ReadFileOrEmpty(store.path()) == newer);
}

TEST_CASE("trust: running in the folder that holds the home is not a project") {
  TempDir dir;
  REQUIRE(MakeDirs(dir.Sub(".plugline")).ok());
  CHECK(EffectiveProjectDir(dir.Sub(".plugline"), dir.path()).empty());
  TempDir home;
  CHECK(EffectiveProjectDir(home.path(), dir.path()) ==
        std::filesystem::canonical(dir.path()).string());
  CHECK(EffectiveProjectDir(home.path(), "").empty());
  CHECK(EffectiveProjectDir(home.path(), dir.Sub("missing")).empty());
}

}  // namespace
}  // namespace plugline::core
