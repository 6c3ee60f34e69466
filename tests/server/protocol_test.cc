#include "server/protocol.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace plugline::server {
namespace {

TEST_CASE("frames: a length in network byte order, then the body") {
  CHECK(EncodeFrame("{}") == std::string("\0\0\0\x02{}", 6));
  CHECK(EncodeFrame("") == std::string(4, '\0'));
  const std::string big(70000, 'x');
  CHECK(EncodeFrame(big).substr(0, 4) == std::string("\0\x01\x11\x70", 4));
}

TEST_CASE("frames arrive whole however the stream is cut") {
  const std::vector<std::string> bodies = {R"({"type":"hello"})", "", std::string(1000, 'a'),
                                           std::string("nul\0and \xff", 9)};
  std::string stream;
  for (const std::string& body : bodies) stream += EncodeFrame(body);
  // Every chunk size, from one byte at a time to the whole stream at once.
  for (size_t chunk = 1; chunk <= stream.size(); chunk += chunk < 16 ? 1 : 97) {
    CAPTURE(chunk);
    FrameReader reader;
    std::vector<std::string> frames;
    for (size_t at = 0; at < stream.size(); at += chunk) {
      REQUIRE(reader.Feed(std::string_view(stream).substr(at, chunk), &frames).ok());
    }
    CHECK(frames == bodies);
    CHECK(reader.at_frame_boundary());
    CHECK(reader.bytes_missing() == 0);
  }
}

TEST_CASE("a partial frame is not a frame, and says what is missing") {
  FrameReader reader;
  std::vector<std::string> frames;
  const std::string frame = EncodeFrame("hello");
  REQUIRE(reader.Feed(frame.substr(0, 2), &frames).ok());
  CHECK_FALSE(reader.at_frame_boundary());
  CHECK(reader.bytes_missing() == 2);
  REQUIRE(reader.Feed(frame.substr(2, 5), &frames).ok());
  CHECK(frames.empty());
  CHECK(reader.bytes_missing() == 2);
  REQUIRE(reader.Feed(frame.substr(7), &frames).ok());
  CHECK(frames == std::vector<std::string>{"hello"});
}

TEST_CASE("a frame over the limit is refused from its length, before its body is read") {
  FrameReader reader(1024);
  std::vector<std::string> frames;
  REQUIRE(reader.Feed(EncodeFrame(std::string(1024, 'k')), &frames).ok());  // at the limit
  CHECK(frames.size() == 1);
  // Only the header of a 4 GiB frame: refused at once, nothing buffered.
  absl::Status status = reader.Feed(std::string("\xff\xff\xff\xff", 4), &frames);
  CHECK(absl::IsResourceExhausted(status));
  CHECK(status.message() == "a message of 4.0 GiB is over the limit of 1.0 KiB");
  // The reader stays failed: what follows is not taken as frames.
  CHECK(absl::IsResourceExhausted(reader.Feed(EncodeFrame("{}"), &frames)));
  CHECK(frames.size() == 1);
}

}  // namespace
}  // namespace plugline::server
