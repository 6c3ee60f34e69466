# Script mode of plugline_embed_text (PluglineEmbed.cmake): INPUT -> OUTPUT (.cc), SYMBOL.
# The text becomes hexadecimal bytes, so any content (quotes, backslashes, `)"`) is safe.
file(READ "${INPUT}" _hex HEX)
string(LENGTH "${_hex}" _hex_length)
math(EXPR _size "${_hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
string(REGEX REPLACE "(0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f],0x[0-9a-f][0-9a-f])" "\\1\n" _bytes "${_bytes}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/PluglineEmbedScript.cmake. Do not edit.
#include <string_view>
namespace plugline::embedded {
namespace {
const unsigned char kData[] = {
${_bytes}0x00};
}  // namespace
extern const std::string_view ${SYMBOL};
const std::string_view ${SYMBOL}(reinterpret_cast<const char*>(kData), ${_size});
}  // namespace plugline::embedded
")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
