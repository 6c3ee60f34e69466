// JS shaper plugins through the host: opening a host with N plugins, match() per plugin in
// the pipeline, shape() on 1 MB, and resident memory with many plugins loaded.
//
// usage: plugins_benchmark [OPEN_PLUGINS=20] [RSS_PLUGINS=50] [MATCH_RUNS=2000]
// Every plugin is a realistic single-file shaper (regex match on the command, a split/filter
// shape). Figures are printed; nothing is asserted.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/config.h"
#include "core/plugins.h"
#include "js/js_shaper.h"
#include "js/runtime.h"
#include "plugline/host.h"

namespace {

using plugline::bench::NowMs;

long RssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

std::string Plugin(int i) {
  std::string name = "bench-" + std::to_string(i);
  return "const meta = { name: \"" + name + R"(", version: "1.0.0", description: "benchmark shaper", tier: "community", priority: 100 };
const COMMAND = /^tool)" + std::to_string(i) + R"(\b/;
function match(command, snippet, exitCode) {
  if (COMMAND.test(command)) return { matched: true, confidence: 0.9, signals: ["command"] };
  if (/^Error: tool)" + std::to_string(i) + R"( /m.test(snippet)) return { matched: true, confidence: 0.6, signals: ["output"] };
  return { matched: false, confidence: 0 };
}
function shape(output, ctx) {
  const lines = output.split("\n");
  const errors = lines.filter((l) => l.includes("error"));
  const kept = errors.slice(0, 20);
  return { summary: `tool: ${ctx.outputLines} lines, ${errors.length} errors\n` + kept.join("\n") +
                    (errors.length > kept.length ? `\n… ${errors.length - kept.length} more errors` : "") };
}
export default { meta, match, shape };
)";
}

std::string MakeHome(int plugins) {
  char tmpl[] = "/tmp/plugline-plugins-bench-XXXXXX";
  std::string home = mkdtemp(tmpl);
  std::string dir = home + "/plugins";
  std::system(("mkdir -p " + dir).c_str());
  for (int i = 0; i < plugins; ++i) {
    std::ofstream(dir + "/bench" + std::to_string(i) + ".js") << Plugin(i);
  }
  return home;
}

