// FUZZ_CHECK: an invariant of the code under test. A violation aborts, which libFuzzer (and
// the replay driver) report as a crash with the input that caused it. Not assert(): it must
// hold in every build type.
#ifndef PLUGLINE_TESTS_FUZZ_FUZZ_CHECK_H_
#define PLUGLINE_TESTS_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                             \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                       \
    }                                                                                     \
  } while (false)

#endif  // PLUGLINE_TESTS_FUZZ_FUZZ_CHECK_H_
