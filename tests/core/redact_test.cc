#include "core/redact.h"

#include <doctest/doctest.h>

#include "core/log.h"
#include "core/strings.h"
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
  // Stripe's test-mode secret keys are credentials too.
  CHECK(RedactSecrets("STRIPE_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc") ==
        "STRIPE_KEY=sk_test_[redacted]");
  CHECK(RedactSecrets("rk_test_51Hq8ZyKx3mP9wQvT2rN7bLcQ") == "rk_test_[redacted]");
  // A password glued to -p on a line that runs MySQL's or MariaDB's client.
  CHECK(RedactSecrets("mysql -u root -pS3cretPass123 app") == "mysql -u root -p[redacted] app");
  CHECK(RedactSecrets("$ /usr/bin/mysqldump -pS3cret shop > a.sql") ==
        "$ /usr/bin/mysqldump -p[redacted] shop > a.sql");
  CHECK(RedactSecrets("mariadb -phunter2") == "mariadb -p[redacted]");
  CHECK(RedactSecrets("rsync -pavz src/ dst/") == "rsync -pavz src/ dst/");
  CHECK(RedactSecrets("mysql -p app") == "mysql -p app");  // it asks for the password
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

TEST_CASE(
    "redact: what is around a masked value is read as it is once masked, so a second pass masks "
    "nothing") {
  // A key that starts right after a masked token: its value is masked in the same pass, as a
  // second pass (which sees "[redacted]" there) would mask it.
  CHECK(RedactSecrets("sk-abcdefghij0123456789.password=hunter22") ==
        "sk-[redacted].password=[redacted]");
  CHECK(RedactSecrets("eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJl.token=abc123") ==
        "eyJ[redacted].token=[redacted]");
  // A token in a URL's user name is masked with its password ("https://user:pass@host" skips
  // to the '@' once the password is masked).
  CHECK(RedactSecrets("https://ghp_abcdefghij0123456789AB:hunter22@github.com/x.git") ==
        "https://ghp_[redacted]:[redacted]@github.com/x.git");
  std::string out;
  REQUIRE(
      MaskSecrets("remote: https://ghp_abcdefghij0123456789AB:x-oauth-basic2@github.com\n", &out));
  CHECK(out == "remote: https://ghp_[redacted]:[redacted]@github.com\n");
  // A token inside a secret's key, before its value (found by the fuzzer in a unittest line).
  CHECK(RedactSecrets("(tests.eyJhbGciOiJIUzI1NiJ9.test_stock.TestReorder.testSECRET_KEY = "
                      "'abc123'") == "(tests.eyJ[redacted].testSECRET_KEY = '[redacted]'");
  // A private key as a key's value is masked as a private key; a BEGIN line's label is upper-
  // case words, not whatever comes before the next dashes.
  CHECK(RedactSecrets("SECRET_KEY =-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n"
                      "-----END RSA PRIVATE KEY-----\n") ==
        "SECRET_KEY =-----BEGIN RSA PRIVATE KEY-----\n[redacted]\n-----END RSA PRIVATE KEY-----\n");
  CHECK(RedactSecrets("-----BEGIN x: token =[redacted] RSA PRIVATE KEY-----\nbody\n") ==
        "-----BEGIN x: token =[redacted] RSA PRIVATE KEY-----\nbody\n");
  // Masking what is masked changes nothing.
  for (const char* text :
       {"sk-abcdefghij0123456789.password=hunter22", "ghp_abcdefghij0123456789AB.api_key: x1",
        "https://ghp_abcdefghij0123456789AB:hunter22@github.com",
        "Bearer abcdefgh12345678.token=zz9",
        "x.eyJhbGciOiJIUzI1NiJ9.test_stock.Test.password: 'hunter22'",
        "[-----BEGIN x SECRET_KEY =-----BEGIN RSA PRIVATE KEY-----\n 'e]\n"}) {
    const std::string once = RedactSecrets(text);
    CHECK_MESSAGE(RedactSecrets(once) == once, text);
  }
}

TEST_CASE("redact: names that only look like tokens are left alone") {
  // npm's own environment: npm_ and a name, no digit.
  CHECK(RedactSecrets("npm_config_user_agent=npm/10.2.4") == "npm_config_user_agent=npm/10.2.4");
  CHECK(RedactSecrets("sk-abcdefghijklmnopqrstuv") == "sk-abcdefghijklmnopqrstuv");
  CHECK(RedactSecrets("the Bearer authentication scheme") == "the Bearer authentication scheme");
  CHECK(RedactSecrets(R"({"jsonwebtoken": "^9.0.2"})") == R"({"jsonwebtoken": "^9.0.2"})");
  CHECK(RedactSecrets("token=$GITHUB_TOKEN password=<yours>") ==
        "token=$GITHUB_TOKEN password=<yours>");
  // An API key or a token of a few letters is a documentation's example, not a credential.
  CHECK(RedactSecrets(" *    res.set({ Accept: 'text/plain', 'X-API-Key': 'tobi' });") ==
        " *    res.set({ Accept: 'text/plain', 'X-API-Key': 'tobi' });");
  CHECK(RedactSecrets("api_key = \"abcdefgh\"") == "api_key = \"[redacted]\"");
  CHECK(RedactSecrets("API_TOKEN=abc123") == "API_TOKEN=[redacted]");
}

