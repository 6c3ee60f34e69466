#include "core/redact.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

constexpr std::string_view kMask = "[redacted]";

enum class Scope { kMessage, kOutput };

// Character classes, looked up: the masker asks of every byte of an output.
enum : uint8_t { kTokenClass = 1, kKeyClass = 2 };
constexpr std::array<uint8_t, 256> kClasses = [] {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (alnum || c == '_' || c == '-') classes[c] |= kTokenClass | kKeyClass;
    if (c == '.') classes[c] |= kKeyClass;
  }
  return classes;
}();
bool IsTokenChar(char c) { return kClasses[static_cast<uint8_t>(c)] & kTokenClass; }
bool IsKeyChar(char c) { return kClasses[static_cast<uint8_t>(c)] & kKeyClass; }
bool IsQuote(char c) { return c == '"' || c == '\''; }

// Random enough to be a credential rather than a name: a letter and a digit somewhere.
bool HasLetterAndDigit(std::string_view text) {
  return std::any_of(text.begin(), text.end(), absl::ascii_isalpha) &&
         std::any_of(text.begin(), text.end(), absl::ascii_isdigit);
}

struct Prefix {
  std::string_view text;
  bool exact_upper;  // AWS ids: exactly 16 upper-case letters or digits after the prefix
};
constexpr std::array<Prefix, 24> kPrefixes = {{
    {"sk-", false},   {"ghp_", false},     {"gho_", false},        {"ghu_", false},
    {"ghs_", false},  {"ghr_", false},     {"github_pat_", false}, {"glpat-", false},
    {"xoxa-", false}, {"xoxb-", false},    {"xoxp-", false},       {"xoxr-", false},
    {"xoxs-", false}, {"AIza", false},     {"npm_", false},        {"AKIA", true},
    {"ASIA", true},   {"sk_live_", false}, {"rk_live_", false},    {"whsec_", false},
    {"hf_", false},   {"pypi-", false},    {"sk_test_", false},    {"rk_test_", false},
}};
constexpr size_t kMinTokenRest = 16;
// A value of a key named like an API key or a token, of fewer letters than this and letters
// only, is an example's.
constexpr size_t kMinKeyValue = 8;

// The endings of secret-sounding keys, by their last letter.
constexpr std::string_view kEndingsInD[] = {"password", "passwd"};
constexpr std::string_view kEndingsInT[] = {"secret"};
constexpr std::string_view kEndingsInN[] = {"token"};
constexpr std::string_view kEndingsInY[] = {
    "api_key",     "apikey",     "api-key",    "access_key", "access-key",
    "private_key", "private-key", "secret_key", "secretkey", "secret-key"};
constexpr std::string_view kEndingsInE[] = {"passphrase"};
constexpr std::string_view kEndingsInS[] = {"credentials"};
// A kubeconfig's client-key-data: a private key, base64-encoded.
constexpr std::string_view kEndingsInA[] = {"key-data", "key_data"};

// Length of the run of token characters at text[pos...].
size_t TokenRun(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end < text.size() && IsTokenChar(text[end])) ++end;
  return end - pos;
}

// A well-known token starting at `pos` (at a word boundary): the length of its prefix and of
// the whole token; 0 when there is none.
std::pair<size_t, size_t> TokenAt(std::string_view text, size_t pos) {
  // Every prefix starts with one of these: most words are rejected here.
  switch (text[pos]) {
    case 's':
    case 'g':
    case 'x':
    case 'A':
    case 'n':
    case 'r':
    case 'w':
    case 'h':
    case 'p':
      break;
    default:
      return {0, 0};
  }
  for (const Prefix& p : kPrefixes) {
    if (p.text[0] != text[pos] || text.substr(pos, p.text.size()) != p.text) continue;
    const size_t rest = TokenRun(text, pos + p.text.size());
    const std::string_view token = text.substr(pos + p.text.size(), rest);
    if (p.exact_upper) {
      if (rest != 16 || !std::all_of(token.begin(), token.end(), [](char c) {
            return absl::ascii_isupper(c) || absl::ascii_isdigit(c);
          })) {
        continue;
      }
    } else if (rest < kMinTokenRest || !HasLetterAndDigit(token)) {
      continue;
    }
    return {p.text.size(), p.text.size() + rest};
  }
  return {0, 0};
}

// A JSON web token at `pos`: "eyJ", then header, payload and signature joined by dots. Its
// length, 0 when there is none.
size_t JwtAt(std::string_view text, size_t pos) {
  if (text.substr(pos, 3) != "eyJ") return 0;
  const size_t header = TokenRun(text, pos);
  if (header < 10 || pos + header >= text.size() || text[pos + header] != '.') return 0;
  const size_t payload_start = pos + header + 1;
  const size_t payload = TokenRun(text, payload_start);
  if (payload < 10 || payload_start + payload >= text.size() ||
      text[payload_start + payload] != '.') {
    return 0;
  }
  const size_t signature_start = payload_start + payload + 1;
  return signature_start + TokenRun(text, signature_start) - pos;
}

