// Helpers shared by the C++ tests: temporary directories and file access.
#ifndef PLUGLINE_TESTS_TEST_UTIL_H_
#define PLUGLINE_TESTS_TEST_UTIL_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::testing {

// True in an AddressSanitizer or ThreadSanitizer build (PLUGLINE_SANITIZE), whose shadow memory
// counts against RLIMIT_DATA: the JS worker of process isolation then runs without it
// (src/js/worker/README.md), so the tests of that limit are skipped there, and the tests that
// run plugline under `ulimit -d` run it without the limit (they check the output only).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kNoDataLimitInThisBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kNoDataLimitInThisBuild = true;
#else
inline constexpr bool kNoDataLimitInThisBuild = false;
#endif
#else
inline constexpr bool kNoDataLimitInThisBuild = false;
#endif

// A fresh directory under $TMPDIR, removed with everything in it when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // path()/name
  std::string Sub(std::string_view name) const;

 private:
  std::string path_;
};

// True when `needle` occurs in `haystack`.
inline bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// Writes a file (creating parent directories); aborts the test on failure.
void WriteFile(const std::string& path, std::string_view content);
// Reads a whole file; "" when it cannot be read.
std::string ReadFileOrEmpty(const std::string& path);

// Trusts `project` in the trust store of `home` as `plugline trust` does (core/trust.h), so a
// test of project plugins sees them load; a project with nothing to trust is left alone.
void TrustProject(const std::string& home, const std::string& project);

// The directory of test sources and of built binaries.
std::string SourceDir();
std::string BinDir();

// The output of fixture tests/fixtures/<family>/<name>.out; "" when it cannot be read.
std::string ReadFixture(std::string_view family, std::string_view name);

// The last `n` lines of `text`, as `… | tail -n` prints them (each ending in a newline).
std::string LastLines(std::string_view text, size_t n);
// The first `n` lines of `text`, as `… | head -n` prints them.
std::string FirstLines(std::string_view text, size_t n);
// The lines of `text` that contain one of `words`, as `… | grep -E 'w1|w2'` prints them.
std::string LinesWith(std::string_view text, std::initializer_list<std::string_view> words);

// `n` in letters, a digit each ("bcd" for 123): lines told apart by it are not alike but for
// their numbers, which shapers fold.
std::string Letters(uint64_t n);

// Each line of `text` after `prefix(i)`, the i-th line's (what a log carrier prints).
std::string PrefixLines(std::string_view text, const std::function<std::string(int)>& prefix);

// The locations of `output`'s diagnostics (what comes before `marker` on a line that has it:
// "src/a.py:12" of "src/a.py:12: error: …") that `summary` does not name — on a line of their
// own or in a list, followed by ";", " ", ":" or a line end.
std::vector<std::string> LostLocations(std::string_view output, std::string_view summary,
                                       std::string_view marker);

// What is written under `home` (its own folder and `subfolders`, e.g. "logs" and "run") while
// `action` runs, in order, as inotify reports it: "run/server.lock closed" (closed after
// writing), "logs/plugline.log written" (created, modified or moved there), "x deleted".
std::vector<std::string> WritesDuring(const std::string& home,
                                      const std::vector<std::string>& subfolders,
                                      const std::function<void()>& action);

}  // namespace plugline::testing

#endif  // PLUGLINE_TESTS_TEST_UTIL_H_
