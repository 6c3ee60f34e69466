// What process isolation (Isolation::kProcess) costs against in process: starting a worker and
// loading a module, and calling match() and shape() on 1 MiB of output.
//   js_process_benchmark [starts=20] [calls=2000] [big_calls=50]
// Process mode runs first, so that its figures come from a process that never loaded V8.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/json.h"
#include "js/runtime.h"

namespace {

using plugline::js::Arg;
using plugline::js::CallLimits;
using plugline::js::Isolation;

const char kShaper[] = R"JS(
const meta = { name: "bench", version: "1.0.0", description: "benchmark shaper" };
function match(command, snippet, exitCode) {
  if (/\bterraform\b/.test(command)) return { matched: true, confidence: 0.9, signals: ["terraform"] };
  return { matched: false, confidence: 0 };
}
function shape(output, ctx) {
  const lines = output.split("\n");
  const errors = lines.filter((l) => /error/i.test(l));
  return { summary: `${lines.length} lines, ${errors.length} errors\n` + errors.slice(0, 5).join("\n") };
}
function echo(output) {
  return output;
}
export default { meta, match, shape, echo };
)JS";

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

struct Figures {
  double median = 0, p90 = 0;
};

// Runs `body` `n` times; the median and 90th percentile in milliseconds. Exits on failure.
Figures Measure(int n, const std::function<bool()>& body) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!body()) std::exit(1);
    samples.push_back(Ms(std::chrono::steady_clock::now() - start));
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 9 / 10]};
}

bool Ok(const absl::StatusOr<std::string>& result) {
  if (!result.ok()) std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
  return result.ok();
}

void Report(const char* mode, const char* what, Figures f, const char* unit = "ms") {
  double scale = std::string(unit) == "us" ? 1000 : 1;
  std::printf("%-10s %-40s median %9.3f %s   p90 %9.3f %s\n", mode, what, f.median * scale, unit,
              f.p90 * scale, unit);
}

void Run(const char* mode, Isolation isolation, const std::string& path, int starts, int calls,
         int big_calls) {
  auto runtime = plugline::js::GetRuntime(isolation);
  if (!runtime.ok()) {
    std::fprintf(stderr, "%s\n", runtime.status().ToString().c_str());
    std::exit(1);
  }
  // The first load pays one-time costs (loading libnode in process); report it apart.
  auto first_start = std::chrono::steady_clock::now();
  auto first = (*runtime)->Load(path, {});
  if (!first.ok()) std::exit(1);
  std::printf("%-10s %-40s %9.3f ms\n", mode, "first load (incl. one-time setup)",
              Ms(std::chrono::steady_clock::now() - first_start));

  std::unique_ptr<plugline::js::Module> module;
  Report(mode, "start + load a module", Measure(starts, [&] {
           auto loaded = (*runtime)->Load(path, {});
           module = loaded.ok() ? *std::move(loaded) : nullptr;
           return module != nullptr;
         }));
  {
    std::vector<double> samples;
    for (int i = 0; i < starts; ++i) {
      auto loaded = (*runtime)->Load(path, {});
      if (!loaded.ok()) std::exit(1);
      auto start = std::chrono::steady_clock::now();
      loaded->reset();
      samples.push_back(Ms(std::chrono::steady_clock::now() - start));
    }
    std::sort(samples.begin(), samples.end());
    Report(mode, "unload a module",
           {samples[samples.size() / 2], samples[samples.size() * 9 / 10]});
  }

  const std::string match_args =
      R"(["terraform plan -no-color","Refreshing state...\nPlan: 1 to add",0])";
  Report(mode, "match() Call (JSON args)",
         Measure(calls, [&] { return Ok(module->Call("match", match_args, CallLimits{})); }), "us");
  const Arg typed[] = {Arg::String("terraform plan -no-color"),
                       Arg::String("Refreshing state...\nPlan: 1 to add"), Arg::Number(0)};
  Report(mode, "match() CallArgs (typed args)",
         Measure(calls, [&] { return Ok(module->CallArgs("match", typed, CallLimits{})); }), "us");

  std::string output;
  for (int i = 0; output.size() < (1u << 20); ++i) {
    output += i % 97 == 0 ? "src/main.c:12:3: error: expected ';' before 'return'\n"
                          : "  CC      src/module_" + std::to_string(i) + ".o\n";
  }
  plugline::core::JsonWriter args;
  args.BeginArray().String(output).Raw(R"({"outputLines":25000})").EndArray();
  Report(mode, "shape(1 MiB) Call, small result",
         Measure(big_calls, [&] { return Ok(module->Call("shape", args.str(), CallLimits{})); }));
  const Arg big[] = {Arg::String(output), Arg::Json(R"({"outputLines":25000})")};
  Report(mode, "shape(1 MiB) CallArgs, small result",
         Measure(big_calls, [&] { return Ok(module->CallArgs("shape", big, CallLimits{})); }));
  Report(mode, "echo(1 MiB) CallArgs, 1 MiB result", Measure(big_calls, [&] {
           return Ok(module->CallArgs("echo", std::span<const Arg>(big, 1), CallLimits{}));
         }));
}

}  // namespace

int main(int argc, char** argv) {
  int starts = argc > 1 ? std::atoi(argv[1]) : 20;
  int calls = argc > 2 ? std::atoi(argv[2]) : 2000;
  int big_calls = argc > 3 ? std::atoi(argv[3]) : 50;
  char tmpl[] = "/tmp/plugline-jsprocbench-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string path = dir + "/shaper.js";
  std::ofstream(path) << kShaper;

  Run("process", Isolation::kProcess, path, starts, calls, big_calls);
  std::printf("V8 loaded into this process by process mode: %s\n",
              plugline::js::RuntimeLoaded() ? "yes (a bug)" : "no");
  Run("in-process", Isolation::kInProcess, path, starts, calls, big_calls);
  std::remove(path.c_str());
  std::remove(dir.c_str());
  return 0;
}