// Every kind of secret command output shows, each with what it must become.
constexpr std::pair<const char*, const char*> kOutputSecrets[] = {
    {"DB_PASSWORD=hunter2\n", "DB_PASSWORD=[redacted]\n"},
    {"export API_TOKEN=\"abc def 123\"\n", "export API_TOKEN=\"[redacted]\"\n"},
    {"declare -x CLIENT_SECRET='s3cr3t'\n", "declare -x CLIENT_SECRET='[redacted]'\n"},
    {"  - POSTGRES_PASSWORD=example\n", "  - POSTGRES_PASSWORD=[redacted]\n"},
    {"      \"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\",\n",
     "      \"AWS_SECRET_ACCESS_KEY=[redacted]\",\n"},
    {"{\"access_token\": \"abc.def-123\", \"expires_in\": 3600}\n",
     "{\"access_token\": \"[redacted]\", \"expires_in\": 3600}\n"},
    {"login {'user': 'bob', 'password': 'hunter2'}\n",
     "login {'user': 'bob', 'password': '[redacted]'}\n"},
    {"remote: https://bob:s3cr3t@git.example.com/x.git\n",
     "remote: https://bob:[redacted]@git.example.com/x.git\n"},
    {"< authorization: Bearer 0a1b2c3d4e5f\n", "< authorization: Bearer [redacted]\n"},
    {"id_token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N\n",
     "id_token eyJ[redacted]\n"},
    {"//registry.npmjs.org/:_authToken=npm_a1B2c3D4e5F6g7H8i9J0k1L2\n",
     "//registry.npmjs.org/:_authToken=npm_[redacted]\n"},
    // A literal assigned to a secret's name in source or configuration.
    {"SECRET_KEY = 'django-insecure-k2$x9q'\n", "SECRET_KEY = '[redacted]'\n"},
    {"password = \"correcthorse\"  # local only\n", "password = \"[redacted]\"  # local only\n"},
    {"    api_key: 'deadbeef',\n", "    api_key: '[redacted]',\n"},
    {"db = connect(user=\"app\", password=\"s3cr3t99\")\n",
     "db = connect(user=\"app\", password=\"[redacted]\")\n"},
    // An unquoted one in a configuration file: YAML, an .ini, a shell's assignment.
    {"db:\n  user: app\n  password: hunter2  # dev only\n",
     "db:\n  user: app\n  password: [redacted]  # dev only\n"},
    {"data:\n  password: aHVudGVyMg==\n", "data:\n  password: [redacted]\n"},
    {"[db]\npassword = correcthorse\n", "[db]\npassword = [redacted]\n"},
    {"set -x\ntoken=ab12cd34ef\n", "set -x\ntoken=[redacted]\n"},
    // An unquoted one on a command line or in a URL's query.
    {"root  812  mysqld --user=app --password=Tr0ub4dor --port=3306\n",
     "root  812  mysqld --user=app --password=[redacted] --port=3306\n"},
    {"+ docker run -e DB_PASSWORD=s3cr3t99 -p 5432:5432 postgres\n",
     "+ docker run -e DB_PASSWORD=[redacted] -p 5432:5432 postgres\n"},
    {"GET /api/items?access_token=h480djs93hd8&page=2 HTTP/1.1\n",
     "GET /api/items?access_token=[redacted]&page=2 HTTP/1.1\n"},
    // A diff's changed lines are read as the lines they change.
    {"-DB_PASSWORD=old-Pa55word\n+DB_PASSWORD=new-Pa55word\n",
     "-DB_PASSWORD=[redacted]\n+DB_PASSWORD=[redacted]\n"},
    {"@@ -1,3 +1,3 @@\n db:\n-  password: Pr0beDbPassw0rd\n+  secret: Rotated9876zyx\n",
     "@@ -1,3 +1,3 @@\n db:\n-  password: [redacted]\n+  secret: [redacted]\n"},
    {"< API_SECRET=abcDEF123secret\n> API_SECRET=xyzDEF999secret\n",
     "< API_SECRET=[redacted]\n> API_SECRET=[redacted]\n"},
    // Credential files: .netrc, a kubeconfig's client key, docker's auths, other tokens.
    {"machine api.example.com\n  login bob\n  password NetrcPr0be-s3cr3t\n",
     "machine api.example.com\n  login bob\n  password [redacted]\n"},
    {"machine ftp.example.org login alice password An0therPass\n",
     "machine ftp.example.org login alice password [redacted]\n"},
    {"    client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t\n",
     "    client-key-data: [redacted]\n"},
    {"{\"auths\":{\"r.example.com\":{\"auth\":\"cm9ib3Q6RG9ja2VyUHIwYmVGUGFzcw==\"}}}\n",
     "{\"auths\":{\"r.example.com\":{\"auth\":\"[redacted]\"}}}\n"},
    {"  pass: SmtpPr0bePass77\n", "  pass: [redacted]\n"},
    {"{\"hf\":\"hf_AbCdEfGhIjKlMnOpQr12345\"}\n", "{\"hf\":\"hf_[redacted]\"}\n"},
    {"password = pypi-AgEIcHlwaS5vcmcAbCdEfGh0123\n", "password = [redacted]\n"},
    // URLs: Redis' password without a user, a DSN's key, a webhook's secret.
    {"  url: redis://:RedisPr0beSecret@cache:6379/0\n",
     "  url: redis://:[redacted]@cache:6379/0\n"},
    {"dsn: https://0123456789abcdef0123456789abcdef@o12345.ingest.sentry.io/67890\n",
     "dsn: https://[redacted]@o12345.ingest.sentry.io/67890\n"},
    {"SLACK_HOOK_URL=https://hooks.slack.com/services/T0PROBE01/B0PROBE02/"
     "Xq7Zr9Lm2Np4Kt6Vw8Yb0Cd1\n",
     "SLACK_HOOK_URL=https://hooks.slack.com/services/T0PROBE01/B0PROBE02/[redacted]\n"},
    {"https://discord.com/api/webhooks/123456789012/AbCdEfGhIjKlMnOpQrStUv-0123\n",
     "https://discord.com/api/webhooks/123456789012/[redacted]\n"},
    // HTTP headers that carry credentials, as curl -v and -i print them.
    {"> Cookie: sid=CookiePr0beValue987; lang=en\r\n", "> Cookie: sid=[redacted]; lang=en\r\n"},
    {"Set-Cookie: session=s%3AProbeSession123.abc; Path=/; HttpOnly\n",
     "Set-Cookie: session=[redacted]; Path=/; HttpOnly\n"},
    {"> Authorization: Basic cm9ib3Q6cGFzc3dvcmQ=\n", "> Authorization: Basic [redacted]\n"},
    {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nAAAABG5vbmU=\n"
     "-----END OPENSSH PRIVATE KEY-----\n",
     "-----BEGIN OPENSSH PRIVATE KEY-----\n[redacted]\n-----END OPENSSH PRIVATE KEY-----\n"},
    // A `key=value` word: a passphrase of letters alone, and such a word quoted (what a test
    // printed, and the code pytest quotes above it).
    {"password=CorrectHorseBatteryStaple\n", "password=[redacted]\n"},
    {"db connect --secret=CorrectHorseBatteryStaple -v\n", "db connect --secret=[redacted] -v\n"},
    {"        print(\"password=CorrectHorseBatteryStaple\")\n",
     "        print(\"password=[redacted]\")\n"},
    {"echo \"db_password=hunter2hunter2 ok\"\n", "echo \"db_password=[redacted] ok\"\n"},
    // A weak key in camel case, its value reading as a secret.
    {"    let dbPass = \"Sup3rS3cretDbPass\"\n", "    let dbPass = \"[redacted]\"\n"},
    {"smtpPwd: Hx82kdPq!\n", "smtpPwd: [redacted]\n"},
};

