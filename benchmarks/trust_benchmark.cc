// Project trust: what checking a project's content costs on every command. A temporary project
// with N files of S bytes under .plugline/plugins/ (in folders of 50): hashing all of it (what
// `plugline trust` does, and a check after every file changed), checking a trusted project
// whose files did not change (one stat per file, recorded hashes reused), and Host::Create with
// that trusted project against Host::Create with no project.
//
//   trust_benchmark [files=1000] [bytes=4096] [runs=20]
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/fs.h"
#include "core/strings.h"
#include "core/trust.h"
#include "plugline/host.h"

namespace {

using plugline::bench::NowMs;
using plugline::bench::Print;
using plugline::bench::Summarize;

}  // namespace

int main(int argc, char** argv) {
  const size_t files = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000;
  const size_t bytes = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 4096;
  const int runs = argc > 3 ? std::atoi(argv[3]) : 20;
  char root_template[] = "/tmp/plugline-trust-bench-XXXXXX";
  if (::mkdtemp(root_template) == nullptr) return 1;
  const std::string root = root_template;
  const std::string home = root + "/home";
  const std::string project = root + "/project";
  const std::string content(bytes, 'x');
  for (size_t i = 0; i < files; ++i) {
    const std::string dir = plugline::StrCat(project, "/.plugline/plugins/p", i / 50);
    if (!plugline::core::MakeDirs(dir).ok()) return 1;
    if (!plugline::core::WriteFileAtomic(plugline::StrCat(dir, "/f", i, ".txt"), content,
                                         plugline::core::Durability::kNone)
             .ok()) {
      return 1;
    }
  }
  std::printf("project: %zu files of %zu bytes (%.1f MiB), %d runs\n", files, bytes,
              static_cast<double>(files * bytes) / (1 << 20), runs);

  std::vector<double> hash_all, check, create_none, create_trusted;
  for (int r = 0; r < runs; ++r) {
    double t0 = NowMs();
    auto scanned = plugline::core::ScanProjectContent(project);
    hash_all.push_back(NowMs() - t0);
    if (!scanned.ok() || scanned->files.size() != files) return 1;
  }
  plugline::core::TrustStore store(home);
  if (!store.Trust(project, nullptr).ok()) return 1;
  for (int r = 0; r < runs; ++r) {
    double t0 = NowMs();
    plugline::core::TrustCheck c = store.Check(project, nullptr);
    check.push_back(NowMs() - t0);
    if (c.state != plugline::core::TrustState::kTrusted) return 1;
  }
  for (int r = 0; r < runs; ++r) {
    plugline::HostOptions none;
    none.home = home;
    double t0 = NowMs();
    auto a = plugline::Host::Create(none);
    create_none.push_back(NowMs() - t0);
    plugline::HostOptions trusted = none;
    trusted.project_dir = project;
    t0 = NowMs();
    auto b = plugline::Host::Create(trusted);
    create_trusted.push_back(NowMs() - t0);
    if (!a.ok() || !b.ok() || !(*b)->diagnostics().empty()) return 1;
  }
  Print("hash every file (plugline trust)", Summarize(hash_all));
  Print("check a trusted, unchanged project", Summarize(check));
  Print("Host::Create, no project", Summarize(create_none));
  Print("Host::Create, the trusted project", Summarize(create_trusted));
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return 0;
}
