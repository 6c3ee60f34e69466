// JS runtime costs: loading N shaper modules (one isolate each), where a load's time goes, the
// code cache, and calling match()/shape() with JSON and with typed arguments (CallArgs).
//   js_benchmark [modules=20] [calls=20000]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "js/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

long RssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

const char kShaper[] = R"JS(
const meta = { name: "bench-N", version: "1.0.0", description: "benchmark shaper", tier: "community" };
function match(command, snippet, exitCode) {
  if (/\bterraform\b/.test(command)) return { matched: true, confidence: 0.9, signals: ["terraform"] };
  return { matched: false, confidence: 0 };
}
function shape(output, ctx) {
  const lines = output.split("\n");
  const errors = lines.filter((l) => /error/i.test(l));
  return { summary: `${ctx.outputLines} lines, ${errors.length} errors\n` + errors.slice(0, 5).join("\n") };
}
export default { meta, match, shape };
)JS";

// The backend logs each load at level "debug":
//   "loaded <file> in T ms: isolate A, context B, globals C, compile D, evaluate E; code cache: …"
struct LoadBreakdown {
  int loads = 0;
  double total = 0, isolate = 0, context = 0, globals = 0, compile = 0, evaluate = 0;

  void Add(const std::string& message) {
    size_t at = message.find(" in ");
    if (message.rfind("loaded ", 0) != 0 || at == std::string::npos) return;
    double t, a, b, c, d, e;
    if (std::sscanf(message.c_str() + at,
                    " in %lf ms: isolate %lf, context %lf, globals %lf, compile %lf, evaluate %lf",
                    &t, &a, &b, &c, &d, &e) == 6) {
      ++loads;
      total += t, isolate += a, context += b, globals += c, compile += d, evaluate += e;
    }
  }
  void Print(const char* label) const {
    if (loads == 0) return;
    std::printf(
        "  %s, mean of %d: %.3f ms = isolate %.3f + context %.3f + globals %.3f + "
        "compile %.3f + evaluate %.3f (+ rest %.3f)\n",
        label, loads, total / loads, isolate / loads, context / loads, globals / loads,
        compile / loads, evaluate / loads,
        (total - isolate - context - globals - compile - evaluate) / loads);
  }
};

struct Stats {
  double median, p90;
};

Stats Summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 9 / 10]};
}

}  // namespace

