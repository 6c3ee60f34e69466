#include "core/output_window.h"

#include <string.h>

#include <algorithm>
#include <cstring>

#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {
namespace {

// Lines kept after a notable line whatever they are, and how far an indented block may run on.
constexpr uint64_t kContextAfter = 20;
constexpr uint64_t kMaxBlockLines = 200;
// A kept middle line longer than this keeps its first kLineHeadBytes and last kLineTailBytes
// (the cut summaries make; see builtin/common.h).
constexpr size_t kMaxLineBytes = 4096;
constexpr size_t kLineHeadBytes = 2048;
constexpr size_t kLineTailBytes = 512;
// The window holds at most one line per this many bytes of its size (262,144 lines for 8 MiB):
// shapers spend memory and time per line, so lines are bounded too.
constexpr uint64_t kBytesPerWindowLine = 32;
// Bytes fed to the tail buffer at a time: the buffer holds at most the tail and one piece.
constexpr size_t kPieceBytes = 64 * 1024;
// The lines before a notable one are kept as context only while they are short enough to
// keep around (together at most this much); a longer line starts the context afresh.
constexpr size_t kContextBeforeBytes = 64 * 1024;

size_t Utf8Boundary(std::string_view text, size_t pos) {
  while (pos > 0 && pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {
    --pos;
  }
  return pos;
}

// The offset just after the n-th '\n' of `text` (n >= 1), or npos when it has fewer.
size_t NthLineEnd(std::string_view text, uint64_t n) {
  size_t pos = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    if (nl == nullptr) return std::string_view::npos;
    pos = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
  }
  return pos;
}

bool Indented(std::string_view line) {
  return !line.empty() && (line[0] == ' ' || line[0] == '\t');
}

std::string_view WithoutNewline(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

constexpr std::string_view kGapSuffix = " omitted from the shaping window";

}  // namespace

bool IsWindowGapLine(std::string_view line) {
  return line.starts_with("… ") && line.ends_with(kGapSuffix);
}

OutputWindow::OutputWindow(uint64_t window_bytes, const TokenCounter* counter)
    : window_bytes_(std::max(window_bytes, kMinWindowBytes)),
      head_cap_(window_bytes_ / 4),
      tail_cap_(window_bytes_ / 4),
      middle_cap_(window_bytes_ / 2),
      line_cap_(window_bytes_ / kBytesPerWindowLine),
      counter_(counter) {}

void OutputWindow::CountTokens(std::string_view text) {
  if (counter_ != nullptr && !text.empty()) tokens_ += counter_->Count(text);
}

void OutputWindow::Append(std::string_view chunk) {
  if (chunk.empty()) return;
  bytes_ += chunk.size();
  if (!windowed_) {
    // Grow by doubling, but never past the window: capacity is part of the ceiling.
    auto append = [this](std::string_view bytes) {
      const size_t needed = buffer_.size() + bytes.size();
      if (needed > buffer_.capacity()) {
        buffer_.reserve(std::min<size_t>(window_bytes_, std::max(needed, 2 * buffer_.capacity())));
      }
      buffer_.append(bytes);
    };
    const uint64_t newlines = static_cast<uint64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
    const uint64_t lines = newlines_ + newlines + (chunk.back() != '\n' ? 1 : 0);
    if (bytes_ <= window_bytes_ && lines <= line_cap_) {
      newlines_ += newlines;
      last_was_newline_ = chunk.back() == '\n';
      append(chunk);
      return;
    }
    // The window is full: it takes what still fits of this chunk, so that the head is cut
    // from the same bytes however the output was split into chunks.
    const std::string_view fits = chunk.substr(0, window_bytes_ - buffer_.size());
    newlines_ += static_cast<uint64_t>(std::count(fits.begin(), fits.end(), '\n'));
    if (!fits.empty()) last_was_newline_ = fits.back() == '\n';
    append(fits);
    chunk.remove_prefix(fits.size());
    StartWindowing();
  }
  while (!chunk.empty()) {
    const size_t n = std::min(chunk.size(), kPieceBytes);
    AppendToTail(chunk.substr(0, n));
    chunk.remove_prefix(n);
  }
}

void OutputWindow::StartWindowing() {
  windowed_ = true;
  // The head: whole lines within its share (a first line longer than that is cut).
  std::string_view all(buffer_);
  size_t head_end = std::min<size_t>(head_cap_, all.size());
  const size_t nl = all.substr(0, head_end).rfind('\n');
  head_end = nl != std::string_view::npos ? nl + 1 : Utf8Boundary(all, head_end);
  // ...and at most a quarter of the window's lines.
  const size_t line_end = NthLineEnd(all.substr(0, head_end), line_cap_ / 4);
  if (line_end != std::string_view::npos) head_end = line_end;
  head_.assign(all.substr(0, head_end));
  head_kept_ = head_.size();
  CountTokens(head_);
  kept_bytes_ = head_.size();
  buffer_start_ = head_end;
  scanned_to_ = head_end;
  tail_newlines_ = static_cast<uint64_t>(std::count(all.begin() + head_end, all.end(), '\n'));
  EvictFromTail();
}

void OutputWindow::AppendToTail(std::string_view piece) {
  if (buffer_.size() + piece.size() > buffer_.capacity()) {
    // Compact: drop what was evicted, except the lines kept as context before.
    size_t keep_from = buffer_start_;
    for (size_t k = 0; k < before_count_; ++k) {
      keep_from = std::min(
          keep_from,
          before_[(before_next_ + kContextBefore - before_count_ + k) % kContextBefore].first);
    }
    if (keep_from > 0) {
      buffer_.erase(0, keep_from);
      buffer_start_ -= keep_from;
      scanned_to_ -= keep_from;
      for (auto& [begin, end] : before_) {
        begin = begin >= keep_from ? begin - keep_from : 0;
        end = end >= keep_from ? end - keep_from : 0;
      }
    }
  }
  buffer_.append(piece);
  const uint64_t newlines = static_cast<uint64_t>(std::count(piece.begin(), piece.end(), '\n'));
  newlines_ += newlines;
  tail_newlines_ += newlines;
  last_was_newline_ = piece.back() == '\n';
  EvictFromTail();
}

void OutputWindow::EvictFromTail() {
  const size_t evict_from = buffer_start_;
  const uint64_t tail_line_cap = line_cap_ / 4;
  for (;;) {
    const char* base = buffer_.data();
    const size_t live = buffer_.size() - buffer_start_;
    if (live <= tail_cap_ && tail_newlines_ <= tail_line_cap) break;
    if (live <= tail_cap_) {
      // Too many lines (short ones): the oldest leave.
      const std::string_view region(base + buffer_start_, live);
      const uint64_t count = tail_newlines_ - tail_line_cap;
      const size_t end = NthLineEnd(region, count);
      buffer_start_ += end;
      scanned_to_ = std::max(scanned_to_, buffer_start_);
      tail_newlines_ = tail_line_cap;
      EvictLines(region.substr(0, end), count);
      continue;
    }
    // Everything before `target` leaves; so does the rest of the line `target` falls in.
    const size_t target = buffer_.size() - tail_cap_;
    const size_t from = std::max({scanned_to_, buffer_start_, target - 1});
    const void* nl = std::memchr(base + from, '\n', buffer_.size() - from);
    const size_t end =
        nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - base) + 1 : 0;
    if (nl != nullptr && end - target <= kMaxLineBytes) {
      const std::string_view region(base + buffer_start_, end - buffer_start_);
      buffer_start_ = end;
      scanned_to_ = end;
      const uint64_t count = static_cast<uint64_t>(std::count(region.begin(), region.end(), '\n'));
      tail_newlines_ -= count;
      EvictLines(region, count);
      continue;
    }
    // The line `target` falls in is long (or has no end yet): the lines before it leave whole,
    // then the part of it before `target`; the tail keeps the rest, its end included.
    scanned_to_ = nl != nullptr ? end - 1 : buffer_.size();
    const void* last_nl = ::memrchr(base + buffer_start_, '\n', target - buffer_start_);
    if (last_nl != nullptr) {
      const size_t end = static_cast<size_t>(static_cast<const char*>(last_nl) - base) + 1;
      const std::string_view region(base + buffer_start_, end - buffer_start_);
      buffer_start_ = end;
      const uint64_t count = static_cast<uint64_t>(std::count(region.begin(), region.end(), '\n'));
      tail_newlines_ -= count;
      EvictLines(region, count);
    }
    const size_t begin = buffer_start_;
    buffer_start_ = target;
    Evicted(std::string_view(base + begin, target - begin), false);
  }
  CountTokens(std::string_view(buffer_).substr(evict_from, buffer_start_ - evict_from));
}

