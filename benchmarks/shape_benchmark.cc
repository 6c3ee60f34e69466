// Time of plugline_host_shape on a 1 MB output, through the C ABI as a host calls it.
//
// usage: shape_benchmark [RUNS]
// The output is 1 MiB of build-log-like lines. Measured twice: with raw outputs stored under
// PLUGLINE_HOME (the default: includes writing the 1 MiB file) and with storing off.
#include <plugline/plugline.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

std::string MakeOutput(size_t bytes) {
  std::string out;
  int i = 0;
  while (out.size() < bytes) {
    char line[160];
    int n = std::snprintf(line, sizeof line,
                          "[%5d/9999] Building CXX object src/module_%d/file_%d.cc.o -- "
                          "-O2 -Wall -Wextra -fPIC\n",
                          i, i % 97, i);
    out.append(line, static_cast<size_t>(n));
    ++i;
  }
  out.resize(bytes);
  return out;
}

plugline::bench::Stats Run(int store, const std::string& output, int runs, const char* home) {
  plugline_config* config = nullptr;
  plugline_config_new(&config);
  plugline_config_set_home(config, home);
  plugline_config_set_store_outputs(config, store);
  plugline_host* host = nullptr;
  if (plugline_host_new(&host, config) != PLUGLINE_OK) {
    std::fprintf(stderr, "host: %s\n", plugline_last_error_message());
    std::exit(1);
  }
  plugline_config_free(config);
  std::vector<double> samples;
  for (int i = 0; i < runs + 3; ++i) {
    char* json = nullptr;
    size_t len = 0;
    double start = plugline::bench::NowMs();
    if (plugline_host_shape(&json, &len, host, "make -j8", 8, output.data(), output.size(), 0,
                            nullptr) != PLUGLINE_OK) {
      std::fprintf(stderr, "shape: %s\n", plugline_last_error_message());
      std::exit(1);
    }
    double elapsed = plugline::bench::NowMs() - start;
    plugline_free(json);
    if (i >= 3) samples.push_back(elapsed);  // the first calls warm caches
  }
  plugline_host_free(host);
  return plugline::bench::Summarize(samples);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 50;
  char home[] = "/tmp/plugline-bench-XXXXXX";
  if (mkdtemp(home) == nullptr) return 1;
  const std::string output = MakeOutput(1 << 20);
  std::printf("shape_benchmark: plugline_host_shape on %zu bytes (%d runs each)\n",
              output.size(), runs);
  auto stored = Run(1, output, runs, home);
  plugline::bench::Print("shape 1 MiB, raw output stored", stored);
  auto unstored = Run(0, output, runs, home);
  plugline::bench::Print("shape 1 MiB, storing off", unstored);
  std::printf("%-44s %.0f MB/s (median, storing off)\n", "throughput",
              (output.size() / 1e6) / (unstored.median / 1e3));
  std::string cleanup = std::string("rm -rf ") + home;
  return std::system(cleanup.c_str()) == 0 ? 0 : 1;
}