bool EndsWithSecretKey(std::string_view key) {
  // Most words are rejected by their last letter.
  std::span<const std::string_view> endings;
  switch (key.empty() ? '\0' : absl::ascii_tolower(key.back())) {
    case 'd': endings = kEndingsInD; break;
    case 't': endings = kEndingsInT; break;
    case 'n': endings = kEndingsInN; break;
    case 'y': endings = kEndingsInY; break;
    case 's': endings = kEndingsInS; break;
    case 'e': endings = kEndingsInE; break;
    case 'a': endings = kEndingsInA; break;
    default: return false;
  }
  for (std::string_view ending : endings) {
    if (key.size() < ending.size()) continue;
    const std::string_view tail = key.substr(key.size() - ending.size());
    if (std::equal(tail.begin(), tail.end(), ending.begin(),
                   [](char a, char b) { return absl::ascii_tolower(a) == b; })) {
      return true;
    }
  }
  return false;
}

// Keys that hold a secret as often as not, and a flag as often (`pass: SmtpPass77` and
// `bypass: true`, docker's `"auth": "cm9i…"` and `"auth": "required"`): their value is masked
// only when it reads as a secret (IsWeakKeySecret), however it is written. The key is one of
// these, or ends in one after `_`, `-` or `.` ("smtp_pass", "db-pwd"), or in camel case
// ("dbPass", "smtpPwd": a capital after a small letter).
bool IsWeakSecretKey(std::string_view key) {
  for (std::string_view weak : {"pass", "pwd", "auth"}) {
    if (key.size() < weak.size()) continue;
    const std::string_view tail = key.substr(key.size() - weak.size());
    if (!std::equal(tail.begin(), tail.end(), weak.begin(),
                    [](char a, char b) { return absl::ascii_tolower(a) == b; })) {
      continue;
    }
    const size_t before = key.size() - weak.size();
    return before == 0 || std::string_view("_-.").find(key[before - 1]) != std::string_view::npos ||
           (absl::ascii_isupper(key[before]) && absl::ascii_islower(key[before - 1]));
  }
  return false;
}

// The value of a weak key that reads as a secret: of 8 characters or more, with letters and a
// digit or a password's symbols — not a word (`"required"`, `always`).
bool IsSecretLiteral(std::string_view value);
bool IsWeakKeySecret(std::string_view value) {
  return value.size() >= 8 && IsSecretLiteral(value) &&
         (HasLetterAndDigit(value) || value.find_first_of("!@$%^&*+=?~") != std::string_view::npos);
}

// A value that names a secret rather than holding one, or one already masked.
bool IsPlaceholder(std::string_view value) {
  return value.empty() || value.front() == '$' || value.front() == '<' || value.front() == '*' ||
         value.front() == '{' || value.front() == '%' ||
         absl::StartsWith(ToAbsl(value), ToAbsl(kMask));
}

// A package manifest's version or specifier, the value of a dependency whose name ends like a
// secret's key ("jsonwebtoken": "^9.0.2", "pbkdf2-password": "~1.2"): not a secret.
bool IsDependencySpec(std::string_view value) {
  for (std::string_view spec : {"workspace:", "file:", "link:", "npm:", "git+", "github:"}) {
    if (absl::StartsWith(ToAbsl(value), ToAbsl(spec))) return true;
  }
  if (value == "latest" || value == "next") return true;
  size_t at = 0;
  while (at < value.size() &&
         std::string_view("^~<>= v").find(value[at]) != std::string_view::npos) {
    ++at;
  }
  size_t digits = at;
  while (digits < value.size() && absl::ascii_isdigit(value[digits])) ++digits;
  return digits > at && (digits == value.size() || value[digits] == '.');
}

// The label of a PEM private key's BEGIN line, between "-----BEGIN " and "-----": upper-case
// words ending in PRIVATE KEY ("RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY"), not any text up to
// the next five dashes on the line.
bool IsPrivateKeyLabel(std::string_view label) {
  return absl::EndsWith(ToAbsl(label), "PRIVATE KEY") &&
         std::all_of(label.begin(), label.end(), [](char c) {
           return absl::ascii_isupper(c) || absl::ascii_isdigit(c) || c == ' ';
         });
}

// Where the line holding text[pos] ends (its '\n', or the end of the text).
size_t LineEnd(std::string_view text, size_t pos) {
  const size_t end = text.find('\n', pos);
  return end == std::string_view::npos ? text.size() : end;
}

