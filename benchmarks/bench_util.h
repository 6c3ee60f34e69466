// Small timing helpers shared by the benchmarks (each benchmark is its own binary and prints
// its figures; nothing here asserts a target).
#ifndef PLUGLINE_BENCHMARKS_BENCH_UTIL_H_
#define PLUGLINE_BENCHMARKS_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace plugline::bench {

struct Stats {
  double min, median, p90, mean, p99;
};

inline Stats Summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (double s : samples) sum += s;
  size_t n = samples.size();
  return Stats{samples.front(), samples[n / 2], samples[std::min(n - 1, n * 9 / 10)], sum / n,
               samples[std::min(n - 1, n * 99 / 100)]};
}

inline double NowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

inline void Print(const char* name, const Stats& s, const char* unit = "ms") {
  std::printf("%-44s min %8.3f  median %8.3f  p90 %8.3f  mean %8.3f %s\n", name, s.min, s.median,
              s.p90, s.mean, unit);
}

}  // namespace plugline::bench

#endif  // PLUGLINE_BENCHMARKS_BENCH_UTIL_H_
