#include "cli/wire.h"

#include "absl/strings/escaping.h"
#include "core/strings.h"

namespace plugline::cli::wire {
namespace {

absl::Status Bad(std::string_view key, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(key, ": ", what));
}

}  // namespace

absl::StatusOr<std::string> Text(const core::Value& object, std::string_view key) {
  const core::Value* v = object.is_object() ? object.Find(key) : nullptr;
  if (v == nullptr || !v->is_string()) return Bad(key, "expected a string");
  return v->as_string();
}

absl::StatusOr<std::string> Bytes(const core::Value& object, std::string_view key) {
  absl::StatusOr<std::string> text = Text(object, key);
  if (!text.ok()) return text.status();
  std::string bytes;
  if (!absl::Base64Unescape(*text, &bytes)) return Bad(key, "not base64");
  return bytes;
}

absl::StatusOr<int64_t> Integer(const core::Value& object, std::string_view key) {
  const core::Value* v = object.is_object() ? object.Find(key) : nullptr;
  std::optional<int64_t> i = v != nullptr ? v->as_integer() : std::nullopt;
  if (!i) return Bad(key, "expected an integer");
  return *i;
}

bool Flag(const core::Value& object, std::string_view key) {
  const core::Value* v = object.is_object() ? object.Find(key) : nullptr;
  return v != nullptr && v->is_bool() && v->as_bool();
}

void WriteSettings(const core::CaptureSettings& settings, core::JsonWriter& w) {
  w.Key("store_outputs").Bool(settings.store_outputs);
  w.Key("outputs_dir").String(settings.outputs_dir);
  w.Key("keep_files").Int(static_cast<int64_t>(settings.retention.keep_files));
  w.Key("max_total_bytes").Int(static_cast<int64_t>(settings.retention.max_total_bytes));
  w.Key("max_file_bytes").Int(static_cast<int64_t>(settings.retention.max_file_bytes));
  w.Key("window_bytes").Int(static_cast<int64_t>(settings.window_bytes));
  w.Key("tokenizer").String(settings.tokenizer);
}

absl::StatusOr<core::CaptureSettings> ReadSettings(const core::Value& object) {
  core::CaptureSettings settings;
  settings.store_outputs = Flag(object, "store_outputs");
  absl::StatusOr<std::string> dir = Text(object, "outputs_dir");
  absl::StatusOr<int64_t> keep = Integer(object, "keep_files");
  absl::StatusOr<int64_t> total = Integer(object, "max_total_bytes");
  absl::StatusOr<int64_t> file = Integer(object, "max_file_bytes");
  absl::StatusOr<int64_t> window = Integer(object, "window_bytes");
  absl::StatusOr<std::string> tokenizer = Text(object, "tokenizer");
  for (const absl::Status& s : {dir.status(), keep.status(), total.status(), file.status(),
                                window.status(), tokenizer.status()}) {
    if (!s.ok()) return s;
  }
  if (*keep < 0 || *total < 0 || *file < 0 || *window <= 0) {
    return Bad("capture settings", "negative sizes");
  }
  settings.outputs_dir = *dir;
  if (settings.store_outputs && !settings.outputs_dir.starts_with("/")) {
    return Bad("outputs_dir", "not an absolute path");
  }
  settings.retention.keep_files = static_cast<uint64_t>(*keep);
  settings.retention.max_total_bytes = static_cast<uint64_t>(*total);
  settings.retention.max_file_bytes = static_cast<uint64_t>(*file);
  settings.window_bytes = static_cast<uint64_t>(*window);
  if (!core::IsKnownTokenizer(*tokenizer)) return Bad("tokenizer", "not a known tokenizer");
  settings.tokenizer = *tokenizer;
  return settings;
}