void OutputWindow::EvictLines(std::string_view lines, uint64_t newlines) {
  while (!lines.empty()) {
    if (long_line_bytes_ > 0 || middle_full_ || keep_after_ > 0 || block_left_ > 0) {
      // One line at a time: the end of a long line, or a block being kept.
      if (middle_full_ && long_line_bytes_ == 0) {
        DroppedLines(lines, newlines);
        return;
      }
      const size_t nl = lines.find('\n');
      Evicted(lines.substr(0, nl + 1), true);
      lines.remove_prefix(nl + 1);
      --newlines;
      continue;
    }
    // Nothing is being kept: everything up to the next notable line is dropped in one go.
    const size_t hit = FindErrorLine(lines);
    if (hit == std::string_view::npos) {
      DroppedLines(lines, newlines);
      return;
    }
    if (hit > 0) {
      const std::string_view dropped = lines.substr(0, hit);
      const uint64_t count =
          static_cast<uint64_t>(std::count(dropped.begin(), dropped.end(), '\n'));
      DroppedLines(dropped, count);
      newlines -= count;
    }
    lines.remove_prefix(hit);
    const size_t nl = lines.find('\n');
    Evicted(lines.substr(0, nl + 1), true);
    lines.remove_prefix(nl + 1);
    --newlines;
  }
}