// What an agent reads in source code and must be able to edit: never changed.
constexpr const char* kOutputCode[] = {
    "    def login(self, password: str, token=None):\n",
    "                 credentials=None, secure=None, timeout=5.0):\n",
    "  const token = getToken();\n",
    "    password = request.form[\"password\"]\n",
    "    password: str\n",  // a type, not a value
    "  token: string;\n",
    "    api_key: SecretStr\n",
    "    password: Optional[str] = None\n",
    "password = get_password()\n",
    "    token = token.strip()\n",
    "  password: *db_password1\n",  // a YAML alias: the value is elsewhere
    "export GH_TOKEN=$(gh auth token)\n",
    "    \"pbkdf2-password\": \"~1.2.1\",\n",
    "headers: { Authorization: `Bearer ${token}` }\n",
    "npm_config_user_agent=npm/10.2.4 node/v20.20.2 linux x64\n",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    "see https://docs.example.com:8443/auth/token\n",
    // Literals that name something rather than hold a secret, or go on into an expression.
    "    backend: \"Backend\", private_key: \"_RSAPrivateKey\", data: bytes\n",
    "        Token:              '#d0d0d0',\n",
    "const fakeConnectionToken = \"X-Fake-Connection-Token\"\n",
    "USE_CREDENTIALS = 'use-credentials'\n",
    "  password: \"admin1\" | \"user\";\n",
    "password = \"Enter your password\"\n",
    "token: \"Token\" = None\n",
    "    return connect(host, password=pw2, token=self.token)\n",
    "    parser.add_argument(\"--token\", default=None)  # --token=TOKEN\n",
    "  run: deploy --api-key=${{ secrets.API_KEY }} --token=$TOKEN\n",
    // Keys that are flags as often: their value must read as a secret.
    "  bypass: true\n",
    "const compass = \"north-by-northwest1\"\n",  // no capital: a word that ends so
    "{\"auth\": \"required\", \"pass\": \"always\"}\n",
    "+  password: str\n",
    "Set-Cookie: theme=dark; Path=/\n",
    "ssh://git@github.com/org/repo.git\n",
    // A usage's placeholder; a quoted word that goes on into code.
    "usage: db connect --password=PASSWORD [--verbose]\n",
    "    msg = \"password=\" + password\n",
    "    log(\"token=%s\", token)\n",
};

