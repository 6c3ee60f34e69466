// Masking secrets in text that plugline writes to its log (what a plugin printed on stderr,
// why it failed): a plugin that echoes its payload must not copy an API key into a file that
// outlives the session. The same text reaches the agent and the terminal through results —
// a skipped plugin's detail, a shaper's fallback, a broken plugin's reason, a hook's thrown
// error — so each is masked where it enters its result (dispatcher.cc, host.cc), and the CLI
// prints results only. Best effort by shape, not by knowledge of the secret.
#ifndef PLUGLINE_CORE_REDACT_H_
#define PLUGLINE_CORE_REDACT_H_

#include <string>
#include <string_view>

namespace plugline::core {

// What is masked (the rest of the text is unchanged):
// - tokens with a well-known prefix followed by 16 or more token characters ([A-Za-z0-9_-]):
//   sk- (OpenAI, Anthropic), ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ (GitHub), glpat- (GitLab),
//   xoxa- xoxb- xoxp- xoxr- xoxs- (Slack), AIza (Google), npm_ (npm); AKIA/ASIA + 16 (AWS key
//   ids). The prefix stays: "sk-[redacted]".
// - "Bearer <8+ characters>" (any case): "Bearer [redacted]".
// - PEM private key blocks ("-----BEGIN ... PRIVATE KEY-----" to its END line): the body.
// - values of keys whose name ends in password, passwd, secret, token, api_key, apikey,
//   access_key, private_key or credentials (any case, `_` or `-`), written `key=value`,
//   `key: value` or JSON `"key":"value"` (also inside JSON-encoded strings, `\"key\":\"v\"`):
//   "token=[redacted]".
std::string RedactSecrets(std::string_view text);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_REDACT_H_
