#include "core/redact.h"

#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

constexpr std::string_view kMask = "[redacted]";

bool IsTokenChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '-'; }
bool IsKeyChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.'; }

struct Prefix {
  std::string_view text;
  size_t min_rest;   // token characters after the prefix
  bool exact_upper;  // AWS ids: exactly 16 upper-case letters or digits after the prefix
};
constexpr std::array<Prefix, 18> kPrefixes = {{
    {"sk-", 16, false},      {"ghp_", 16, false},   {"gho_", 16, false},  {"ghu_", 16, false},
    {"ghs_", 16, false},     {"ghr_", 16, false},   {"github_pat_", 16, false},
    {"glpat-", 16, false},   {"xoxa-", 16, false},  {"xoxb-", 16, false}, {"xoxp-", 16, false},
    {"xoxr-", 16, false},    {"xoxs-", 16, false},  {"AIza", 16, false},  {"npm_", 16, false},
    {"AKIA", 16, true},      {"ASIA", 16, true},    {"sk_live_", 16, false},
}};

constexpr std::string_view kSecretKeyEndings[] = {
    "password", "passwd", "secret", "token", "api_key", "apikey", "api-key", "access_key",
    "access-key", "private_key", "private-key", "credentials"};

// Length of the run of token characters at text[pos...].
size_t TokenRun(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end < text.size() && IsTokenChar(text[end])) ++end;
  return end - pos;
}

// A well-known token starting at `pos` (at a word boundary): the length of its prefix and of
// the whole token; 0 when there is none.
std::pair<size_t, size_t> TokenAt(std::string_view text, size_t pos) {
  if (pos > 0 && IsTokenChar(text[pos - 1])) return {0, 0};
  for (const Prefix& p : kPrefixes) {
    if (text.substr(pos, p.text.size()) != p.text) continue;
    size_t rest = TokenRun(text, pos + p.text.size());
    if (p.exact_upper) {
      if (rest != 16) continue;
      std::string_view id = text.substr(pos + p.text.size(), 16);
      if (!std::all_of(id.begin(), id.end(),
                       [](char c) { return absl::ascii_isupper(c) || absl::ascii_isdigit(c); })) {
        continue;
      }
    }
    if (rest >= p.min_rest) return {p.text.size(), p.text.size() + rest};
  }
  return {0, 0};
}

bool EndsWithSecretKey(std::string_view key) {
  std::string lower = absl::AsciiStrToLower(ToAbsl(key));
  for (std::string_view ending : kSecretKeyEndings) {
    if (absl::EndsWith(lower, ToAbsl(ending))) return true;
  }
  return false;
}

// At `pos` just after a key: skips a closing quote (plain or JSON-escaped), spaces, the
// separator (= or :), spaces and an opening quote. Returns where the value starts and the
// quote that ends it ('\0' for an unquoted value), or npos when this is not key/value.
std::pair<size_t, std::string_view> ValueStart(std::string_view text, size_t pos) {
  auto skip_quote = [&](size_t at) -> std::pair<size_t, std::string_view> {
    if (text.substr(at, 2) == "\\\"") return {at + 2, "\\\""};
    if (at < text.size() && (text[at] == '"' || text[at] == '\'')) {
      return {at + 1, text.substr(at, 1)};
    }
    return {at, ""};
  };
  pos = skip_quote(pos).first;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  if (pos >= text.size() || (text[pos] != '=' && text[pos] != ':')) return {std::string::npos, ""};
  ++pos;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  return skip_quote(pos);
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    // PEM private keys.
    if (c == '-' && text.substr(i, 11) == "-----BEGIN ") {
      size_t header_end = text.find("-----", i + 11);
      if (header_end != std::string_view::npos &&
          absl::EndsWith(ToAbsl(text.substr(i, header_end - i)), "PRIVATE KEY")) {
        size_t end = text.find("-----END ", header_end + 5);
        size_t body = header_end + 5;
        out.append(text.substr(i, body - i));
        out.append(StrCat("\n", kMask, "\n"));
        i = end == std::string_view::npos ? text.size() : end;
        continue;
      }
    }
    // Bearer tokens.
    if ((c == 'B' || c == 'b') && absl::StartsWithIgnoreCase(ToAbsl(text.substr(i)), "bearer ") &&
        (i == 0 || !IsTokenChar(text[i - 1]))) {
      size_t start = i + 7;
      while (start < text.size() && text[start] == ' ') ++start;
      size_t end = start;
      while (end < text.size() &&
             (IsTokenChar(text[end]) || text[end] == '.' || text[end] == '~' ||
              text[end] == '+' || text[end] == '/' || text[end] == '=')) {
        ++end;
      }
      if (end - start >= 8) {
        out.append(text.substr(i, start - i));
        out.append(kMask);
        i = end;
        continue;
      }
    }
    // Well-known token prefixes.
    if (auto [prefix, length] = TokenAt(text, i); length != 0) {
      out.append(text.substr(i, prefix));
      out.append(kMask);
      i += length;
      continue;
    }
    // key=value with a secret-sounding key.
    if (IsKeyChar(c) && (i == 0 || !IsKeyChar(text[i - 1]))) {
      size_t key_end = i;
      while (key_end < text.size() && IsKeyChar(text[key_end])) ++key_end;
      std::string_view key = text.substr(i, key_end - i);
      if (EndsWithSecretKey(key)) {
        auto [value_start, quote] = ValueStart(text, key_end);
        if (value_start != std::string::npos) {
          size_t value_end = value_start;
          if (!quote.empty()) {
            value_end = text.find(quote, value_start);
            if (value_end == std::string_view::npos) value_end = text.size();
          } else {
            while (value_end < text.size() && text[value_end] != ' ' && text[value_end] != '\n' &&
                   text[value_end] != '&' && text[value_end] != ',' && text[value_end] != ';' &&
                   text[value_end] != '}' && text[value_end] != '"') {
              ++value_end;
            }
          }
          if (value_end > value_start) {
            out.append(text.substr(i, value_start - i));
            out.append(kMask);
            i = value_end;
            continue;
          }
        }
      }
      out.append(key);
      i = key_end;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace plugline::core