void OutputWindow::DroppedLines(std::string_view lines, uint64_t newlines) {
  block_left_ = 0;
  // Only the last few can be context before a notable line.
  size_t start = lines.size();
  uint64_t count = 0;
  while (start > 0 && count < kContextBefore) {
    const size_t nl = start >= 2 ? lines.rfind('\n', start - 2) : std::string_view::npos;
    start = nl == std::string_view::npos ? 0 : nl + 1;
    ++count;
  }
  if (start > 0) {
    gap_bytes_ += start;
    gap_lines_ += newlines - count;
    before_count_ = 0;
  }
  while (start < lines.size()) {
    const size_t nl = lines.find('\n', start);
    Dropped(lines.substr(start, nl + 1 - start));
    start = nl + 1;
  }
}

void OutputWindow::Evicted(std::string_view piece, bool line_end) {
  if (!line_end || long_line_bytes_ > 0) {
    // A line that leaves in pieces: remember its first bytes (enough to judge it and to show
    // its cut form) and its last, and decide when its end leaves too.
    if (long_line_head_.size() < kMaxLineBytes) {
      long_line_head_.append(piece.substr(0, kMaxLineBytes - long_line_head_.size()));
    }
    if (piece.size() >= kLineTailBytes) {
      long_line_tail_.assign(piece.substr(piece.size() - kLineTailBytes));
    } else {
      long_line_tail_.append(piece);
      if (long_line_tail_.size() > kLineTailBytes) {
        long_line_tail_.erase(0, long_line_tail_.size() - kLineTailBytes);
      }
    }
    long_line_bytes_ += piece.size();
    if (!line_end) return;
    const uint64_t length = long_line_bytes_;
    std::string head = std::move(long_line_head_);
    std::string tail = std::move(long_line_tail_);
    long_line_head_.clear();
    long_line_tail_.clear();
    long_line_bytes_ = 0;
    // Context before never reaches across a line this long.
    before_count_ = 0;
    const bool notable = !middle_full_ && LooksLikeErrorLine(head);
    const bool keep = notable || keep_after_ > 0 || (block_left_ > 0 && Indented(head));
    if (!keep || middle_full_) {
      block_left_ = 0;
      gap_lines_ += 1;
      gap_bytes_ += length;
      return;
    }
    // Shown cut: the first bytes, the count, the last bytes.
    std::string_view shown_head(head);
    shown_head = shown_head.substr(0, Utf8Boundary(shown_head, kLineHeadBytes));
    std::string_view shown_tail = WithoutNewline(tail);
    while (!shown_tail.empty() && (static_cast<unsigned char>(shown_tail[0]) & 0xC0) == 0x80) {
      shown_tail.remove_prefix(1);  // never start inside a UTF-8 character
    }
    const uint64_t omitted =
        length - std::min<uint64_t>(length, shown_head.size() + shown_tail.size() + 1);
    std::string cut = StrCat(shown_head, "\n… ", FormatCount(omitted),
                             " bytes of this line omitted\n", shown_tail);
    if (notable) {
      keep_after_ = kContextAfter;
      block_left_ = kMaxBlockLines;
    } else {
      if (keep_after_ > 0) --keep_after_;
      if (block_left_ > 0) --block_left_;
    }
    if (KeepLine(cut)) {
      kept_bytes_ -= cut.size();
      kept_bytes_ += shown_head.size() + shown_tail.size() + 1;
    } else {
      gap_lines_ += 1;
      gap_bytes_ += length;
    }
    return;
  }

  if (middle_full_) {
    Dropped(piece);
    return;
  }
  const std::string_view line = WithoutNewline(piece);
  if (LooksLikeErrorLine(line)) {
    // The lines before it, then the line; the block it opens follows.
    const size_t count = before_count_;
    before_count_ = 0;
    for (size_t k = 0; k < count; ++k) {
      const auto [begin, end] =
          before_[(before_next_ + kContextBefore - count + k) % kContextBefore];
      gap_lines_ -= 1;
      gap_bytes_ -= end - begin;
    }
    for (size_t k = 0; k < count; ++k) {
      const auto [begin, end] =
          before_[(before_next_ + kContextBefore - count + k) % kContextBefore];
      const std::string_view before_line(buffer_.data() + begin, end - begin);
      if (middle_full_ || !KeepLine(before_line)) Dropped(before_line);
    }
    keep_after_ = kContextAfter;
    block_left_ = kMaxBlockLines;
    if (middle_full_ || !KeepLine(piece)) Dropped(piece);
    return;
  }
  if (keep_after_ > 0 || (block_left_ > 0 && Indented(line))) {
    if (keep_after_ > 0) --keep_after_;
    if (block_left_ > 0) --block_left_;
    if (!KeepLine(piece)) Dropped(piece);
    return;
  }
  block_left_ = 0;
  Dropped(piece);
}

