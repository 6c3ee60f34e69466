// Whole-process overhead of `plugline run -- true` against bare `true`.
//
// usage: run_overhead_benchmark [PLUGLINE_BINARY] [RUNS] [JS_PLUGINS]
// Spawns each command RUNS times (default 200) with posix_spawn and waits for it, with
// PLUGLINE_HOME in a fresh temporary directory, and prints wall-time statistics and the
// difference of the medians. Also reports whether libnode was mapped into the plugline process.
// Then installs JS_PLUGINS (default 1 and 20) small JS shapers and measures again: the time a
// run pays for JS plugins (loading V8, one isolate per plugin, match() on each).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"

extern char** environ;

namespace {

double SpawnAndWait(const std::vector<std::string>& argv, bool quiet) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", 01 /*O_WRONLY*/, 0);
  double start = plugline::bench::NowMs();
  pid_t pid;
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) {
    std::perror("posix_spawnp");
    std::exit(1);
  }
  int status;
  waitpid(pid, &status, 0);
  double elapsed = plugline::bench::NowMs() - start;
  posix_spawn_file_actions_destroy(&actions);
  return elapsed;
}

std::vector<double> Measure(const std::vector<std::string>& argv, int runs) {
  for (int i = 0; i < 5; ++i) SpawnAndWait(argv, true);  // warm the page cache
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) samples.push_back(SpawnAndWait(argv, true));
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  std::string plugline = argc > 1 ? argv[1] : PLUGLINE_BENCH_CLI;
  int runs = argc > 2 ? std::atoi(argv[2]) : 200;
  char home[] = "/tmp/plugline-bench-XXXXXX";
  if (mkdtemp(home) == nullptr) return 1;
  setenv("PLUGLINE_HOME", home, 1);
  // The in-process path, each command loading what it needs (server_benchmark measures the
  // warm server).
  setenv("PLUGLINE_SERVER", "0", 1);

  auto bare = plugline::bench::Summarize(Measure({"true"}, runs));
  auto wrapped = plugline::bench::Summarize(Measure({plugline, "run", "--", "true"}, runs));
  std::printf("run_overhead_benchmark: %d runs each, PLUGLINE_HOME=%s\n", runs, home);
  plugline::bench::Print("true", bare);
  plugline::bench::Print("plugline run -- true", wrapped);
  std::printf("%-44s %.3f ms (median), %.3f ms (mean)\n", "overhead of plugline run",
              wrapped.median - bare.median, wrapped.mean - bare.mean);

  // Is V8 loaded by a run that needs no JS? Ask the child to print its parent's mappings.
  std::string probe = std::string(plugline) + " run --raw -- sh -c 'cat /proc/$PPID/maps' | grep -c libnode";
  FILE* pipe = popen(probe.c_str(), "r");
  int libnode_maps = -1;
  if (pipe != nullptr) {
    if (std::fscanf(pipe, "%d", &libnode_maps) != 1) libnode_maps = -1;
    pclose(pipe);
  }
  std::printf("%-44s %s\n", "libnode mapped in `plugline run -- true`",
              libnode_maps == 0 ? "no" : "YES");
  std::vector<int> plugin_counts = {1, 20};
  if (argc > 3) plugin_counts = {std::atoi(argv[3])};
  int installed = 0;
  for (int count : plugin_counts) {
    std::string dir = std::string(home) + "/plugins";
    std::system(("mkdir -p " + dir).c_str());
    for (; installed < count; ++installed) {
      std::string path = dir + "/p" + std::to_string(installed) + ".js";
      FILE* f = std::fopen(path.c_str(), "w");
      if (f == nullptr) return 1;
      std::fprintf(f,
                   "export default {\n"
                   "  meta: { name: \"p%d\", version: \"1\", description: \"d\", tier: \"community\" },\n"
                   "  match(c) { return /^tool%d\\b/.test(c) ? { matched: true, confidence: 0.9 } : { matched: false, confidence: 0 }; },\n"
                   "  shape(o) { return { summary: o.split(\"\\n\").length + \" lines\" }; },\n"
                   "};\n",
                   installed, installed);
      std::fclose(f);
    }
    auto with_js = plugline::bench::Summarize(Measure({plugline, "run", "--", "true"}, runs / 4 + 1));
    std::string label = "plugline run -- true, " + std::to_string(count) + " JS shaper(s)";
    plugline::bench::Print(label.c_str(), with_js);
    std::printf("%-44s %.3f ms (median)\n", "  added by the JS plugins",
                with_js.median - wrapped.median);
  }
  std::string cleanup = std::string("rm -rf ") + home;
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
