// The framing of plugline's server protocol: every message, either way, is one frame — a
// 4-byte unsigned length in network byte order, then that many bytes of one JSON object.
// A reader is bounded: a frame whose length is over its limit is refused from the length
// alone, before any of its body is read or buffered.
#ifndef PLUGLINE_SERVER_PROTOCOL_H_
#define PLUGLINE_SERVER_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace plugline::server {

inline constexpr size_t kFrameHeaderBytes = 4;
// The largest frame either side sends or accepts: a shaping request carries at most the
// shaping window (outputs.window_mb, 8 MiB by default, at most 64 MiB) and a hook payload at
// most 16 MiB, each with a small envelope.
inline constexpr size_t kMaxFrameBytes = 72u << 20;

// `body` with its header. `body` must be at most kMaxFrameBytes.
std::string EncodeFrame(std::string_view body);

// Splits a byte stream into frames. One stream at a time; not thread-safe.
class FrameReader {
 public:
  explicit FrameReader(size_t max_frame_bytes = kMaxFrameBytes)
      : max_frame_bytes_(max_frame_bytes) {}

  // Feeds the next bytes of the stream; every frame they complete is appended to `frames`
  // (its body, without the header). A frame over the limit is ResourceExhausted naming its
  // size and the limit; after an error the reader stays failed and takes nothing more.
  absl::Status Feed(std::string_view bytes, std::vector<std::string>* frames);

  // True when no frame is partly read: the stream may end here.
  bool at_frame_boundary() const { return header_filled_ == 0 && !in_body_; }
  // Bytes of the frame being read that have not arrived yet (0 between frames).
  size_t bytes_missing() const;

 private:
  const size_t max_frame_bytes_;
  absl::Status failed_;
  unsigned char header_[kFrameHeaderBytes] = {};
  size_t header_filled_ = 0;
  bool in_body_ = false;
  size_t body_size_ = 0;
  std::string body_;
};

}  // namespace plugline::server

#endif  // PLUGLINE_SERVER_PROTOCOL_H_