void OutputWindow::Dropped(std::string_view line) {
  gap_lines_ += line.empty() || line.back() != '\n' ? 0 : 1;
  gap_bytes_ += line.size();
  if (middle_full_) return;
  // Remember it as possible context before a notable line, while it is cheap to keep.
  if (line.size() > kContextBeforeBytes) {
    before_count_ = 0;
    return;
  }
  const size_t begin = static_cast<size_t>(line.data() - buffer_.data());
  before_[before_next_] = {begin, begin + line.size()};
  before_next_ = (before_next_ + 1) % kContextBefore;
  before_count_ = std::min(before_count_ + 1, kContextBefore);
  while (before_count_ > 1 &&
         begin + line.size() -
                 before_[(before_next_ + kContextBefore - before_count_) % kContextBefore].first >
             kContextBeforeBytes) {
    --before_count_;
  }
}

bool OutputWindow::KeepLine(std::string_view piece) {
  // `piece` is a line with its '\n', or an already cut long line without one.
  std::string cut;
  std::string_view text = piece;
  uint64_t kept = piece.size();
  if (piece.size() > kMaxLineBytes + 1) {
    const std::string_view line = piece.substr(0, piece.size() - 1);
    const size_t head = Utf8Boundary(line, kLineHeadBytes);
    const size_t tail = Utf8Boundary(line, line.size() - kLineTailBytes);
    cut = StrCat(line.substr(0, head), "\n… ", FormatCount(tail - head),
                 " bytes of this line omitted\n", line.substr(tail), "\n");
    text = cut;
    kept = head + (line.size() - tail) + 1;
  }
  // The gap marker before it and the line itself must fit in the middle's share.
  const size_t marker = gap_bytes_ > 0 ? 80 : 0;
  const uint64_t text_lines =
      static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n')) + (marker > 0 ? 2 : 1);
  if (middle_.size() + marker + text.size() + 1 > middle_cap_ ||
      middle_text_lines_ + text_lines > line_cap_ / 2) {
    middle_full_ = true;
    before_count_ = 0;
    return false;
  }
  CloseGap();
  middle_text_lines_ += text_lines;
  middle_.append(text);
  if (middle_.back() != '\n') middle_.push_back('\n');
  ++middle_lines_;
  kept_bytes_ += kept;
  return true;
}

void OutputWindow::CloseGap() {
  if (gap_bytes_ == 0) return;
  const std::string size = FormatBytes(gap_bytes_);
  if (gap_lines_ > 0) {
    StrAppend(&middle_, "… ", FormatCount(gap_lines_), gap_lines_ == 1 ? " line (" : " lines (",
              size, ")", kGapSuffix, "\n");
  } else {
    StrAppend(&middle_, "… ", size, kGapSuffix, "\n");
  }
  gap_lines_ = 0;
  gap_bytes_ = 0;
}

std::string OutputWindow::TakeText() {
  if (!windowed_) {
    CountTokens(buffer_);
    kept_bytes_ = buffer_.size();
    std::string text = std::move(buffer_);
    buffer_.clear();
    return text;
  }
  const std::string_view tail = std::string_view(buffer_).substr(buffer_start_);
  CountTokens(tail);
  if (long_line_bytes_ > 0) {
    // A line whose end is in the tail: its first part is in the gap.
    gap_bytes_ += long_line_bytes_;
    long_line_bytes_ = 0;
  }
  tail_kept_ = tail.size();
  kept_bytes_ += tail.size();
  std::string text = std::move(head_);
  head_.clear();
  text.reserve(text.size() + middle_.size() + 96 + tail.size());
  if (!text.empty() && text.back() != '\n') text.push_back('\n');
  text.append(middle_);
  std::string().swap(middle_);
  // The last gap goes right before the tail (CloseGap writes into middle_, now empty).
  CloseGap();
  text.append(middle_);
  text.append(tail);
  std::string().swap(buffer_);
  std::string().swap(middle_);
  return text;
}

}  // namespace plugline::core