// At `pos` just after a key: skips a closing quote (plain or JSON-escaped), spaces, the
// separator (= or :), spaces and an opening quote. Returns where the value starts and the
// quote that ends it ("" for an unquoted value), or npos when this is not key/value.
std::pair<size_t, std::string_view> ValueStart(std::string_view text, size_t pos) {
  auto skip_quote = [&](size_t at) -> std::pair<size_t, std::string_view> {
    if (text.substr(at, 2) == "\\\"") return {at + 2, "\\\""};
    if (at < text.size() && IsQuote(text[at])) return {at + 1, text.substr(at, 1)};
    return {at, ""};
  };
  pos = skip_quote(pos).first;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  if (pos >= text.size() || (text[pos] != '=' && text[pos] != ':')) return {std::string::npos, ""};
  ++pos;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  return skip_quote(pos);
}

// The quote just before text[pos] ("\"", "'" or the JSON-escaped "\\\""), or "".
std::string_view QuoteBefore(std::string_view text, size_t pos) {
  if (pos >= 2 && text.substr(pos - 2, 2) == "\\\"") return text.substr(pos - 2, 2);
  if (pos >= 1 && IsQuote(text[pos - 1])) return text.substr(pos - 1, 1);
  return "";
}

// `at` less the diff marker that starts its line right before it, when there is one: a
// changed line of a diff, `+DB_PASSWORD=…`, `-  password: …` (git diff, diff -u), `> …`,
// `< …` (diff's normal format), is read as the line it changes.
size_t AfterDiffMarker(std::string_view text, size_t at) {
  if (at > 0 && std::string_view("+-<>").find(text[at - 1]) != std::string_view::npos &&
      (at == 1 || text[at - 2] == '\n')) {
    return at - 1;
  }
  return at;
}

// True when the key text[pos, key_end) starts a shell or .env assignment: nothing before it on
// its line but spaces and "export " or "declare -x ", or — for an upper-case KEY, as env,
// .env files and `docker inspect` print them — a quote or "- " (a YAML list). A lower-case
// name after spaces is more often code (`    credentials=None,`).
bool StartsAssignment(std::string_view text, size_t pos, size_t key_end) {
  size_t at = pos;
  bool exported = false;
  if (at > 0 && IsQuote(text[at - 1])) {
    --at;
  } else {
    for (std::string_view lead : {"export ", "declare -x "}) {
      if (at >= lead.size() && text.substr(at - lead.size(), lead.size()) == lead) {
        at -= lead.size();
        exported = true;
        break;
      }
    }
  }
  if (!exported) {
    const std::string_view key = text.substr(pos, key_end - pos);
    if (std::any_of(key.begin(), key.end(), absl::ascii_islower)) return false;
    if (at >= 2 && text.substr(at - 2, 2) == "- ") at -= 2;
  }
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  at = AfterDiffMarker(text, at);
  return at == 0 || text[at - 1] == '\n';
}

// A quoted literal assigned in source or configuration is a secret when it reads as one: no
// space in it (a sentence is a message or a prompt), and a digit with its letters, or a lower-
// case word or one with a password's symbols of at least kMinSecretWord characters
// ("hunter2", "deadbeef", "geheim$parole"). Names are not: an identifier (`"_RSAPrivateKey"`,
// `"bearerToken"`), a header or path (`"X-Connection-Token"`, `"etc/passwd"`), a colour.
constexpr size_t kMinSecretWord = 8;
bool IsSecretLiteral(std::string_view value) {
  if (value.empty() || value.front() == '#' ||
      std::any_of(value.begin(), value.end(), [](char c) {
        return absl::ascii_isspace(static_cast<unsigned char>(c)) || c == '\\';
      })) {
    return false;
  }
  if (HasLetterAndDigit(value)) return true;
  if (value.size() < kMinSecretWord) return false;
  return std::all_of(value.begin(), value.end(), absl::ascii_islower) ||
         value.find_first_of("!@$%^&*+=?~") != std::string_view::npos;
}

// An unquoted value that reads as a secret and not as code: no placeholder (YAML's alias
// `*db_password1`, `%s`), no brackets, commas, semicolons, operators or references in it
// (but base64's padding, "aHVudGVyMg==").
bool IsUnquotedSecret(std::string_view value) {
  const std::string_view unpadded = value.substr(0, value.find_last_not_of('=') + 1);
  return !IsPlaceholder(value) && !IsQuote(value[0]) &&
         unpadded.find_first_of("()[]{}<>,;|=$`") == std::string_view::npos &&
         IsSecretLiteral(value);
}

