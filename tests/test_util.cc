#include "test_util.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include "core/strings.h"
#include "core/text.h"
#include "core/trust.h"

namespace plugline::testing {

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/plugline-test-XXXXXX";
  char* made = ::mkdtemp(pattern.data());
  REQUIRE(made != nullptr);
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Sub(std::string_view name) const { return path_ + "/" + std::string(name); }

void WriteFile(const std::string& path, std::string_view content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  REQUIRE(out.good());
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  REQUIRE(out.good());
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string SourceDir() { return PLUGLINE_TEST_SOURCE_DIR; }
std::string BinDir() { return PLUGLINE_TEST_BIN_DIR; }

std::string ReadFixture(std::string_view family, std::string_view name) {
  return ReadFileOrEmpty(StrCat(SourceDir(), "/fixtures/", family, "/", name, ".out"));
}

std::string LastLines(std::string_view text, size_t n) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string cut;
  for (size_t i = lines.size() - std::min(n, lines.size()); i < lines.size(); ++i) {
    cut.append(lines[i]).push_back('\n');
  }
  return cut;
}

std::string FirstLines(std::string_view text, size_t n) {
  size_t end = 0;
  for (size_t k = 0; k < n && end < text.size(); ++k) {
    const size_t newline = text.find('\n', end);
    end = newline == std::string_view::npos ? text.size() : newline + 1;
  }
  std::string cut(text.substr(0, end));
  if (!cut.empty() && cut.back() != '\n') cut.push_back('\n');
  return cut;
}

std::string LinesWith(std::string_view text, std::initializer_list<std::string_view> words) {
  std::string chosen;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (std::any_of(words.begin(), words.end(),
                    [&](std::string_view w) { return line.find(w) != std::string_view::npos; })) {
      chosen.append(line).push_back('\n');
    }
    start = end + 1;
  }
  return chosen;
}

std::string Letters(uint64_t n) {
  std::string digits = std::to_string(n);
  for (char& c : digits) c = static_cast<char>('a' + (c - '0'));
  return digits;
}

std::string PrefixLines(std::string_view text, const std::function<std::string(int)>& prefix) {
  std::string out;
  size_t start = 0;
  for (int i = 0; start < text.size(); ++i) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out += prefix(i);
    out.append(text.substr(start, end - start));
    start = end;
  }
  return out;
}

std::vector<std::string> LostLocations(std::string_view output, std::string_view summary,
                                       std::string_view marker) {
  std::vector<std::string> lost;
  for (std::string_view line : core::SplitLines(output)) {
    const size_t at = line.find(marker);
    if (at == std::string_view::npos) continue;
    const std::string where(line.substr(0, at));
    if (!Contains(summary, where + ";") && !Contains(summary, where + " ") &&
        !Contains(summary, where + ":") && !Contains(summary, where + "\n")) {
      lost.push_back(where);
    }
  }
  return lost;
}

void TrustProject(const std::string& home, const std::string& project) {
  auto trusted = core::TrustStore(home, core::OpenCodeLocationsOn(home)).Trust(project, nullptr);
  if (absl::IsFailedPrecondition(trusted.status())) return;  // nothing to trust
  REQUIRE_MESSAGE(trusted.ok(), trusted.status().ToString());
}

std::vector<std::string> WritesDuring(const std::string& home,
                                      const std::vector<std::string>& subfolders,
                                      const std::function<void()>& action) {
  std::vector<std::string> events;
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch < 0) return events;
  constexpr uint32_t kWrites = IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE;
  std::map<int, std::string> folders;
  std::vector<std::string> all = {""};
  all.insert(all.end(), subfolders.begin(), subfolders.end());
  for (const std::string& sub : all) {
    const std::string dir = sub.empty() ? home : home + "/" + sub;
    if (const int wd = ::inotify_add_watch(watch, dir.c_str(), kWrites); wd >= 0) {
      folders[wd] = sub;
    }
  }
  action();
  alignas(inotify_event) char buffer[64 * 1024];
  ssize_t n;
  while ((n = ::read(watch, buffer, sizeof(buffer))) > 0) {
    for (char* at = buffer; at < buffer + n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(at);
      const std::string name = event->len > 0 ? std::string(event->name) : "";
      const char* what = (event->mask & IN_CLOSE_WRITE) != 0 ? "closed"
                         : (event->mask & IN_DELETE) != 0   ? "deleted"
                                                            : "written";
      events.push_back(folders[event->wd] + "/" + name + " " + what);
      at += sizeof(inotify_event) + event->len;
    }
  }
  ::close(watch);
  return events;
}

}  // namespace plugline::testing
