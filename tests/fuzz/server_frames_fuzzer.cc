// The server protocol's frame reader (server::FrameReader): bytes from a peer, cut into
// chunks of fuzzer-chosen sizes. Every frame it gives, encoded again, is exactly the stream it
// consumed; a frame over the limit is an error that sticks; nothing past the limit is kept.
//
// Input: byte 0: the chunk size (1-256); the rest: the stream.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "server/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plugline::server;
  if (size < 1) return 0;
  const size_t chunk = size_t{data[0]} + 1;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  constexpr size_t kLimit = 4096;

  FrameReader reader(kLimit);
  std::vector<std::string> frames;
  bool failed = false;
  for (size_t at = 0; at < stream.size(); at += chunk) {
    const absl::Status status = reader.Feed(stream.substr(at, chunk), &frames);
    if (!status.ok()) {
      FUZZ_CHECK(absl::IsResourceExhausted(status));
      failed = true;
      // Sticky: nothing more is taken.
      const size_t before = frames.size();
      FUZZ_CHECK(!reader.Feed(EncodeFrame("{}"), &frames).ok());
      FUZZ_CHECK(frames.size() == before);
      break;
    }
  }
  std::string consumed;
  for (const std::string& frame : frames) {
    FUZZ_CHECK(frame.size() <= kLimit);
    consumed += EncodeFrame(frame);
  }
  // The frames are the stream's prefix, in order and byte for byte.
  FUZZ_CHECK(stream.substr(0, consumed.size()) == consumed);
  if (!failed) {
    // What is left is one partial frame, of which the reader knows how much is missing.
    const size_t rest = stream.size() - consumed.size();
    FUZZ_CHECK(reader.at_frame_boundary() == (rest == 0));
    if (rest >= kFrameHeaderBytes) {
      FUZZ_CHECK(reader.bytes_missing() > 0);
      FUZZ_CHECK(rest + reader.bytes_missing() <= kFrameHeaderBytes + kLimit);
    }
  }
  return 0;
}