// The value of a `key=value` word (a command line's `--password=…`, a URL's `?token=…`, a
// log's `password=…`): a secret when it reads as one unquoted, and when it is letters alone,
// kMinSecretWord or more, in both cases: a passphrase ("CorrectHorseBatteryStaple"). Code does
// not write a name so (its `f(password=pw)` ends in punctuation), and a usage's placeholder is
// capitals alone (`--password=PASSWORD`).
bool IsWordSecret(std::string_view value) {
  if (IsUnquotedSecret(value)) return true;
  return value.size() >= kMinSecretWord &&
         std::all_of(value.begin(), value.end(), absl::ascii_isalpha) &&
         std::any_of(value.begin(), value.end(), absl::ascii_islower);
}

// How far the key at text[key_start] is indented, when nothing but spaces, tabs and a YAML
// list's "- " come before it on its line (after a diff's marker: AfterDiffMarker); npos
// otherwise.
size_t LineIndent(std::string_view text, size_t key_start) {
  size_t at = key_start;
  if (at >= 2 && text.substr(at - 2, 2) == "- ") at -= 2;
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
  const size_t line_start = AfterDiffMarker(text, at);
  if (line_start > 0 && text[line_start - 1] != '\n') return std::string_view::npos;
  return key_start - at;
}

// What may follow a literal that is a value of its own: spaces, then nothing, a comment, or
// punctuation that closes or separates (`,` `;` `)` `]` `}`). A literal that goes on into an
// expression (`"admin" | "user"`, `"a" + b`, `"Token" = None`) is not one.
bool EndsValue(std::string_view rest) {
  const size_t at = rest.find_first_not_of(" \t\r");
  if (at == std::string_view::npos) return true;
  rest.remove_prefix(at);
  return std::string_view("#,;)]}").find(rest.front()) != std::string_view::npos ||
         rest.starts_with("//");
}

// The value assigned to the secret-sounding key text[key_start, key_end), the key itself not
// quoted, that is to be masked in command output (SecretValue), as [start, end); start is npos
// when there is none.
std::pair<size_t, size_t> AssignedValue(std::string_view text, size_t key_start,
                                        size_t key_end) {
  constexpr std::pair<size_t, size_t> kNone = {std::string::npos, 0};
  // A capitalized key is a type's name (`Token: "#f8f8f2"` in a style table).
  if (absl::ascii_isupper(text[key_start]) && key_end > key_start + 1 &&
      absl::ascii_islower(text[key_start + 1])) {
    return kNone;
  }
  if (key_end + 1 < text.size() && text[key_end] == '=' && !IsQuote(text[key_end + 1]) &&
      (key_start == 0 || std::string_view(" \t\n?&").find(text[key_start - 1]) !=
                             std::string_view::npos)) {
    // A word of its own, unquoted: a command line's `--password=…` or `-e DB_PASSWORD=…`
    // (ps, set -x, a CI log), a URL's `?access_token=…&`, a shell's `password=…`. Code's
    // `f(a, token=tok1)` has punctuation in its value.
    const size_t start = key_end + 1;
    const size_t end = std::min(text.find_first_of(" \t\r\n&#\"'", start), text.size());
    if (!IsWordSecret(text.substr(start, end - start))) return kNone;
    return {start, end};
  }
  const auto [start, quote] = ValueStart(text, key_end);
  if (start == std::string::npos) return kNone;
  const size_t line_end = LineEnd(text, start);
  if (quote.empty()) {
    // A configuration file's line of its own, unquoted: YAML's `password: hunter2` (indented,
    // or after "- "; `kubectl get secret -o yaml`'s data), an .ini's or a .properties file's
    // `password = hunter2` (at the line's start). The rest of the line, but for a comment, is
    // one word that reads as a secret: code's `password: str` (a type), `token: string;`,
    // `token = token.strip()` are not.
    const size_t indent = LineIndent(text, key_start);
    const char sep = text[text.find_first_not_of(' ', key_end)];  // '=' or ':'
    if (indent == std::string_view::npos || (sep != ':' && indent != 0)) return kNone;
    std::string_view value = text.substr(start, line_end - start);
    value = value.substr(0, value.find(" #"));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
    if (!IsUnquotedSecret(value)) return kNone;
    return {start, start + value.size()};
  }
  // Quoted, as source and configuration write it: `SECRET_KEY = "…"` (settings.py),
  // `password = "…"` (TOML), `password: '…'` (YAML, Ruby, a JS object),
  // `connect(password="…")`: the whole literal on its line, a value of its own.
  if (quote != "\"" && quote != "'") return kNone;
  const size_t end = text.find(quote, start);
  if (end == std::string_view::npos || end > line_end) return kNone;
  const std::string_view value = text.substr(start, end - start);
  if (!IsSecretLiteral(value) || !EndsValue(text.substr(end + 1, line_end - end - 1)) ||
      IsPlaceholder(value) || IsDependencySpec(value)) {
    return kNone;
  }
  return {start, end};
}

