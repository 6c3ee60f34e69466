// Peak memory and throughput of `plugline run` on outputs from a few KiB to several GiB.
//
// usage: run_output_benchmark [PLUGLINE_BINARY] [--baseline OTHER_BINARY] [--runs N] [SIZE_MB...]
// For each SIZE_MB (default 10 1024 4096) runs `plugline run -- sh -c 'yes LINE | head -c SIZE'`
// once (LINE is a 63-byte log-like line, so SIZE/64 lines) with PLUGLINE_HOME in a fresh
// temporary directory and default settings (8 MiB window, 256 MiB raw file cap), and prints the
// wall time, the throughput and the peak RSS (wait4's ru_maxrss: plugline's own, its children
// sh/yes/head are a few MiB at most), next to the same producer writing to /dev/null.
// Then the cost of a normal small output: `plugline run -- seq 1 1000` (3.9 KB) and
// `seq 1 150000` (1 MB), N runs each (default 50), median and p90; with --baseline, the same
// for OTHER_BINARY (e.g. a build from before a change), and the difference of the medians.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

extern char** environ;

namespace {

struct RunFigures {
  double ms = 0;
  long max_rss_kb = 0;
  int status = 0;
};

RunFigures SpawnAndWait(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", 01 /*O_WRONLY*/, 0);
  RunFigures figures;
  const double start = plugline::bench::NowMs();
  pid_t pid;
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) {
    std::perror("posix_spawnp");
    std::exit(1);
  }
  struct rusage usage;
  std::memset(&usage, 0, sizeof usage);
  wait4(pid, &figures.status, 0, &usage);
  figures.ms = plugline::bench::NowMs() - start;
  figures.max_rss_kb = usage.ru_maxrss;
  posix_spawn_file_actions_destroy(&actions);
  return figures;
}

std::string FreshHome() {
  char home[] = "/tmp/plugline-bench-XXXXXX";
  if (mkdtemp(home) == nullptr) std::exit(1);
  setenv("PLUGLINE_HOME", home, 1);
  return home;
}

void RemoveHome(const std::string& home) {
  std::string command = "rm -rf '" + home + "'";
  if (std::system(command.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", home.c_str());
}

plugline::bench::Stats Repeat(const std::vector<std::string>& argv, int runs) {
  for (int i = 0; i < 3; ++i) SpawnAndWait(argv);  // warm the page cache
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) samples.push_back(SpawnAndWait(argv).ms);
  return plugline::bench::Summarize(samples);
}

}  // namespace

int main(int argc, char** argv) {
  std::string plugline = PLUGLINE_BENCH_CLI;
  std::string baseline;
  int runs = 50;
  std::vector<long> sizes_mb;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--baseline" && i + 1 < argc) {
      baseline = argv[++i];
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (!arg.empty() && arg[0] >= '0' && arg[0] <= '9') {
      sizes_mb.push_back(std::atol(arg.c_str()));
    } else {
      plugline = arg;
    }
  }
  if (sizes_mb.empty()) sizes_mb = {10, 1024, 4096};

  const std::string line = "2026-12-01T10:00:00Z INFO worker 7 processed request 4242 in 3ms";
  std::printf("run_output_benchmark: %s\n", plugline.c_str());
  std::printf("%-10s %12s %12s %12s %14s %14s\n", "output", "producer ms", "plugline ms",
              "MB/s", "peak RSS KiB", "exit");
  for (long mb : sizes_mb) {
    const std::string producer =
        "yes '" + line.substr(0, 63) + "' | head -c " + std::to_string(mb * 1000 * 1000);
    std::string home = FreshHome();
    RunFigures bare = SpawnAndWait({"sh", "-c", producer});
    RunFigures run = SpawnAndWait({plugline, "run", "--", "sh", "-c", producer});
    RemoveHome(home);
    std::printf("%-10s %12.0f %12.0f %12.0f %14ld %14d\n", (std::to_string(mb) + " MB").c_str(),
                bare.ms, run.ms, static_cast<double>(mb) * 1000 / run.ms, run.max_rss_kb,
                WIFEXITED(run.status) ? WEXITSTATUS(run.status) : 128 + WTERMSIG(run.status));
  }

  std::printf("\nsmall outputs, %d runs each (ms)\n", runs);
  struct Small {
    const char* name;
    std::vector<std::string> command;
  };
  const std::vector<Small> smalls = {{"seq 1 1000 (3.9 KB)", {"seq", "1", "1000"}},
                                     {"seq 1 150000 (1 MB)", {"seq", "1", "150000"}}};
  for (const Small& small : smalls) {
    std::vector<std::string> argv_new = {plugline, "run", "--"};
    argv_new.insert(argv_new.end(), small.command.begin(), small.command.end());
    std::string home = FreshHome();
    auto now = Repeat(argv_new, runs);
    RemoveHome(home);
    plugline::bench::Print((std::string("this build: ") + small.name).c_str(), now);
    if (!baseline.empty()) {
      std::vector<std::string> argv_old = {baseline, "run", "--"};
      argv_old.insert(argv_old.end(), small.command.begin(), small.command.end());
      home = FreshHome();
      auto before = Repeat(argv_old, runs);
      RemoveHome(home);
      plugline::bench::Print((std::string("baseline:   ") + small.name).c_str(), before);
      std::printf("%-44s %+.3f ms\n", "difference of the medians", now.median - before.median);
    }
  }
  return 0;
}
