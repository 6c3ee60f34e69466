#include "core/output_capture.h"

#include <utility>

namespace plugline::core {

RawCapture::RawCapture(std::shared_ptr<OutputStore> store, uint64_t window_bytes,
                       const TokenCounter* counter)
    : store_(std::move(store)), window_(window_bytes, counter) {
  if (store_) writer_ = store_->Begin();
}

RawCapture::RawCapture(const CaptureSettings& settings, const TokenCounter* counter)
    : RawCapture(settings.store_outputs
                     ? std::make_shared<OutputStore>(settings.outputs_dir, settings.retention)
                     : nullptr,
                 settings.window_bytes, counter) {}

void RawCapture::Append(std::string_view chunk) {
  if (writer_) writer_->Write(chunk);
  window_.Append(chunk);
}

CapturedOutput RawCapture::Take(const std::string_view* whole) {
  CapturedOutput captured;
  if (writer_) {
    if (whole != nullptr) writer_->Write(*whole);
    absl::StatusOr<std::string> path = writer_->Commit();
    if (path.ok()) {
      captured.raw.path = *std::move(path);
      captured.raw.truncated = writer_->truncated();
      captured.raw.stored_bytes = writer_->written();
      captured.raw.max_file_bytes = writer_->max_file_bytes();
    } else {
      captured.raw.store_error = std::string(path.status().message());
    }
  }
  if (whole == nullptr) {
    captured.text = window_.TakeText();
    if (!window_.whole()) {
      captured.windowed = WindowedOutput{
          window_.bytes(),      window_.lines(),      window_.tokens(),     window_.window_bytes(),
          window_.kept_bytes(), window_.head_bytes(), window_.tail_bytes(), window_.middle_lines()};
    }
  }
  return captured;
}

}  // namespace plugline::core
