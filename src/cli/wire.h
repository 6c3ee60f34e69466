// The requests and replies `plugline` and its server exchange for commands (docs/server.md,
// "Wire format"): JSON objects, bytes that need not be UTF-8 (outputs, payloads) in base64.
#ifndef PLUGLINE_CLI_WIRE_H_
#define PLUGLINE_CLI_WIRE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/json.h"
#include "core/output_capture.h"

namespace plugline::cli::wire {

// A field's value, or a Status naming the field ("the server's reply: exit: ...").
absl::StatusOr<std::string> Bytes(const core::Value& object, std::string_view key);  // base64
absl::StatusOr<std::string> Text(const core::Value& object, std::string_view key);
absl::StatusOr<int64_t> Integer(const core::Value& object, std::string_view key);
bool Flag(const core::Value& object, std::string_view key);  // false when absent

void WriteSettings(const core::CaptureSettings& settings, core::JsonWriter& w);
absl::StatusOr<core::CaptureSettings> ReadSettings(const core::Value& object);

void WriteCaptured(const core::CapturedOutput& captured, core::JsonWriter& w);
absl::StatusOr<core::CapturedOutput> ReadCaptured(const core::Value& object);

// A command's printed output, in order: [[fd, "base64"], ...] (fd 1 or 2).
using Chunks = std::vector<std::pair<int, std::string>>;
void WriteChunks(const Chunks& chunks, core::JsonWriter& w);
absl::StatusOr<Chunks> ReadChunks(const core::Value& array);

}  // namespace plugline::cli::wire

#endif  // PLUGLINE_CLI_WIRE_H_
