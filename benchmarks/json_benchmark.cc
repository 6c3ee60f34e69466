// ParseJson on objects of growing size, with the repeated-key check every document gets
// (DuplicateKeys::kReject) and with kLastWins: the time per key should stay flat as objects
// grow (a linear scan up to 16 keys, a hash map past them), not grow with the object.
//
//   build/bin/json_benchmark [rounds]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/json.h"
#include "core/strings.h"

namespace plugline {
namespace {

std::string Object(int keys) {
  std::string text = "{";
  for (int i = 0; i < keys; ++i) StrAppend(&text, i ? "," : "", "\"key_", i, "\":", i);
  return text + "}";
}

void Run(int keys, int rounds, core::DuplicateKeys mode, const char* mode_name) {
  const std::string text = Object(keys);
  // Enough parses per sample that small objects are not below the clock's resolution.
  const int per_sample = std::max(1, 200000 / keys);
  std::vector<double> ns_per_key;
  for (int r = 0; r < rounds; ++r) {
    const double start = bench::NowMs();
    for (int i = 0; i < per_sample; ++i) {
      auto value = core::ParseJson(text, "bench", mode);
      if (!value.ok()) std::abort();
    }
    ns_per_key.push_back((bench::NowMs() - start) * 1e6 / per_sample / keys);
  }
  char name[64];
  std::snprintf(name, sizeof name, "%7d keys, %s", keys, mode_name);
  bench::Print(name, bench::Summarize(ns_per_key), "ns per key");
}

}  // namespace
}  // namespace plugline

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 9;
  for (int keys : {4, 16, 17, 64, 1000, 100000, 1000000}) {
    plugline::Run(keys, rounds, plugline::core::DuplicateKeys::kReject, "reject");
    plugline::Run(keys, rounds, plugline::core::DuplicateKeys::kLastWins, "last wins");
  }
}
