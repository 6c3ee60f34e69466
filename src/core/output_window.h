// The part of a command's output that is kept in memory for shaping, whatever its size.
//
// With W = window_bytes and L = W / 32 lines (8 MiB and 262,144 lines by default): an output
// of at most W bytes and L lines is kept whole, and shapers see every byte, exactly as if it
// had been passed in one piece. A larger one is reduced, as it streams in, to a window of
//  - its head: the whole lines within its first W/4 bytes, at most L/4 of them (a first line
//    longer than that is cut);
//  - its tail: the last W/4 bytes, at most L/4 lines, starting at a line — or inside a line
//    longer than 4 KiB, whose end the tail then keeps;
//  - from the middle, up to W/2 bytes and L/2 lines of what tools print around trouble:
//    every line LooksLikeErrorLine finds (errors, failures, panics, exceptions, tracebacks,
//    ...) with the 5 lines before it and the 20 after it, and after those every indented line
//    that continues the block (stack frames, code frames, an assertion's values), up to 200
//    lines past the last such line. These are rules about how tools print trouble, not about
//    any one tool. Once the middle's share is full, later lines are only counted.
// One line marks each gap: "… N lines (X MiB) omitted from the shaping window". A kept middle
// line longer than 4 KiB keeps its first 2 KiB and last 512 bytes around a "… N bytes of this
// line omitted" line, as summaries cut them.
//
// Memory: at most W for the window while it fills, a buffer that then holds the tail (W,
// reused), the head (W/4), the middle (W/2) and a few KiB for context; TakeText() builds the
// window (at most W and the markers). Bytes, lines and tokens are counted over the whole
// output. One thread at a time.
#ifndef PLUGLINE_CORE_OUTPUT_WINDOW_H_
#define PLUGLINE_CORE_OUTPUT_WINDOW_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/tokens.h"

namespace plugline::core {

inline constexpr uint64_t kDefaultWindowBytes = 8ull << 20;

// True for a line the window put where it left lines out ("… N lines (X MiB) omitted from
// the shaping window"), so that a shaper can show it.
bool IsWindowGapLine(std::string_view line);
inline constexpr uint64_t kMinWindowBytes = 64 * 1024;

class OutputWindow {
 public:
  // `counter` (not owned; may be null: no token count) counts tokens_raw over the whole output;
  // it must outlive the window. `window_bytes` below kMinWindowBytes is raised to it.
  OutputWindow(uint64_t window_bytes, const TokenCounter* counter);

  void Append(std::string_view chunk);

  // True while the whole output is kept (at most window_bytes so far).
  bool whole() const { return !windowed_; }
  // The output when whole(); the window with its gap markers otherwise. Call once, at the end:
  // it moves the kept parts into the result.
  std::string TakeText();

  uint64_t bytes() const { return bytes_; }
  // Lines as CountLines counts them.
  uint64_t lines() const { return newlines_ + (bytes_ > 0 && !last_was_newline_ ? 1 : 0); }
  // Tokens of the whole output; computed by TakeText() (the part still held is counted then).
  uint64_t tokens() const { return tokens_; }
  // Bytes of the output that are in the window (all of them when whole()).
  uint64_t kept_bytes() const { return kept_bytes_; }
  // The window's parts, for a summary that says what it was made from.
  uint64_t head_bytes() const { return head_kept_; }
  uint64_t middle_lines() const { return middle_lines_; }
  uint64_t tail_bytes() const { return tail_kept_; }
  uint64_t window_bytes() const { return window_bytes_; }
  uint64_t window_lines() const { return line_cap_; }

 private:
  void StartWindowing();
  void AppendToTail(std::string_view piece);
  void EvictFromTail();
  // One evicted piece of the stream; `line_end` when it ends its line (a '\n' or, for a
  // line longer than the tail, the part the tail could not hold).
  void Evicted(std::string_view piece, bool line_end);
  // Evicts whole lines ('\n'-terminated; `newlines` of them), deciding for each whether the
  // middle keeps it.
  void EvictLines(std::string_view lines, uint64_t newlines);
  void Dropped(std::string_view line);
  void DroppedLines(std::string_view lines, uint64_t newlines);
  // Adds a line to the middle; false (and the middle is full) when it does not fit.
  bool KeepLine(std::string_view piece);
  void CloseGap();
  void CountTokens(std::string_view text);

  const uint64_t window_bytes_;
  const uint64_t head_cap_;
  const uint64_t tail_cap_;
  const uint64_t middle_cap_;
  const uint64_t line_cap_;
  const TokenCounter* counter_;

  uint64_t bytes_ = 0;
  uint64_t newlines_ = 0;
  bool last_was_newline_ = false;
  uint64_t tokens_ = 0;
  uint64_t kept_bytes_ = 0;
  bool windowed_ = false;

  // While whole: the output. Then: the tail buffer, live from buffer_start_; bytes before
  // buffer_start_ are evicted, and kept until compaction only for the context-before lines.
  std::string buffer_;
  size_t buffer_start_ = 0;
  size_t scanned_to_ = 0;  // [buffer_start_, scanned_to_) holds no '\n'

  std::string head_;
  uint64_t head_kept_ = 0;
  std::string middle_;
  uint64_t middle_lines_ = 0;       // lines of the output kept
  uint64_t middle_text_lines_ = 0;  // lines of middle_, markers included
  uint64_t tail_newlines_ = 0;      // '\n's in the tail buffer's live part
  bool middle_full_ = false;
  uint64_t tail_kept_ = 0;

  // The line being evicted in pieces (longer than the tail): its first bytes and length.
  std::string long_line_head_;
  uint64_t long_line_bytes_ = 0;
  std::string long_line_tail_;

  // Context: the last dropped lines (offsets into buffer_, which compaction keeps), how many
  // lines after a notable one are still kept, and the current gap.
  static constexpr size_t kContextBefore = 5;
  std::array<std::pair<size_t, size_t>, kContextBefore> before_{};  // [begin, end) in buffer_
  size_t before_count_ = 0;
  size_t before_next_ = 0;
  uint64_t keep_after_ = 0;  // lines still kept whatever they are
  uint64_t block_left_ = 0;  // indented lines that may still continue the block
  uint64_t gap_lines_ = 0;
  uint64_t gap_bytes_ = 0;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_OUTPUT_WINDOW_H_
