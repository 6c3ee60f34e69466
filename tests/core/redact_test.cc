#include "core/redact.h"

#include <doctest/doctest.h>

#include "core/log.h"
#include "test_util.h"

namespace plugline::core {
namespace {

TEST_CASE("redact: well-known tokens keep their prefix and lose the rest") {
  CHECK(RedactSecrets("key sk-abcdefgh12345678XYZ end") == "key sk-[redacted] end");
  CHECK(RedactSecrets("sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA") == "sk-[redacted]");
  CHECK(RedactSecrets("ghp_abcdefghijklmnopqrstuvwxyz0123456789") == "ghp_[redacted]");
  CHECK(RedactSecrets("github_pat_11ABCDEFG0123456789_abcdefghij") == "github_pat_[redacted]");
  CHECK(RedactSecrets("id=AKIAABCDEFGHIJKLMNOP.") == "id=AKIA[redacted].");
  CHECK(RedactSecrets("AKIAABCDEFGHIJKLMNOP") == "AKIA[redacted]");
  CHECK(RedactSecrets("xoxb-123456789012-abcdefghijkl") == "xoxb-[redacted]");
  // Too short, or inside a word: not a token.
  CHECK(RedactSecrets("sk-learn is a library") == "sk-learn is a library");
  CHECK(RedactSecrets("task-abcdefghijklmnopqrstuvw") == "task-abcdefghijklmnopqrstuvw");
  CHECK(RedactSecrets("AKIAshort") == "AKIAshort");
}

TEST_CASE("redact: bearer tokens, private keys, secret-named values") {
  CHECK(RedactSecrets("Authorization: Bearer eyJhbGciOi.J9.abc") ==
        "Authorization: Bearer [redacted]");
  CHECK(RedactSecrets("-----BEGIN RSA PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0\n"
                      "-----END RSA PRIVATE KEY-----\n") ==
        "-----BEGIN RSA PRIVATE KEY-----\n[redacted]\n-----END RSA PRIVATE KEY-----\n");
  CHECK(RedactSecrets("-----BEGIN CERTIFICATE-----\nMIIB\n") ==
        "-----BEGIN CERTIFICATE-----\nMIIB\n");
  CHECK(RedactSecrets("DB_PASSWORD=hunter2 next") == "DB_PASSWORD=[redacted] next");
  CHECK(RedactSecrets(R"({"api_key": "abc123", "user": "me"})") ==
        R"({"api_key": "[redacted]", "user": "me"})");
  CHECK(RedactSecrets(R"("arguments":"{\"token\":\"t0ps3cret\",\"n\":1}")") ==
        R"("arguments":"{\"token\":\"[redacted]\",\"n\":1}")");
  CHECK(RedactSecrets("client_secret: 'x y'") == "client_secret: '[redacted]'");
  // Keys that merely contain a word are left alone.
  CHECK(RedactSecrets("tokens_saved: 12, max_tokens=4") == "tokens_saved: 12, max_tokens=4");
  CHECK(RedactSecrets("no secrets here\n") == "no secrets here\n");
  CHECK(RedactSecrets("") == "");
}

TEST_CASE("redact: the log masks what a plugin printed") {
  plugline::testing::TempDir dir;
  Log log(dir.path());
  log.Write("info", "plugin echo stderr",
            R"(payload {"tool":"http","arguments":"{\"headers\":{\"Authorization\":\"Bearer abcdefgh12345678\"},\"password\":\"pw1\"}"} sk-abcdefgh12345678XYZ)");
  std::string text = plugline::testing::ReadFileOrEmpty(dir.Sub("plugline.log"));
  CHECK(text.find("abcdefgh12345678") == std::string::npos);
  CHECK(text.find("pw1") == std::string::npos);
  CHECK(text.find("Bearer [redacted]") != std::string::npos);
  CHECK(text.find("sk-[redacted]") != std::string::npos);
}

}  // namespace
}  // namespace plugline::core