// The value after the secret-sounding key text[key_start, key_end) that is to be masked, as
// [start, end); start is npos when there is none (not key/value in this scope, a placeholder,
// a dependency's version).
std::pair<size_t, size_t> SecretValue(std::string_view text, size_t key_start, size_t key_end,
                                      Scope scope) {
  constexpr std::pair<size_t, size_t> kNone = {std::string::npos, 0};
  size_t start = std::string::npos, end = std::string::npos;
  std::string_view quote;  // that closes the value; "" when it is not quoted
  const std::string_view key_quote = QuoteBefore(text, key_start);
  if (scope == Scope::kMessage) {
    std::tie(start, quote) = ValueStart(text, key_end);
  } else if (!key_quote.empty() && text.substr(key_end, key_quote.size()) == key_quote) {
    // "key": "value": both quoted.
    std::tie(start, quote) = ValueStart(text, key_end);
    if (quote.empty()) return kNone;
  } else if (key_end < text.size() && text[key_end] == '=' &&
             StartsAssignment(text, key_start, key_end)) {
    // KEY=value starting a line; inside quotes ("KEY=value") the value ends at the quote.
    start = key_end + 1;
    if (start < text.size() && IsQuote(text[start])) {
      quote = text.substr(start++, 1);
    } else if (!key_quote.empty()) {
      end = std::min(text.find(key_quote, start), LineEnd(text, start));
    }
  } else if (!key_quote.empty() && key_end + 1 < text.size() && text[key_end] == '=' &&
             !IsQuote(text[key_end + 1])) {
    // A `key=value` word that starts a quoted string: `print("password=…")`, `echo "token=…"`,
    // read as the word (AssignedValue); the value ends at the quote.
    start = key_end + 1;
    end = std::min(
        {text.find_first_of(" \t\r\n&#", start), text.find(key_quote, start), text.size()});
    if (!IsWordSecret(text.substr(start, end - start))) return kNone;
    return {start, end};
  } else if (key_quote.empty()) {
    return AssignedValue(text, key_start, key_end);
  }
  if (start == std::string::npos) return kNone;
  if (!quote.empty()) {
    end = text.find(quote, start);
    // Command output is masked a line at a time: an unclosed quote ends with its line.
    if (scope == Scope::kOutput) end = std::min(end, LineEnd(text, start));
    if (end == std::string_view::npos) end = text.size();
  } else if (end == std::string::npos) {
    const std::string_view stops = scope == Scope::kMessage ? " \t\r\n&,;}\"" : " \t\r\n";
    end = std::min(text.find_first_of(stops, start), text.size());
  }
  const std::string_view value = text.substr(start, end - start);
  if (IsPlaceholder(value) || (!quote.empty() && IsDependencySpec(value))) return kNone;
  // A key or token of a few letters is an example's (`'X-API-Key': 'tobi'` in a library's
  // documentation), no credential: those are long. A password may be short: masked.
  const std::string_view key = text.substr(key_start, key_end - key_start);
  if (value.size() < kMinKeyValue &&
      std::all_of(value.begin(), value.end(), [](char c) { return absl::ascii_isalpha(c); }) &&
      (absl::EndsWithIgnoreCase(ToAbsl(key), "key") ||
       absl::EndsWithIgnoreCase(ToAbsl(key), "token"))) {
    return kNone;
  }
  return {start, end};
}

size_t LineStart(std::string_view text, size_t pos);

// `-p<password>` glued, as MySQL's and MariaDB's clients take it (`mysql -u root -pS3cret app`,
// `mysqldump -pS3cret db`), on a line that runs one: the password's end, 0 when there is none.
size_t GluedPasswordEnd(std::string_view text, size_t pos) {
  if (pos + 2 >= text.size() || text[pos] != '-' || text[pos + 1] != 'p' ||
      std::string_view(" \t\r\n'\"").find(text[pos + 2]) != std::string_view::npos) {
    return 0;
  }
  const std::string_view line = text.substr(LineStart(text, pos), pos - LineStart(text, pos));
  bool client = false;
  for (std::string_view name : {"mysql", "mariadb"}) {
    for (size_t at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
      client |= at == 0 || line[at - 1] == ' ' || line[at - 1] == '/' || line[at - 1] == '$';
    }
  }
  if (!client) return 0;
  return std::min(text.find_first_of(" \t\r\n'\"", pos + 2), text.size());
}

// Whether the line that starts at text[line_start] is a .netrc entry: it starts, after a diff's
// marker and spaces, with one of the file's words (`machine api.example.com login bob
// password …`, `  password …` on a line of its own).
bool IsNetrcLine(std::string_view text, size_t line_start) {
  std::string_view line = text.substr(line_start, LineEnd(text, line_start) - line_start);
  // A diff's changed line is read as the line it changes (AfterDiffMarker).
  if (!line.empty() && std::string_view("+-<>").find(line[0]) != std::string_view::npos) {
    line.remove_prefix(1);
  }
  line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
  for (std::string_view word : {"machine ", "default", "login ", "password ", "account "}) {
    if (line.starts_with(word)) return true;
  }
  return false;
}

