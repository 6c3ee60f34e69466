// Throughput of the shaping pipeline (match + shape, every built-in competing, as in a host)
// on large outputs made from the real fixtures.
//
// usage: shaping_benchmark [FIXTURES_DIR] [MEGABYTES] [RUNS]
// For each large fixture (tests/fixtures/*/*.out with 1,000+ lines) the output is repeated
// until it is MEGABYTES (default 10) long, then, RUNS times (default 5), two things are timed:
//  - "match+shape": the snippet, match() of every built-in and shape() of the winner — the
//    shapers' own work;
//  - "pipeline": all of ShaperPipeline::Run: that, plus terminal normalization, the rules, and
//    counting the raw output's tokens (o200k_base, as a host does by default), and the budget.
// Raw output storage (a file write) is not included, but its secret masking is timed apart:
// "masking" is core::SecretMasker over the output in 64 KiB chunks, as the raw file's writer
// does it (the pipeline's own pass over the whole text is in "pipeline"), and once over a line
// fed a byte at a time. Prints MB/s per fixture and the medians.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "builtin/builtin_shapers.h"
#include "core/json.h"
#include "core/redact.h"
#include "core/shaping_pipeline.h"
#include "core/text.h"
#include "core/tokens.h"

namespace fs = std::filesystem;

namespace {

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = argc > 1 ? argv[1] : PLUGLINE_BENCH_FIXTURES;
  size_t megabytes = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 10;
  int runs = argc > 3 ? std::atoi(argv[3]) : 5;
  // What a host counts with by default: o200k_base (the estimate when its ranks are missing).
  const plugline::core::TokenCounter* counter =
      plugline::core::DefaultTokenCounter(plugline::core::kDefaultEncoding);
  std::printf("tokens counted with: %s\n", std::string(counter->name()).c_str());
  plugline::core::ShaperPipeline pipeline(counter);
  for (auto& shaper : plugline::builtin::MakeBuiltinShapers()) pipeline.Add(shaper);

  std::vector<fs::path> outs;
  for (const auto& family : fs::directory_iterator(dir)) {
    if (!family.is_directory() || family.path().filename() == "generators") continue;
    for (const auto& entry : fs::directory_iterator(family.path())) {
      if (entry.path().extension() == ".out") outs.push_back(entry.path());
    }
  }
  std::sort(outs.begin(), outs.end());
  std::printf("shaping_benchmark: match + shape with all built-ins, %zu MB per output, %d runs\n",
              megabytes, runs);
  std::printf("%-30s %-19s %9s %16s %16s %8s\n", "", "", "", "match+shape", "pipeline", "masking");
  std::printf("%-30s %-19s %9s %8s %7s %8s %7s %8s\n", "fixture (repeated)", "shaper", "bytes",
              "ms", "MB/s", "ms", "MB/s", "MB/s");
  std::vector<double> rates, shaper_rates, mask_rates;
  for (const fs::path& out : outs) {
    std::string one = Read(out);
    if (plugline::core::CountLines(one) < 1000) continue;
    auto meta = plugline::core::ParseJson(Read(fs::path(out).replace_extension(".json")), "meta");
    std::string command;
    std::optional<int> exit_code;
    if (meta.ok()) {
      if (const auto* c = meta->Find("command"); c && c->is_string()) command = c->as_string();
      if (const auto* e = meta->Find("exit_code"); e && e->as_integer()) {
        exit_code = static_cast<int>(*e->as_integer());
      }
    }
    std::string big;
    big.reserve(megabytes << 20);
    while (big.size() < (megabytes << 20)) big += one;
    std::vector<double> samples, direct, masking;
    std::string shaper;
    for (int i = 0; i < runs; ++i) {
      double start = plugline::bench::NowMs();
      auto result = pipeline.Run(plugline::ShapeRequest{command, big, exit_code, ""},
                                 plugline::core::RawOutputLocation{"/dev/null/raw.log", ""});
      samples.push_back(plugline::bench::NowMs() - start);
      if (result.ok()) shaper = result->shaper;
      // The shapers' own work: match every built-in on the snippet, shape with the winner.
      start = plugline::bench::NowMs();
      std::string snippet = plugline::core::MakeSnippet(big);
      plugline::core::Shaper* winner = nullptr;
      double best = -1;
      for (const auto& s : pipeline.shapers()) {
        auto match = s->Match(command, snippet, exit_code);
        if (match.ok() && match->matched && match->confidence > best) {
          best = match->confidence;
          winner = s.get();
        }
      }
      if (winner != nullptr) {
        plugline::core::ShapeContext context{command, exit_code, big.size(), 0, "/dev/null/raw"};
        auto shaped = winner->Shape(big, context);
        (void)shaped;
      }
      direct.push_back(plugline::bench::NowMs() - start);
      // The raw file's writer: the output masked as it streams in.
      start = plugline::bench::NowMs();
      plugline::core::SecretMasker masker;
      std::string masked;
      for (size_t at = 0; at < big.size(); at += 64 << 10) {
        masked.clear();
        masker.Feed(std::string_view(big).substr(at, 64 << 10), &masked);
      }
      masker.Finish(&masked);
      masking.push_back(plugline::bench::NowMs() - start);
    }
    auto stats = plugline::bench::Summarize(samples);
    auto shaper_stats = plugline::bench::Summarize(direct);
    double rate = (big.size() / 1e6) / (stats.median / 1e3);
    double shaper_rate = (big.size() / 1e6) / (shaper_stats.median / 1e3);
    double mask_rate = (big.size() / 1e6) / (plugline::bench::Summarize(masking).median / 1e3);
    rates.push_back(rate);
    shaper_rates.push_back(shaper_rate);
    mask_rates.push_back(mask_rate);
    std::string name = out.parent_path().filename().string() + "/" + out.stem().string();
    std::printf("%-30s %-19s %9zu %8.1f %7.0f %8.1f %7.0f %8.0f\n", name.c_str(), shaper.c_str(),
                big.size(), shaper_stats.median, shaper_rate, stats.median, rate, mask_rate);
  }
  if (rates.empty()) {
    std::printf("no fixture with 1,000+ lines under %s\n", dir.c_str());
    return 1;
  }
  std::sort(rates.begin(), rates.end());
  std::sort(shaper_rates.begin(), shaper_rates.end());
  std::sort(mask_rates.begin(), mask_rates.end());
  std::printf("match+shape: median %.0f MB/s, slowest %.0f MB/s; whole pipeline: median %.0f MB/s, "
              "slowest %.0f MB/s (%zu outputs)\n",
              shaper_rates[shaper_rates.size() / 2], shaper_rates.front(), rates[rates.size() / 2],
              rates.front(), rates.size());
  std::printf("secret masking of the raw file, streamed: median %.0f MB/s, slowest %.0f MB/s\n",
              mask_rates[mask_rates.size() / 2], mask_rates.front());
  // A producer that writes a byte at a time and never ends its line (a progress bar redrawn
  // with \r): every call may only look at what it was given.
  std::string bar(2 << 20, '#');
  for (size_t i = 100; i < bar.size(); i += 100) bar[i] = '\r';
  const double bar_start = plugline::bench::NowMs();
  plugline::core::SecretMasker masker;
  std::string masked;
  for (char c : bar) {
    masked.clear();
    masker.Feed(std::string_view(&c, 1), &masked);
  }
  masker.Finish(&masked);
  std::printf("secret masking of 2 MiB without a newline, fed a byte at a time: %.0f ms\n",
              plugline::bench::NowMs() - bar_start);
  return 0;
}