TEST_CASE("redact: command output loses its secrets, and source code keeps its names") {
  for (const auto& [text, masked] : kOutputSecrets) {
    std::string out = "untouched";
    CHECK_MESSAGE(MaskSecrets(text, &out), text);
    CHECK(out == masked);
  }
  for (const char* text : kOutputCode) {
    std::string out = "untouched";
    CHECK_MESSAGE(!MaskSecrets(text, &out), text);
    CHECK(out == "untouched");
  }
  // A private key whose END line never came: the rest is its body, and masking that again
  // changes nothing (found by the terminal fuzzer: it said it had).
  std::string key;
  REQUIRE(MaskSecrets("x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAB", &key));
  CHECK(key == "x\n-----BEGIN RSA PRIVATE KEY-----\n[redacted]\n");
  std::string again = "untouched";
  CHECK_FALSE(MaskSecrets(key, &again));
  CHECK(again == "untouched");
  // A key on one line, its breaks escaped (a string in source code): masked to its END, or
  // to the quote that ends the string; the lines after it are not its body.
  std::string inline_key;
  REQUIRE(MaskSecrets(
      R"(pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n")"
      "\nnext()\n",
      &inline_key));
  CHECK(inline_key ==
        R"(pem = "-----BEGIN EC PRIVATE KEY-----[redacted]-----END EC PRIVATE KEY-----\n")"
        "\nnext()\n");
  REQUIRE(
      MaskSecrets("k = \"-----BEGIN RSA PRIVATE KEY-----\\nMIIEow\", &key);\nrest\n", &inline_key));
  CHECK(inline_key == "k = \"-----BEGIN RSA PRIVATE KEY-----[redacted]\", &key);\nrest\n");
  // An unclosed quote masks to the end of its line, not of the output.
  std::string out;
  REQUIRE(MaskSecrets("{\"password\": \"hunter2\nnext line\n", &out));
  CHECK(out == "{\"password\": \"[redacted]\nnext line\n");
}

TEST_CASE("redact: a streamed output is masked as the whole of it is, however it arrives") {
  std::string whole;
  for (const auto& [text, masked] : kOutputSecrets) StrAppend(&whole, "some output\n", text);
  for (const char* text : kOutputCode) whole += text;
  whole += "GITHUB_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 (no newline at the end)";
  std::string expected;
  REQUIRE(MaskSecrets(whole, &expected));
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    SecretMasker masker;
    std::string out;
    masker.Feed(std::string_view(whole).substr(0, cut), &out);
    masker.Feed(std::string_view(whole).substr(cut), &out);
    masker.Finish(&out);
    REQUIRE_MESSAGE(out == expected, "cut at ", cut);
  }
  SecretMasker bytewise;
  std::string out;
  for (char c : whole) bytewise.Feed(std::string_view(&c, 1), &out);
  bytewise.Finish(&out);
  CHECK(out == expected);
}

TEST_CASE("redact: a line longer than the masker holds is masked in pieces, as it arrives") {
  // A minified JSON document of 200 KiB on one line, a token near its end.
  std::string line = "[";
  while (line.size() < (200 << 10)) line += R"({"name":"item","value":12345},)";
  line += R"({"api_token":"tok-0123456789abcdef"}])";
  SecretMasker masker;
  std::string out;
  masker.Feed(line, &out);
  CHECK(out.size() >= line.size() - SecretMasker::kMaxHeldBytes);  // not all held back
  masker.Finish(&out);
  CHECK(out.find("0123456789abcdef") == std::string::npos);
  CHECK(out.find(R"("api_token":"[redacted]")") != std::string::npos);
  CHECK(out.size() == line.size() - std::string("tok-0123456789abcdef").size() + 10);
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