void WriteCaptured(const core::CapturedOutput& captured, core::JsonWriter& w) {
  w.Key("text").String(absl::Base64Escape(captured.text));
  w.Key("windowed");
  if (captured.windowed) {
    const core::WindowedOutput& o = *captured.windowed;
    w.BeginObject();
    w.Key("bytes").Int(static_cast<int64_t>(o.bytes));
    w.Key("lines").Int(static_cast<int64_t>(o.lines));
    w.Key("tokens").Int(static_cast<int64_t>(o.tokens));
    w.Key("window_bytes").Int(static_cast<int64_t>(o.window_bytes));
    w.Key("kept_bytes").Int(static_cast<int64_t>(o.kept_bytes));
    w.Key("head_bytes").Int(static_cast<int64_t>(o.head_bytes));
    w.Key("tail_bytes").Int(static_cast<int64_t>(o.tail_bytes));
    w.Key("middle_lines").Int(static_cast<int64_t>(o.middle_lines));
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("raw").BeginObject();
  w.Key("path").String(captured.raw.path);
  w.Key("store_error").String(captured.raw.store_error);
  w.Key("truncated").Bool(captured.raw.truncated);
  w.Key("stored_bytes").Int(static_cast<int64_t>(captured.raw.stored_bytes));
  w.Key("max_file_bytes").Int(static_cast<int64_t>(captured.raw.max_file_bytes));
  w.EndObject();
}

absl::StatusOr<core::CapturedOutput> ReadCaptured(const core::Value& object) {
  core::CapturedOutput captured;
  absl::StatusOr<std::string> text = Bytes(object, "text");
  if (!text.ok()) return text.status();
  captured.text = *std::move(text);
  const core::Value* windowed = object.Find("windowed");
  if (windowed != nullptr && windowed->is_object()) {
    core::WindowedOutput o;
    std::pair<std::string_view, uint64_t*> fields[] = {
        {"bytes", &o.bytes},           {"lines", &o.lines},           {"tokens", &o.tokens},
        {"window_bytes", &o.window_bytes}, {"kept_bytes", &o.kept_bytes},
        {"head_bytes", &o.head_bytes}, {"tail_bytes", &o.tail_bytes},
        {"middle_lines", &o.middle_lines}};
    for (auto& [key, out] : fields) {
      absl::StatusOr<int64_t> n = Integer(*windowed, key);
      if (!n.ok() || *n < 0) return Bad(StrCat("windowed.", key), "expected a count");
      *out = static_cast<uint64_t>(*n);
    }
    captured.windowed = o;
  }
  const core::Value* raw = object.Find("raw");
  if (raw == nullptr || !raw->is_object()) return Bad("raw", "expected an object");
  absl::StatusOr<std::string> path = Text(*raw, "path");
  absl::StatusOr<std::string> error = Text(*raw, "store_error");
  absl::StatusOr<int64_t> stored = Integer(*raw, "stored_bytes");
  absl::StatusOr<int64_t> max_file = Integer(*raw, "max_file_bytes");
  for (const absl::Status& s : {path.status(), error.status(), stored.status(), max_file.status()}) {
    if (!s.ok()) return s;
  }
  captured.raw.path = *path;
  captured.raw.store_error = *error;
  captured.raw.truncated = Flag(*raw, "truncated");
  captured.raw.stored_bytes = static_cast<uint64_t>(std::max<int64_t>(0, *stored));
  captured.raw.max_file_bytes = static_cast<uint64_t>(std::max<int64_t>(0, *max_file));
  return captured;
}

void WriteChunks(const Chunks& chunks, core::JsonWriter& w) {
  w.BeginArray();
  for (const auto& [fd, text] : chunks) {
    w.BeginArray().Int(fd).String(absl::Base64Escape(text)).EndArray();
  }
  w.EndArray();
}

absl::StatusOr<Chunks> ReadChunks(const core::Value& array) {
  if (!array.is_array()) return Bad("output", "expected an array");
  Chunks chunks;
  for (const core::Value& chunk : array.as_array()) {
    if (!chunk.is_array() || chunk.as_array().size() != 2 || !chunk.as_array()[1].is_string()) {
      return Bad("output", "expected [fd, base64] pairs");
    }
    std::optional<int64_t> fd = chunk.as_array()[0].as_integer();
    if (!fd || (*fd != 1 && *fd != 2)) return Bad("output", "a chunk's fd is not 1 or 2");
    std::string text;
    if (!absl::Base64Unescape(chunk.as_array()[1].as_string(), &text)) {
      return Bad("output", "not base64");
    }
    chunks.emplace_back(static_cast<int>(*fd), std::move(text));
  }
  return chunks;
}

}  // namespace plugline::cli::wire
