#include "core/plugin_id.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace plugline::core {
namespace {

TEST_CASE("IsValidPluginId: 1-64 letters, digits, '.', '_' or '-', not starting with '.' or '-'") {
  for (const std::string& id : std::vector<std::string>{"a", "audit-log", "my_shaper.v2", "A9", std::string(64, 'x')}) {
    CAPTURE(id);
    CHECK(IsValidPluginId(id));
  }
  for (const std::string& id : std::vector<std::string>{"", ".hidden", "-flag", std::string(65, 'x'), "a b", "a/b", "a\nb",
                         "a\x1b[31m", "caf\xc3\xa9", "a\tb", "a@1"}) {
    CAPTURE(id);
    CHECK_FALSE(IsValidPluginId(id));
  }
}

TEST_CASE("EscapeControl: no control character survives, other text is unchanged") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plain text, with \\ and \"quotes\"", "plain text, with \\ and \"quotes\""},
      {"two\nlines\r\n", "two\\nlines\\r\\n"},
      {"tab\there", "tab\\there"},
      {"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"},
      {"\x1b]52;c;ZWNobyBoaQ==\x07", "\\x1b]52;c;ZWNobyBoaQ==\\x07"},  // OSC 52: clipboard write
      {std::string("nul\0byte", 8), "nul\\x00byte"},
      {"del\x7f", "del\\x7f"},
      {"c1 csi \xc2\x9b" "31m", "c1 csi \\u009b31m"},
      {"raw \x9b byte", "raw \\x9b byte"},
      {"caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x99\x82", "caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x99\x82"},
      {"truncated \xe2\x80", "truncated \\xe2\\x80"},
      {"overlong \xc0\xaf", "overlong \\xc0\\xaf"},
  };
  for (const auto& [text, escaped] : cases) {
    CAPTURE(text);
    CHECK(EscapeControl(text) == escaped);
  }
}

TEST_CASE("InvalidPluginIdMessage escapes the id it quotes") {
  CHECK(InvalidPluginIdMessage("`name`", "evil\n2026-01-01T00:00:00Z info forged: x\x1b[2J") ==
        "`name` \"evil\\n2026-01-01T00:00:00Z info forged: x\\x1b[2J\" is not a valid id (1-64 "
        "letters, digits, '.', '_' or '-', not starting with '.' or '-')");
}

}  // namespace
}  // namespace plugline::core
