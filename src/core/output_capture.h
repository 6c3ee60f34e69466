// One output captured as it arrives, apart from shaping: its raw file (output_store.h) and its
// shaping window (output_window.h). OutputCapture (plugline/host.h) is this plus the host
// that shapes it; the `plugline` client captures with this alone and has a server shape what
// it kept (src/server), so the two paths store and window an output the same way.
#ifndef PLUGLINE_CORE_OUTPUT_CAPTURE_H_
#define PLUGLINE_CORE_OUTPUT_CAPTURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/output_store.h"
#include "core/output_window.h"
#include "core/shaping_pipeline.h"
#include "core/tokens.h"

namespace plugline::core {

// How a host captures outputs, from its configuration.
struct CaptureSettings {
  bool store_outputs = true;  // raw files under outputs_dir
  std::string outputs_dir;
  OutputRetention retention;
  uint64_t window_bytes = kDefaultWindowBytes;
  std::string tokenizer = std::string(kDefaultEncoding);  // what counts a window's tokens
};

// What a capture kept, ready to be shaped: the whole output (or its window, `windowed` then
// saying what the whole was) and where its raw file went.
struct CapturedOutput {
  std::string text;
  std::optional<WindowedOutput> windowed;
  RawOutputLocation raw;
};

class RawCapture {
 public:
  // `store` null: no raw file. `counter` (not owned) counts the whole output's tokens.
  RawCapture(std::shared_ptr<OutputStore> store, uint64_t window_bytes,
             const TokenCounter* counter);
  // From settings; the store is made here.
  RawCapture(const CaptureSettings& settings, const TokenCounter* counter);

  // Leave the store's pruning to whoever shapes the output (OutputStore::Prune).
  void DeferPruning() {
    if (writer_) writer_->set_prune(false);
  }

  void Append(std::string_view chunk);
  uint64_t bytes() const { return window_.bytes(); }
  uint64_t lines() const { return window_.lines(); }
  uint64_t window_bytes() const { return window_.window_bytes(); }

  // Ends the output: commits the raw file (writing `whole` to it first, when given: the
  // caller holds the entire output, which is then not copied into the result's text) and
  // takes the window. Call once.
  CapturedOutput Take(const std::string_view* whole = nullptr);

 private:
  std::shared_ptr<OutputStore> store_;
  std::unique_ptr<RawOutputWriter> writer_;
  OutputWindow window_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_OUTPUT_CAPTURE_H_
