#include "server/protocol.h"

#include <algorithm>

#include "core/strings.h"
#include "core/text.h"

namespace plugline::server {

std::string EncodeFrame(std::string_view body) {
  const auto n = static_cast<uint32_t>(body.size());
  std::string frame;
  frame.reserve(kFrameHeaderBytes + body.size());
  frame.push_back(static_cast<char>((n >> 24) & 0xff));
  frame.push_back(static_cast<char>((n >> 16) & 0xff));
  frame.push_back(static_cast<char>((n >> 8) & 0xff));
  frame.push_back(static_cast<char>(n & 0xff));
  frame.append(body);
  return frame;
}

size_t FrameReader::bytes_missing() const {
  if (in_body_) return body_size_ - body_.size();
  return header_filled_ == 0 ? 0 : kFrameHeaderBytes - header_filled_;
}

absl::Status FrameReader::Feed(std::string_view bytes, std::vector<std::string>* frames) {
  if (!failed_.ok()) return failed_;
  while (!bytes.empty()) {
    if (!in_body_) {
      const size_t take = std::min(kFrameHeaderBytes - header_filled_, bytes.size());
      std::copy_n(bytes.data(), take, header_ + header_filled_);
      header_filled_ += take;
      bytes.remove_prefix(take);
      if (header_filled_ < kFrameHeaderBytes) break;
      header_filled_ = 0;
      body_size_ = (size_t{header_[0]} << 24) | (size_t{header_[1]} << 16) |
                   (size_t{header_[2]} << 8) | size_t{header_[3]};
      if (body_size_ > max_frame_bytes_) {
        failed_ = absl::ResourceExhaustedError(
            StrCat("a message of ", core::FormatBytes(body_size_), " is over the limit of ",
                   core::FormatBytes(max_frame_bytes_)));
        return failed_;
      }
      in_body_ = true;
      body_.clear();
      // Reserved as it arrives, not from the header: a peer that announces a large frame and
      // sends nothing costs nothing.
    }
    const size_t take = std::min(body_size_ - body_.size(), bytes.size());
    body_.append(bytes.data(), take);
    bytes.remove_prefix(take);
    if (body_.size() == body_size_) {
      in_body_ = false;
      frames->push_back(std::move(body_));
      body_ = std::string();
    }
  }
  return absl::OkStatus();
}

}  // namespace plugline::server