int main(int argc, char** argv) {
  int modules = argc > 1 ? std::atoi(argv[1]) : 20;
  int calls = argc > 2 ? std::atoi(argv[2]) : 20000;
  char tmpl[] = "/tmp/plugline-jsbench-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::vector<std::string> paths;
  for (int i = 0; i < modules; ++i) {
    std::string path = dir + "/shaper" + std::to_string(i) + ".js";
    // Distinct sources (a comment), so each module has its own code cache entry.
    std::ofstream(path) << "// shaper " << i << "\n" << kShaper;
    paths.push_back(path);
  }
  long rss0 = RssKb();
  auto t0 = Clock::now();
  auto runtime = plugline::js::GetRuntime();
  if (!runtime.ok()) {
    std::fprintf(stderr, "%s\n", std::string(runtime.status().message()).c_str());
    return 1;
  }
  auto t1 = Clock::now();
  std::printf("load backend: %.1f ms\n", Ms(t1 - t0));

  // Loads every module with `options` and reports the time and the backend's breakdown.
  auto load_all = [&](const char* label, plugline::js::ModuleOptions options,
                      std::vector<std::unique_ptr<plugline::js::Module>>* out) -> bool {
    LoadBreakdown breakdown;
    options.log = [&](std::string_view level, std::string_view message) {
      if (level == "debug") breakdown.Add(std::string(message));
    };
    auto start = Clock::now();
    for (const std::string& path : paths) {
      auto module = (*runtime)->Load(path, options);
      if (!module.ok()) {
        std::fprintf(stderr, "%s\n", std::string(module.status().message()).c_str());
        return false;
      }
      out->push_back(*std::move(module));
    }
    double total = Ms(Clock::now() - start);
    std::printf("load %d modules, %s: %.1f ms (%.2f ms each)\n", modules, label, total,
                total / modules);
    breakdown.Print("per load");
    return true;
  };

  std::vector<std::unique_ptr<plugline::js::Module>> loaded;
  if (!load_all("no code cache", {}, &loaded)) return 1;
  std::printf("RSS: %ld MiB before, %ld MiB after (%.2f MiB per module)\n", rss0 / 1024,
              RssKb() / 1024, (RssKb() - rss0) / 1024.0 / modules);
  {
    plugline::js::ModuleOptions cached;
    cached.code_cache_dir = dir + "/code-cache";
    std::vector<std::unique_ptr<plugline::js::Module>> cold, warm;
    if (!load_all("code cache cold (compile + write)", cached, &cold)) return 1;
    cold.clear();
    if (!load_all("code cache warm (hits)", cached, &warm)) return 1;
  }

  {
    // Runtime::Load is thread-safe and each module has its own isolate: a host may load its
    // plugins on several threads.
    unsigned threads = std::max(2u, std::thread::hardware_concurrency());
    std::vector<std::unique_ptr<plugline::js::Module>> parallel(paths.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto start = Clock::now();
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (size_t i = next++; i < paths.size(); i = next++) {
          auto module = (*runtime)->Load(paths[i], {});
          if (!module.ok()) {
            failed = true;
            return;
          }
          parallel[i] = *std::move(module);
        }
      });
    }
    for (std::thread& worker : workers) worker.join();
    if (failed) return 1;
    std::printf("load %d modules on %u threads, no code cache: %.1f ms\n", modules, threads,
                Ms(Clock::now() - start));
  }

  std::vector<double> samples;
  std::string args = R"(["terraform plan -no-color","Refreshing state...\nPlan: 1 to add",0])";
  for (int i = 0; i < calls; ++i) {
    auto s = Clock::now();
    auto r = loaded[i % modules]->Call("match", args, {});
    samples.push_back(Ms(Clock::now() - s) * 1000);
    if (!r.ok()) return 1;
  }
  Stats json = Summarize(samples);
  std::printf("match() Call (JSON args): median %.2f us, p90 %.2f us\n", json.median, json.p90);

  samples.clear();
  const plugline::js::Arg typed[] = {
      plugline::js::Arg::String("terraform plan -no-color"),
      plugline::js::Arg::String("Refreshing state...\nPlan: 1 to add"),
      plugline::js::Arg::Number(0)};
  for (int i = 0; i < calls; ++i) {
    auto s = Clock::now();
    auto r = loaded[i % modules]->CallArgs("match", typed, {});
    samples.push_back(Ms(Clock::now() - s) * 1000);
    if (!r.ok()) return 1;
  }
  Stats args_stats = Summarize(samples);
  std::printf("match() CallArgs: median %.2f us, p90 %.2f us\n", args_stats.median, args_stats.p90);

  // shape() on a 1 MiB output, like a long build log.
  std::string output;
  for (int line = 0; output.size() < (1u << 20); ++line) {
    output += line % 50 == 0 ? "src/main.c:12:5: error: expected ';' before 'return'\n"
                             : "  CC      src/module_" + std::to_string(line) + ".o\n";
  }
  const plugline::js::Arg shape_args[] = {plugline::js::Arg::String(output),
                                          plugline::js::Arg::Json(R"({"outputLines":22000})")};
  // The first shape() of each module (cold: lazy compilation, regexp compilation, a young
  // generation still growing), then 40 more on one module (warm).
  auto time_shape = [&](plugline::js::Module& module, std::vector<double>* out) -> bool {
    auto s = Clock::now();
    auto r = module.CallArgs("shape", shape_args, {});
    out->push_back(Ms(Clock::now() - s));
    if (!r.ok()) std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str());
    return r.ok();
  };
  std::vector<double> cold_samples;
  for (auto& module : loaded) {
    if (!time_shape(*module, &cold_samples)) return 1;
  }
  samples.clear();
  for (int i = 0; i < 40; ++i) {
    if (!time_shape(*loaded[0], &samples)) return 1;
  }
  Stats cold = Summarize(cold_samples);
  Stats warm = Summarize(samples);
  std::printf(
      "shape() CallArgs on a %zu-byte output: first call per module median %.2f ms, "
      "p90 %.2f ms; warm median %.2f ms, p90 %.2f ms, min %.2f ms\n",
      output.size(), cold.median, cold.p90, warm.median, warm.p90,
      *std::min_element(samples.begin(), samples.end()));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
