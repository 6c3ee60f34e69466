// Masking secrets in text plugline writes or hands on. Two scopes:
//
// - Messages (RedactSecrets): what plugline writes to its log (what a plugin printed on
//   stderr, why it failed). A plugin that echoes its payload must not copy an API key into a
//   file that outlives the session. The same text reaches the agent and the terminal through
//   results — a skipped plugin's detail, a shaper's fallback, a broken plugin's reason, a
//   hook's thrown error — so each is masked where it enters its result (dispatcher.cc,
//   host.cc), and the CLI prints results only.
// - Command output (MaskSecrets, SecretMasker): what a command printed, before any shaper sees
//   it and as its raw file is written (shaping_pipeline.cc, output_store.cc): `env`, `cat
//   .env`, `curl -v`, `docker inspect` print keys that must reach neither the model nor a file
//   under the home. Output is often source code the agent goes on to edit, so this scope
//   masks only shapes that are secrets wherever they appear, never a name that merely looks
//   like one (`password: str`, `const token = getToken();` stay as they are).
//
// Best effort by shape, not by knowledge of the secret. A masked value reads "[redacted]".
#ifndef PLUGLINE_CORE_REDACT_H_
#define PLUGLINE_CORE_REDACT_H_

#include <string>
#include <string_view>

namespace plugline::core {

// Masked in both scopes (the rest of the text is unchanged):
// - tokens with a well-known prefix followed by 16 or more token characters ([A-Za-z0-9_-]),
//   among them at least one letter and one digit (`npm_config_user_agent` is a name, not a
//   token): sk- (OpenAI, Anthropic), sk_live_ (Stripe), ghp_ gho_ ghu_ ghs_ ghr_ github_pat_
//   (GitHub), glpat- (GitLab), xoxa- xoxb- xoxp- xoxr- xoxs- (Slack), AIza (Google), npm_
//   (npm), rk_live_ whsec_ (Stripe), hf_ (Hugging Face), pypi- (PyPI); AKIA/ASIA + exactly 16
//   upper-case letters or digits (AWS key ids). The prefix stays: "sk-[redacted]".
// - JSON web tokens: "eyJ" then two dot-separated parts of 10 or more characters: "eyJ[redacted]".
// - "Bearer <8+ characters>" (any case): "Bearer [redacted]".
// - PEM private key blocks ("-----BEGIN ... PRIVATE KEY-----" to its END line): the body; a
//   key on one line with its breaks escaped (a string in JSON or source code) to its END, or
//   the quote or line end that ends it.
// - the password of a URL's user part: "https://user:[redacted]@host", "redis://:[redacted]@h";
//   a user part without a password that is a key (20+ token characters, letters and digits: a
//   Sentry DSN's): "https://[redacted]@o1.ingest.sentry.io/2"; a webhook's secret, the last
//   part of hooks.slack.com/services/T…/B…/<secret> and of /api/webhooks/<id>/<secret>.
// - values of keys whose name ends in password, passwd, passphrase, secret, token, api_key,
//   apikey, access_key, private_key, secret_key, key-data or credentials (any case, `_` or `-`),
//   or that is pass, pwd or auth (or ends in one after `_`, `-`, `.`) with a value of 8+
//   characters with letters and a digit or a password's symbols (IsWeakKeySecret) — in
//   messages written `key=value`, `key: value` or JSON `"key":"value"` (also inside
//   JSON-encoded strings, `\"key\":\"v\"`); in command output where both key and value are
//   quoted (`"token": "…"`, `'password': '…'`), in an assignment starting a line
//   (`DB_PASSWORD=…`, `export API_TOKEN="…"`, `- SECRET=…`, `"SECRET=…"`, as env, .env files
//   and `docker inspect` print them; the KEY upper-case unless exported), or a quoted literal
//   assigned to the key anywhere (`SECRET_KEY = '…'`, `password: "…"`, `f(password="…")`)
//   that is a value of its own (nothing but punctuation or a comment after it), an unquoted
//   `key=value` word after a space, `?`, `&` or at a line's start (`--password=…`,
//   `-e DB_PASSWORD=…`, `?access_token=…&`), or YAML's `key: value` / an .ini's
//   `key = value` on a line of its own, unquoted, one word with no brackets, commas,
//   semicolons or references (`password: str` is code) — when the value has no space
//   and reads as a secret (letters and a digit, or 8+ characters all lower-case or with a
//   password's symbols; not a capitalized key, a type name, a header or a path):
//   "token=[redacted]". A value that is a reference or a placeholder (`$VAR`, `<token>`,
//   `***`) is left alone, and so is a quoted one that is a package's version
//   (`"jsonwebtoken": "^9.0.2"`). In command output, a diff's changed line (`+`, `-`, `<`, `>`
//   first) is read as the line it changes.
// - In command output only: a .netrc line's `password <value>`; an HTTP header's credentials
//   (`Cookie:` values of 8+ characters, `Set-Cookie:`'s value, `Authorization:` after its
//   scheme), after curl's `> `/`< ` too.
std::string RedactSecrets(std::string_view text);

// The command-output scope over a whole text: true, with the masked text in `*out`, when
// masking changed it; false (and `*out` untouched) when it did not.
bool MaskSecrets(std::string_view text, std::string* out);

// The command-output scope over an output that arrives in chunks: the same result as
// MaskSecrets over the whole output, whatever the chunks, as long as no line is longer than
// kMaxHeldBytes. Text is masked a line at a time, so at most one line is held back; a longer
// line is masked in pieces, cut at a space, quote or comma where there is one.
class SecretMasker {
 public:
  static constexpr size_t kMaxHeldBytes = 64 << 10;

  // Appends the masked text of every line `chunk` completes to `*out`.
  void Feed(std::string_view chunk, std::string* out);
  // Appends the masked rest (a last line without a newline). The masker is then empty.
  void Finish(std::string* out);

 private:
  std::string held_;
  bool in_private_key_ = false;  // between a private key's BEGIN and END lines
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_REDACT_H_