// Where the line holding text[pos] starts.
size_t LineStart(std::string_view text, size_t pos) {
  const size_t nl = pos == 0 ? std::string_view::npos : text.rfind('\n', pos - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// The credentials an HTTP header line starting at text[at] carries, as [start, end) ranges in
// order: a `Cookie:` header's every value of 8 characters or more (`sid=[redacted]; lang=en`),
// a `Set-Cookie:` header's cookie value (not its attributes), an `Authorization:` or
// `Proxy-Authorization:` header's credentials after their scheme (`Basic [redacted]`). The
// header may follow curl -v's `> ` or `< `.
std::vector<std::pair<size_t, size_t>> HeaderCredentials(std::string_view text, size_t at) {
  std::vector<std::pair<size_t, size_t>> ranges;
  if (text.substr(at, 2) == "> " || text.substr(at, 2) == "< ") at += 2;
  // Most lines are rejected by their first letter, before their end is looked for.
  if (at >= text.size() || std::string_view("cCsSaApP").find(text[at]) == std::string_view::npos) {
    return ranges;
  }
  const size_t line_end = LineEnd(text, at);
  const std::string_view line = text.substr(at, line_end - at);
  auto header = [&](std::string_view name) {
    return line.size() > name.size() && absl::StartsWithIgnoreCase(ToAbsl(line), ToAbsl(name));
  };
  auto trim_end = [&](size_t end) {
    while (end > at && (text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
    return end;
  };
  if (header("authorization:") || header("proxy-authorization:")) {
    size_t start = at + line.find(':') + 1;
    while (start < line_end && text[start] == ' ') ++start;
    const size_t scheme_end = text.find(' ', start);
    if (scheme_end == std::string_view::npos || scheme_end >= line_end) return ranges;
    start = scheme_end + 1;
    while (start < line_end && text[start] == ' ') ++start;
    const size_t end = trim_end(line_end);
    if (end > start && !IsPlaceholder(text.substr(start, end - start)))
      ranges.emplace_back(start, end);
    return ranges;
  }
  const bool set = header("set-cookie:");
  if (!set && !header("cookie:")) return ranges;
  size_t pos = at + line.find(':') + 1;
  while (pos < line_end) {
    const size_t eq = text.find('=', pos);
    if (eq == std::string_view::npos || eq >= line_end) break;
    size_t end = text.find(';', eq);
    end = trim_end(end == std::string_view::npos || end > line_end ? line_end : end);
    if (end >= eq + 1 + 8 && !IsPlaceholder(text.substr(eq + 1, end - eq - 1))) {
      ranges.emplace_back(eq + 1, end);
    }
    if (set) break;
    pos = end + 1;
  }
  return ranges;
}

// The secret in a webhook's URL at text[pos] (Slack's
// `hooks.slack.com/services/T…/B…/<secret>`, Discord's `/api/webhooks/<id>/<secret>`) as
// [start, end); start is npos when there is none.
std::pair<size_t, size_t> WebhookSecret(std::string_view text, size_t pos) {
  constexpr std::pair<size_t, size_t> kNone = {std::string::npos, 0};
  size_t at = pos, segments = 0;
  if (text.substr(pos, 25) == "hooks.slack.com/services/") {
    at += 25;
    segments = 2;
  } else if (text.substr(pos, 14) == "/api/webhooks/") {
    at += 14;
    segments = 1;
  } else {
    return kNone;
  }
  for (size_t k = 0; k < segments; ++k) {
    const size_t run = TokenRun(text, at);
    if (run == 0 || at + run >= text.size() || text[at + run] != '/') return kNone;
    at += run + 1;
  }
  const size_t run = TokenRun(text, at);
  if (run < 16) return kNone;
  return {at, at + run};
}

// One pass over `text`, appending it masked to `out`. `in_private_key` carries a private
// key's body from one piece of an output to the next (SecretMasker); true on return when the
// text ended inside one. Returns whether anything was masked.
bool MaskInto(std::string_view text, Scope scope, bool* in_private_key, std::string* out) {
  size_t copied = 0;  // text[0, copied) is in *out
  bool masked = false;
  // Where the last mask ended. What follows a mask is read as the masked text has it, after
  // "]" or a line break: a word or key starts there ("sk-[redacted].password=…"), as it does
  // when the masked text is masked again.
  size_t mask_end = 0;
  auto mask = [&](size_t from, size_t to, std::string_view with) {
    out->append(text.substr(copied, from - copied));
    out->append(with);
    copied = mask_end = to;
    masked = true;
  };
  size_t i = 0;
  // Masks the value text[from, to) found reading from text[i]. What lies between — a key's own
  // text, a URL's user name — is read first, as it will be once the value is masked: a token
  // in it is masked too (`https://ghp_…:x-oauth-basic@`, `tests.eyJ….SECRET_KEY = '…'`).
  auto mask_value = [&](size_t from, size_t to) {
    std::string before;
    bool before_in_key = false;
    if (MaskInto(text.substr(i, from - i), scope, &before_in_key, &before)) mask(i, from, before);
    mask(from, to, kMask);
  };
  if (*in_private_key) {
    const size_t end = text.find("-----END ");
    if (end == std::string_view::npos) return !text.empty();  // all of it is the key's body
    *in_private_key = false;
    copied = mask_end = i = end;
    masked = end > 0;
  }
  while (i < text.size()) {
    const char c = text[i];
    // A header line's credentials (Cookie, Set-Cookie, Authorization), in command output.
    if (scope == Scope::kOutput && (i == 0 || text[i - 1] == '\n') && i >= copied) {
      if (const auto ranges = HeaderCredentials(text, i); !ranges.empty()) {
        for (const auto& [from, to] : ranges) mask(from, to, kMask);
        i = copied;
        continue;
      }
    }
    // A webhook's secret in its URL.
    if ((c == 'h' || c == '/') && i + 14 <= text.size()) {
      if (auto [from, to] = WebhookSecret(text, i); from != std::string::npos) {
        mask(from, to, kMask);
        i = to;
        continue;
      }
    }
    const bool after_mask = i == 0 || i == mask_end;
    const bool word_start = after_mask || !IsTokenChar(text[i - 1]);
    // PEM private keys: the body, up to the END line (or the end of the text, the END line
    // then being in a later piece). A key written on one line, its line breaks escaped (a
    // service account's JSON, a string in source code), is masked to its END or the quote
    // that ends it on that line, or to the line's end: not to the end of the output.
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-' &&
        text.substr(i, 11) == "-----BEGIN ") {
      const size_t line_end = LineEnd(text, i);
      const size_t header_end = text.find("-----", i + 11);
      if (header_end != std::string_view::npos && header_end < line_end &&
          IsPrivateKeyLabel(text.substr(i + 11, header_end - i - 11))) {
        const size_t body = header_end + 5;
        const std::string_view rest = text.substr(body, line_end - body);
        if (rest.empty() || rest == "\r") {
          const size_t end = text.find("-----END ", body);
          mask(body, end == std::string_view::npos ? text.size() : end,
               StrCat("\n", kMask, "\n"));
          if (end == std::string_view::npos) *in_private_key = true;
        } else {
          // Its body has no quote: one ends the string it is in.
          const size_t end = std::min(rest.find("-----END "), rest.find_first_of("\"'"));
          mask(body, end == std::string_view::npos ? line_end : body + end, kMask);
          // A long line masked in pieces: the body goes on in the next.
          if (end == std::string_view::npos && line_end == text.size()) *in_private_key = true;
        }
        i = copied;
        continue;
      }
    }
    if (word_start) {
      // Bearer tokens.
      if ((c == 'B' || c == 'b') && i + 1 < text.size() && (text[i + 1] | 0x20) == 'e' &&
          absl::StartsWithIgnoreCase(ToAbsl(text.substr(i, 7)), "bearer ")) {
        size_t start = i + 7;
        while (start < text.size() && text[start] == ' ') ++start;
        size_t end = start;
        while (end < text.size() &&
               (IsTokenChar(text[end]) || text[end] == '.' || text[end] == '~' ||
                text[end] == '+' || text[end] == '/' || text[end] == '=')) {
          ++end;
        }
        const std::string_view token = text.substr(start, end - start);
        if (token.size() >= 8 && std::any_of(token.begin(), token.end(), absl::ascii_isdigit)) {
          mask(start, end, kMask);
          i = end;
          continue;
        }
      }
      // Well-known token prefixes and JSON web tokens.
      if (auto [prefix, length] = TokenAt(text, i); length != 0) {
        mask(i + prefix, i + length, kMask);
        i += length;
        continue;
      }
      if (const size_t length = c == 'e' ? JwtAt(text, i) : 0; length != 0) {
        mask(i + 3, i + length, kMask);
        i += length;
        continue;
      }
      if (const size_t end = c == '-' ? GluedPasswordEnd(text, i) : 0; end != 0) {
        mask(i + 2, end, kMask);
        i = end;
        continue;
      }
    }
    // A URL's password: scheme://user:password@host, scheme://:password@host (Redis). A user
    // name without a password that is a key (Sentry's DSN, https://<32 hex>@o1.ingest…): the
    // name.
    if (c == ':' && i + 2 < text.size() && text[i + 1] == '/' && text[i + 2] == '/') {
      constexpr std::string_view kUserEnd = ":/@ \t\r\n?#\"'<>";
      constexpr std::string_view kPasswordEnd = "@/ \t\r\n?#\"'<>";
      size_t colon = i + 3;
      while (colon < text.size() && kUserEnd.find(text[colon]) == std::string_view::npos) ++colon;
      if (colon < text.size() && text[colon] == '@' && colon >= i + 3 + 20 &&
          TokenRun(text, i + 3) == colon - i - 3 &&
          HasLetterAndDigit(text.substr(i + 3, colon - i - 3))) {
        mask_value(i + 3, colon);
        i = colon;
        continue;
      }
      if (colon < text.size() && text[colon] == ':') {
        size_t at = colon + 1;
        while (at < text.size() && kPasswordEnd.find(text[at]) == std::string_view::npos) ++at;
        if (at < text.size() && text[at] == '@' &&
            !IsPlaceholder(text.substr(colon + 1, at - colon - 1))) {
          mask_value(colon + 1, at);
          i = at;
          continue;
        }
      }
    }
    // key=value with a secret-sounding key.
    if (IsKeyChar(c) && (after_mask || !IsKeyChar(text[i - 1]))) {
      size_t key_end = i;
      bool inner = false;  // a dot (a token or "eyJ" may follow) or "--" (a PEM header) inside
      for (; key_end < text.size() && IsKeyChar(text[key_end]); ++key_end) {
        inner |= text[key_end] == '.' ||
                 (key_end > i && text[key_end] == '-' && text[key_end - 1] == '-');
      }
      const std::string_view key = text.substr(i, key_end - i);
      const bool weak = IsWeakSecretKey(key);
      if (!weak && !EndsWithSecretKey(key)) {
        i = inner ? i + 1 : key_end;  // nothing else starts inside a plain key
        continue;
      }
      // A value that is a PEM block is masked as one, its body (`SECRET_KEY =-----BEGIN …`).
      if (auto [from, to] = SecretValue(text, i, key_end, scope);
          from != std::string::npos && !text.substr(from).starts_with("-----BEGIN ") &&
          (!weak || IsWeakKeySecret(text.substr(from, to - from)))) {
        mask_value(from, to);
        i = to;
        continue;
      }
      // A .netrc's `password <value>`.
      if (scope == Scope::kOutput && key == "password" && key_end < text.size() &&
          text[key_end] == ' ' && IsNetrcLine(text, LineStart(text, i))) {
        const size_t from = key_end + 1;
        const size_t to = std::min(text.find_first_of(" \t\r\n", from), text.size());
        const std::string_view value = text.substr(from, to - from);
        if (IsSecretLiteral(value) &&
            std::string_view("=:\"'").find(value[0]) == std::string_view::npos &&
            !IsPlaceholder(value)) {
          mask_value(from, to);
          i = to;
          continue;
        }
      }
    }
    ++i;
  }
  out->append(text.substr(copied));
  return masked;
}

// Where to cut a line held too long: just after the last space, quote or comma that leaves
// at least 1 KiB held (so that a secret near the cut is seen whole), else at that point.
size_t LongLineCut(std::string_view held) {
  const size_t limit = held.size() - 1024;
  const size_t at = held.substr(0, limit).find_last_of(" \t\"',");
  return at == std::string_view::npos ? limit : at + 1;
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_private_key = false;
  MaskInto(text, Scope::kMessage, &in_private_key, &out);
  return out;
}

bool MaskSecrets(std::string_view text, std::string* out) {
  std::string masked;
  bool in_private_key = false;
  // A masked value masked again reads the same: that is no change.
  if (!MaskInto(text, Scope::kOutput, &in_private_key, &masked) || masked == text) return false;
  *out = std::move(masked);
  return true;
}

void SecretMasker::Feed(std::string_view chunk, std::string* out) {
  // Only the new chunk can end a line: what is held has none (a producer writing a byte at a
  // time must not make every call search the whole held line again).
  const size_t newline = chunk.rfind('\n');
  held_.append(chunk);
  const size_t lines =
      newline == std::string_view::npos ? 0 : held_.size() - chunk.size() + newline + 1;
  if (lines > 0) {
    MaskInto(std::string_view(held_).substr(0, lines), Scope::kOutput, &in_private_key_, out);
    held_.erase(0, lines);
  }
  while (held_.size() > kMaxHeldBytes) {
    const size_t cut = LongLineCut(held_);
    MaskInto(std::string_view(held_).substr(0, cut), Scope::kOutput, &in_private_key_, out);
    held_.erase(0, cut);
  }
}

void SecretMasker::Finish(std::string* out) {
  MaskInto(held_, Scope::kOutput, &in_private_key_, out);
  held_.clear();
  in_private_key_ = false;
}

}  // namespace plugline::core
