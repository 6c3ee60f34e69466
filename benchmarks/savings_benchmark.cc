// The savings table: every fixture through a real host, raw tokens against summary tokens,
// and whether every must-keep identifier survived.
//
// usage: savings_benchmark [FIXTURES_DIR [MAX_SUMMARY_TOKENS]]
// Prints one row per fixture, then over all of them: the fixtures whose must-keep items all
// survive, the aggregate tokens saved, the mean saving over outputs of 500 tokens or more, the
// median over outputs of 50 lines or more, the largest summary, and the failing runs (non-zero
// exit) whose summary's first line does not name the failure (fail / error / exit code). Tokens
// are counted as shaping results count them (o200k_base by default; the counter is printed,
// docs/tokens.md). Summaries are cut to the default budget (config's shaping.max_summary_tokens,
// 8,000); each fixture is also shaped with no budget, and the must-keep figure is printed for both.
// Last, the time to shape them all with one `plugline shape` process each (the CLI next to this
// benchmark), as an agent's hooks would.
#include <plugline/host.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace {

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

extern char** environ;

// Runs `plugline shape --command CMD [--exit-code N]` on `output_path` as its standard input,
// as an agent's hook would, one process; returns its wall time in seconds (negative on failure).
double ShapeInProcess(const std::string& plugline, const std::string& home,
                      const std::string& command, std::optional<int> exit_code,
                      const std::string& output_path) {
  std::vector<std::string> args = {plugline, "shape", "--command", command};
  if (exit_code) {
    args.push_back("--exit-code");
    args.push_back(std::to_string(*exit_code));
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = {"PLUGLINE_HOME=" + home};
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string_view(*e).rfind("PLUGLINE_HOME=", 0) != 0) env_strings.emplace_back(*e);
  }
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, output_path.c_str(), 0 /*O_RDONLY*/, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", 01 /*O_WRONLY*/, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main(int argc, char** argv) {
  fs::path dir = argc > 1 ? argv[1] : PLUGLINE_BENCH_FIXTURES;
  // The home's name is in every summary's "full output:" line, and so in its token count: a
  // name of digits of one length (not mkdtemp's random letters) makes the figures the same
  // from one run to the next.
  char home[64];
  std::snprintf(home, sizeof home, "/tmp/plugline-savings-%08d", static_cast<int>(getpid()));
  if (mkdir(home, 0700) != 0) {
    std::fprintf(stderr, "savings_benchmark: cannot create %s: %s\n", home, std::strerror(errno));
    return 1;
  }
  if (argc > 2) {
    // A budget other than the default, as config.yaml would set it (0: none).
    std::ofstream config(std::string(home) + "/config.yaml");
    config << "shaping:\n  max_summary_tokens: " << argv[2] << "\n";
  }
  plugline::HostOptions options;
  options.home = home;
  options.record_stats = false;
  auto host = plugline::Host::Create(options);
  if (!host.ok()) return 1;

  std::vector<fs::path> metas;
  for (const auto& family : fs::directory_iterator(dir)) {
    if (!family.is_directory() || family.path().filename() == "generators") continue;
    for (const auto& entry : fs::directory_iterator(family.path())) {
      if (entry.path().extension() == ".json") metas.push_back(entry.path());
    }
  }
  std::sort(metas.begin(), metas.end());
  std::printf("%-38s %-18s %7s %8s %8s %7s %6s\n", "fixture", "shaper", "lines", "raw tok",
              "sum tok", "saved", "kept");
  std::vector<double> savings_50, savings_500;
  size_t keep_total = 0, keep_found = 0, fixtures = 0, all_kept = 0, all_kept_unbudgeted = 0;
  std::string counter;
  uint64_t budget = 0;
  uint64_t tokens_raw = 0, tokens_summary = 0, largest = 0;
  std::string largest_name;
  size_t failing = 0;
  std::vector<std::string> no_outcome;
  for (const fs::path& meta_path : metas) {
    auto meta = plugline::core::ParseJson(Read(meta_path), meta_path.string());
    if (!meta.ok()) continue;
    std::string output = Read(fs::path(meta_path).replace_extension(".out"));
    std::string command;
    std::optional<int> exit_code;
    if (const auto* c = meta->Find("command"); c && c->is_string()) command = c->as_string();
    if (const auto* e = meta->Find("exit_code"); e && e->as_integer()) {
      exit_code = static_cast<int>(*e->as_integer());
    }
    auto result = (*host)->Shape(plugline::ShapeRequest{command, output, exit_code, ""});
    if (!result.ok()) continue;
    auto unbudgeted = (*host)->Shape(plugline::ShapeRequest{command, output, exit_code, "", 0});
    if (!unbudgeted.ok()) continue;
    counter = result->token_counter;
    budget = result->max_tokens;
    ++fixtures;
    size_t kept = 0, total = 0;
    if (const auto* keep = meta->Find("must_keep"); keep && keep->is_array()) {
      for (const auto& item : keep->as_array()) {
        if (!item.is_string()) continue;
        ++total;
        kept += result->summary.find(item.as_string()) != std::string::npos;
      }
    }
    keep_total += total;
    keep_found += kept;
    all_kept += kept == total;
    size_t kept_unbudgeted = 0;
    if (const auto* keep = meta->Find("must_keep"); keep && keep->is_array()) {
      for (const auto& item : keep->as_array()) {
        kept_unbudgeted +=
            item.is_string() && unbudgeted->summary.find(item.as_string()) != std::string::npos;
      }
    }
    all_kept_unbudgeted += kept_unbudgeted == total;
    tokens_raw += result->tokens_raw;
    tokens_summary += result->tokens_summary;
    uint64_t lines = plugline::core::CountLines(output);
    double saved = result->tokens_raw == 0
                       ? 0
                       : 100.0 * (1.0 - static_cast<double>(result->tokens_summary) /
                                            static_cast<double>(result->tokens_raw));
    if (lines >= 50) savings_50.push_back(saved);
    if (result->tokens_raw >= 500) savings_500.push_back(saved);
    std::string name = meta_path.parent_path().filename().string() + "/" + meta_path.stem().string();
    if (result->tokens_summary > largest) {
      largest = result->tokens_summary;
      largest_name = name;
    }
    if (exit_code && *exit_code != 0) {
      ++failing;
      std::string first = result->summary.substr(0, result->summary.find('\n'));
      for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (first.find("fail") == std::string::npos && first.find("error") == std::string::npos &&
          first.find("exit") == std::string::npos) {
        no_outcome.push_back(name);
      }
    }
    std::printf("%-38s %-18s %7llu %8llu %8llu %6.1f%% %3zu/%-3zu\n", name.c_str(),
                result->shaper.c_str(), static_cast<unsigned long long>(lines),
                static_cast<unsigned long long>(result->tokens_raw),
                static_cast<unsigned long long>(result->tokens_summary), saved, kept, total);
  }
  // One `plugline shape` process each, as hooks run it (plugline is next to this benchmark).
  const fs::path plugline = fs::read_symlink("/proc/self/exe").parent_path() / "plugline";
  std::vector<double> process_times;
  double process_total = 0;
  if (fs::exists(plugline)) {
    for (const fs::path& meta_path : metas) {
      auto meta = plugline::core::ParseJson(Read(meta_path), meta_path.string());
      if (!meta.ok()) continue;
      std::string command;
      std::optional<int> exit_code;
      if (const auto* c = meta->Find("command"); c && c->is_string()) command = c->as_string();
      if (const auto* e = meta->Find("exit_code"); e && e->as_integer()) {
        exit_code = static_cast<int>(*e->as_integer());
      }
      const double t = ShapeInProcess(plugline.string(), home, command, exit_code,
                                      fs::path(meta_path).replace_extension(".out").string());
      if (t < 0) continue;
      process_times.push_back(t);
      process_total += t;
    }
    std::sort(process_times.begin(), process_times.end());
  }
  std::sort(savings_50.begin(), savings_50.end());
  double median = savings_50.empty() ? 0 : savings_50[savings_50.size() / 2];
  std::printf("\n%zu fixtures; median tokens saved on the %zu outputs of 50+ lines: %.1f%%\n",
              fixtures, savings_50.size(), median);
  std::printf("must-keep identifiers kept: %zu of %zu (%.1f%%)\n", keep_found, keep_total,
              keep_total ? 100.0 * keep_found / keep_total : 100.0);
  std::printf("tokens counted with: %s; budget: %llu tokens\n", counter.c_str(),
              static_cast<unsigned long long>(budget));
  std::printf("fixtures whose must-keep items all survive: %zu of %zu (with no budget: %zu)\n",
              all_kept, fixtures, all_kept_unbudgeted);
  std::printf("aggregate tokens saved: %.1f%% (%llu of %llu)\n",
              tokens_raw ? 100.0 * (1.0 - static_cast<double>(tokens_summary) / tokens_raw) : 0.0,
              static_cast<unsigned long long>(tokens_raw - std::min(tokens_raw, tokens_summary)),
              static_cast<unsigned long long>(tokens_raw));
  double mean_500 = 0;
  for (double v : savings_500) mean_500 += v;
  if (!savings_500.empty()) mean_500 /= static_cast<double>(savings_500.size());
  std::printf("mean saved over the %zu outputs of 500+ tokens: %.1f%%\n", savings_500.size(),
              mean_500);
  std::printf("largest summary: %llu tokens (%s)\n", static_cast<unsigned long long>(largest),
              largest_name.c_str());
  std::printf("failing runs whose first line names the failure: %zu of %zu\n",
              failing - no_outcome.size(), failing);
  for (const std::string& name : no_outcome) std::printf("  no outcome first: %s\n", name.c_str());
  if (!process_times.empty()) {
    std::printf("time for all %zu, one `plugline shape` process each: %.2f s (median %.1f ms, "
                "slowest %.1f ms)\n",
                process_times.size(), process_total,
                1000 * process_times[process_times.size() / 2], 1000 * process_times.back());
  } else {
    std::printf("time for all, one process each: not measured (no %s)\n", plugline.c_str());
  }
  std::string cleanup = std::string("rm -rf ") + home;
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