std::unique_ptr<plugline::Host> Open(const std::string& home) {
  plugline::HostOptions options;
  options.home = home;
  options.store_outputs = false;
  options.record_stats = false;
  auto host = plugline::Host::Create(options);
  if (!host.ok()) {
    std::fprintf(stderr, "%s\n", std::string(host.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(host);
}

double g_last_open_ms = 0;

// Host::Create (discovers plugins, loads none) plus loading every plugin (Preload).
double OpenAndLoad(const std::string& home, std::unique_ptr<plugline::Host>* out) {
  double start = NowMs();
  auto host = Open(home);
  g_last_open_ms = NowMs() - start;
  host->Preload();
  double elapsed = NowMs() - start;
  std::string listing = host->PluginsJson();
  if (listing.find("\"broken\"") != std::string::npos) {
    std::fprintf(stderr, "a benchmark plugin is broken: %s\n", listing.c_str());
    std::exit(1);
  }
  if (out != nullptr) *out = std::move(host);
  return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  int open_plugins = argc > 1 ? std::atoi(argv[1]) : 20;
  int rss_plugins = argc > 2 ? std::atoi(argv[2]) : 50;
  int match_runs = argc > 3 ? std::atoi(argv[3]) : 2000;
  std::printf("plugins_benchmark: %d plugins to open, %d for RSS, %d shapes for match()\n",
              open_plugins, rss_plugins, match_runs);

  // 1. Opening. The first host in a process also loads the V8 backend (libnode); later hosts
  // (and later CLI runs, through the code cache) do not pay for that again.
  std::string home = MakeHome(open_plugins);
  long rss_before = RssKb();
  double backend_start = NowMs();
  auto runtime = plugline::js::GetRuntime();
  double backend_ms = NowMs() - backend_start;
  if (!runtime.ok()) {
    std::fprintf(stderr, "%s\n", std::string(runtime.status().message()).c_str());
    return 1;
  }
  std::printf("%-52s %8.2f ms\n", "load the V8 backend (libnode) once per process", backend_ms);

  // Memory first, in a process that has loaded nothing else: a host with many plugins.
  {
    long rss_v8 = RssKb();
    std::string many = MakeHome(rss_plugins);
    std::unique_ptr<plugline::Host> big_host;
    OpenAndLoad(many, &big_host);
    std::string small = "compiling\n";
    big_host->Shape(plugline::ShapeRequest{"make all", small, 0, ""}).IgnoreError();
    std::printf("%-52s %8ld MiB (before plugline: %ld MiB, with V8 loaded: %ld MiB)\n",
                ("RSS with " + std::to_string(rss_plugins) + " JS shapers loaded").c_str(),
                RssKb() / 1024, rss_before / 1024, rss_v8 / 1024);
    big_host.reset();
    std::system(("rm -rf " + many).c_str());
  }
  std::vector<double> opens;
  std::vector<double> creates;
  std::unique_ptr<plugline::Host> host;
  for (int i = 0; i < 7; ++i) {
    opens.push_back(OpenAndLoad(home, i == 0 ? &host : nullptr));
    creates.push_back(g_last_open_ms);
  }
  plugline::bench::Print(("Host::Create with " + std::to_string(open_plugins) +
                          " JS shapers (discovery only)").c_str(),
                         plugline::bench::Summarize(creates));
  std::printf("%-52s %8.2f ms (cold code cache)\n",
              ("host open + load " + std::to_string(open_plugins) + " JS shapers, first").c_str(),
              opens[0]);
  std::vector<double> warm(opens.begin() + 1, opens.end());
  plugline::bench::Print(
      ("host open + load " + std::to_string(open_plugins) + " JS shapers, warm cache").c_str(),
      plugline::bench::Summarize(warm));

  // 2. match() through the pipeline: shape a small output no plugin claims, with N plugins and
  // with none; the difference per plugin is what one JS match() costs.
  std::string snippet = "compiling module a\ncompiling module b\nwarning: unused variable\n";
  auto time_shapes = [&](plugline::Host* h) {
    std::vector<double> samples;
    for (int i = 0; i < match_runs; ++i) {
      double start = NowMs();
      auto result = h->Shape(plugline::ShapeRequest{"make all", snippet, 0, ""});
      samples.push_back((NowMs() - start) * 1000.0);
      if (!result.ok()) std::exit(1);
    }
    return plugline::bench::Summarize(samples);
  };
  std::string empty_home = MakeHome(0);
  auto bare = Open(empty_home);
  auto with = time_shapes(host.get());
  auto without = time_shapes(bare.get());
  plugline::bench::Print("Host::Shape, small output, no JS shaper", without, "us");
  plugline::bench::Print(("Host::Shape, small output, " + std::to_string(open_plugins) +
                          " JS shapers").c_str(), with, "us");
  std::printf("%-52s %8.2f us (median)\n", "=> match() per JS shaper in the pipeline",
              (with.median - without.median) / open_plugins);

  // 3. shape() on 1 MB, at the shaper: the plugin's own work plus passing 1 MB in and the
  // summary out.
  std::string big;
  for (int i = 0; big.size() < (1u << 20); ++i) {
    big += (i % 97 == 0) ? "src/unit" + std::to_string(i) + ".c:12: error: expected ';'\n"
                         : "compiling unit " + std::to_string(i) + " with flags -O2 -g\n";
  }
  plugline::core::PluginFile file;
  file.entry = home + "/plugins/bench0.js";
  file.root = home + "/plugins";
  file.name = "bench0";
  file.source = "global";
  plugline::js::JsShaperOptions js_options;
  auto loaded = plugline::js::LoadJsShaper(file, plugline::core::JsPluginSettings{}, js_options);
  if (!loaded.ok()) return 1;
  plugline::core::ShapeContext context{"tool0 build", 1, big.size(), 0, ""};
  std::vector<double> shapes;
  for (int i = 0; i < 30; ++i) {
    double start = NowMs();
    auto shaped = loaded->shaper->Shape(big, context);
    shapes.push_back(NowMs() - start);
    if (!shaped.ok()) return 1;
  }
  plugline::bench::Print("shape() on 1 MiB (split + filter plugin)", plugline::bench::Summarize(shapes));

  host.reset();
  bare.reset();
  std::system(("rm -rf " + home + " " + empty_home).c_str());
  return 0;
}
