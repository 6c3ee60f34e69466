// The real BPE token counter: o200k_base and cl100k_base, as OpenAI's tiktoken counts them.
//
// Counting is tiktoken's ordinary encoding (special tokens are plain text): the text is split
// by the encoding's pre-tokenization pattern (PCRE2, Unicode properties, JIT-compiled), and each
// piece is one token when the vocabulary has it whole, else as many as byte-pair merging leaves
// (the lowest-ranked adjacent pair merges first, the leftmost of equal ranks). Bytes that are
// not UTF-8 match no alternative of the pattern; each run of them is merged as one piece.
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/fs.h"
#include "core/strings.h"
#include "core/text.h"
#include "core/tokens.h"
#include "tokenizer/bpe.h"

namespace plugline::core {
namespace {

using absl::StrCat;

// tiktoken's patterns for the two encodings (the `pat_str` js-tiktoken ships with the ranks).
constexpr std::string_view kO200kPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kCl100kPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Pieces longer than this are merged in parts of this size (bounded memory).
constexpr size_t kMaxMergeBytes = 64 << 10;
// Pieces at least this long have their counts remembered by content (kMaxLongPieces of them).
constexpr size_t kLongPieceBytes = 4 << 10;
constexpr size_t kMaxLongPieces = 256;

// Pieces remembered per count, of each of two kinds: short ones (at most kShortPieceBytes,
// keyed by value) and longer ones (views into the text counted).
constexpr size_t kMaxSeenPieces = 1 << 16;
constexpr size_t kShortPieceBytes = 7;
// Count() splits a text into parts of at least this many bytes, at most this many.
constexpr size_t kMinCountPartBytes = 1 << 20;
constexpr size_t kMaxCountThreads = 8;

// The rank files are at most this large (o200k_base's is 3.6 MB).
constexpr size_t kMaxRanksFileBytes = 64u << 20;

struct PcreCodeDeleter {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct PcreMatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

// The vocabulary as one flat table: an open-addressing hash of token bytes to ranks, laid out
// so that the same bytes can be written to a file and mapped back in without parsing.
//
//   Header | uint32 slots[slot_count] (entry index + 1, 0 = empty) | Entry entries[entry_count]
//   | token bytes
//
// Parsing o200k_base's 200,000 base64 lines costs about 50 ms and 20 MB; mapping the table
// costs well under a millisecond and shares its pages between processes.
struct TableHeader {
  char magic[8];
  uint64_t source_size;      // the .tiktoken file it was made from
  int64_t source_mtime_ns;
  uint32_t entry_count;
  uint32_t slot_count;       // a power of two, at least twice entry_count
  uint32_t blob_size;
  uint32_t reserved;
};
struct TableEntry {
  uint32_t offset;
  uint32_t length;
  uint32_t rank;
};
constexpr char kTableMagic[8] = {'P', 'L', 'B', 'P', 'E', '\x01', '\0', '\0'};

uint64_t HashBytes(std::string_view bytes) {  // FNV-1a: stable across builds, as the file needs
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

class RankTable {
 public:
  RankTable() = default;
  RankTable(const RankTable&) = delete;
  RankTable& operator=(const RankTable&) = delete;
  ~RankTable() {
    if (mapped_ != nullptr) ::munmap(mapped_, mapped_size_);
  }

  // Builds the table from a .tiktoken file's text.
  absl::Status Build(const std::string& path, std::string_view text, uint64_t source_size,
                     int64_t source_mtime_ns) {
    std::vector<TableEntry> entries;
    std::string blob;
    blob.reserve(text.size());
    size_t line_number = 0;
    for (std::string_view line : SplitLines(text)) {
      ++line_number;
      if (line.empty()) continue;
      const size_t space = line.find(' ');
      uint32_t rank = 0;
      if (space == std::string_view::npos || space == 0 ||
          !absl::SimpleAtoi(ToAbsl(line.substr(space + 1)), &rank)) {
        return absl::InvalidArgumentError(
            StrCat(path, ":", line_number, ": not \"<base64 token> <rank>\""));
      }
      std::string_view b64 = line.substr(0, space);
      const size_t at = blob.size();
      blob.resize(at + b64.size() / 4 * 3 + 3);
      const int n = b64.size() % 4 != 0
                        ? -1
                        : EVP_DecodeBlock(reinterpret_cast<unsigned char*>(blob.data() + at),
                                          reinterpret_cast<const unsigned char*>(b64.data()),
                                          static_cast<int>(b64.size()));
      if (n < 0) {
        return absl::InvalidArgumentError(StrCat(path, ":", line_number, ": bad base64"));
      }
      // EVP_DecodeBlock counts the padding as zero bytes.
      size_t length = static_cast<size_t>(n);
      if (b64.ends_with("==")) {
        length -= 2;
      } else if (b64.ends_with("=")) {
        length -= 1;
      }
      blob.resize(at + length);
      entries.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(length), rank});
    }
    uint32_t slot_count = 1024;
    while (slot_count < 2 * entries.size()) slot_count *= 2;
    TableHeader header{};
    std::memcpy(header.magic, kTableMagic, sizeof header.magic);
    header.source_size = source_size;
    header.source_mtime_ns = source_mtime_ns;
    header.entry_count = static_cast<uint32_t>(entries.size());
    header.slot_count = slot_count;
    header.blob_size = static_cast<uint32_t>(blob.size());
    owned_.assign(sizeof header + slot_count * sizeof(uint32_t) +
                      entries.size() * sizeof(TableEntry) + blob.size(),
                  '\0');
    std::memcpy(owned_.data(), &header, sizeof header);
    std::memcpy(owned_.data() + sizeof header + slot_count * sizeof(uint32_t), entries.data(),
                entries.size() * sizeof(TableEntry));
    std::memcpy(owned_.data() + owned_.size() - blob.size(), blob.data(), blob.size());
    Point(owned_.data());
    auto* slots = const_cast<uint32_t*>(slots_);
    for (uint32_t i = 0; i < header.entry_count; ++i) {
      const std::string_view bytes = Bytes(entries_[i]);
      size_t slot = HashBytes(bytes) & (slot_count - 1);
      while (slots[slot] != 0) {
        if (Bytes(entries_[slots[slot] - 1]) == bytes) {
          return absl::InvalidArgumentError(StrCat(path, ": a token listed twice (rank ",
                                                   entries_[i].rank, ")"));
        }
        slot = (slot + 1) & (slot_count - 1);
      }
      slots[slot] = i + 1;
    }
    for (int byte = 0; byte < 256; ++byte) {
      const char c = static_cast<char>(byte);
      if (!Rank(std::string_view(&c, 1))) {
        return absl::InvalidArgumentError(
            StrCat(path, ": not a byte-level BPE vocabulary (byte ", byte, " has no token)"));
      }
    }
    return absl::OkStatus();
  }

  // Maps a table written by Bytes() before; false when `path` is not one for this source.
  bool Map(const std::string& path, uint64_t source_size, int64_t source_mtime_ns) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    void* mapped = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= sizeof(TableHeader)) {
      mapped = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    }
    ::close(fd);
    if (mapped == MAP_FAILED) return false;
    const size_t size = static_cast<size_t>(st.st_size);
    TableHeader header;
    std::memcpy(&header, mapped, sizeof header);
    const bool fits =
        std::memcmp(header.magic, kTableMagic, sizeof header.magic) == 0 &&
        header.source_size == source_size && header.source_mtime_ns == source_mtime_ns &&
        header.slot_count >= 2 * static_cast<uint64_t>(header.entry_count) &&
        (header.slot_count & (header.slot_count - 1)) == 0 &&
        size == sizeof header + uint64_t{header.slot_count} * sizeof(uint32_t) +
                    uint64_t{header.entry_count} * sizeof(TableEntry) + header.blob_size;
    if (!fits) {
      ::munmap(mapped, size);
      return false;
    }
    mapped_ = mapped;
    mapped_size_ = size;
    Point(static_cast<const char*>(mapped));
    // A damaged file must not make a lookup read past the blob.
    for (uint32_t i = 0; i < header_.entry_count; ++i) {
      if (uint64_t{entries_[i].offset} + entries_[i].length > header_.blob_size) {
        ::munmap(mapped_, mapped_size_);
        mapped_ = nullptr;
        header_ = TableHeader{};
        return false;
      }
    }
    return true;
  }

  std::string_view Bytes() const { return owned_; }

  std::optional<uint32_t> Rank(std::string_view bytes) const {
    const uint32_t mask = header_.slot_count - 1;
    for (size_t slot = HashBytes(bytes) & mask;; slot = (slot + 1) & mask) {
      const uint32_t index = slots_[slot];
      if (index == 0 || index > header_.entry_count) return std::nullopt;
      if (Bytes(entries_[index - 1]) == bytes) return entries_[index - 1].rank;
    }
  }

 private:
  void Point(const char* base) {
    std::memcpy(&header_, base, sizeof header_);
    slots_ = reinterpret_cast<const uint32_t*>(base + sizeof(TableHeader));
    entries_ = reinterpret_cast<const TableEntry*>(slots_ + header_.slot_count);
    blob_ = reinterpret_cast<const char*>(entries_ + header_.entry_count);
  }
  std::string_view Bytes(const TableEntry& entry) const {
    return std::string_view(blob_ + entry.offset, entry.length);
  }

  std::string owned_;  // a table built here; empty when mapped
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  TableHeader header_{};
  const uint32_t* slots_ = nullptr;
  const TableEntry* entries_ = nullptr;
  const char* blob_ = nullptr;
};

enum AsciiClass : int { kEnd, kSpace, kNewline, kUpper, kLower, kDigit, kPunct, kOther };
struct AsciiClasses {
  int c[128];
  constexpr AsciiClasses() : c() {
    for (int i = 0; i < 128; ++i) {
      c[i] = i == '\r' || i == '\n'                              ? kNewline
             : i == ' ' || i == '\t' || i == '\v' || i == '\f'  ? kSpace
             : i >= 'A' && i <= 'Z'                              ? kUpper
             : i >= 'a' && i <= 'z'                              ? kLower
             : i >= '0' && i <= '9'                              ? kDigit
                                                                 : kPunct;
    }
  }
  int operator[](int i) const { return c[i]; }
};
constexpr AsciiClasses kClass{};

// The pre-tokenization pattern, for ASCII text, without the regex engine: the same matches the
// pattern gives (alternatives tried in order, greedy, with the backtracking they imply), found
// in one pass. Returns where the match that starts at `pos` ends, or nullopt when deciding it
// would mean reading a byte that is not ASCII (a letter or space class PCRE2 must judge); the
// caller then asks PCRE2 for that one match. tokenizer_test checks the two agree.
class AsciiSplitter {
 public:
  explicit AsciiSplitter(bool o200k) : o200k_(o200k) {}

  std::optional<size_t> Match(std::string_view text, size_t pos) const {
    const size_t n = text.size();
    auto at = [&](size_t i) -> int { return i < n ? static_cast<unsigned char>(text[i]) : -1; };
    // Reading past the text is fine (-1, no class); a byte >= 0x80 ends the fast path.
    bool bail = false;
    auto cls = [&](size_t i) -> int {
      const int c = at(i);
      if (c >= 0x80) bail = true;
      return c < 0 ? kEnd : c >= 0x80 ? kOther : kClass[c];
    };
    const int c0 = cls(pos);
    if (bail) return std::nullopt;
    if (!o200k_ && c0 == kPunct && text[pos] == '\'') {
      // cl100k: (?i:'s|'t|'re|'ve|'m|'ll|'d) comes first.
      if (size_t end = Contraction(text, pos); end != pos) return end;
    }
    // Letters, with one optional leading character that is not a newline, letter or digit.
    {
      size_t q = pos;
      if (c0 == kPunct || c0 == kSpace) q = pos + 1;
      if (std::optional<size_t> end = Letters(text, q, cls, bail); bail) {
        return std::nullopt;
      } else if (end) {
        return end;
      }
      // Without the leading character there is no match either: it is not a letter.
    }
    if (c0 == kDigit) {
      size_t end = pos + 1;
      while (end < pos + 3 && cls(end) == kDigit) ++end;
      if (end < pos + 3) cls(end);  // a non-ASCII digit would continue the run
      if (bail) return std::nullopt;
      return end;
    }
    // " ?[^\s\p{L}\p{N}]+[\r\n/]*" (cl100k: "[\r\n]*")
    {
      size_t q = pos + (text[pos] == ' ' ? 1 : 0);
      size_t end = q;
      while (cls(end) == kPunct) ++end;
      if (bail) return std::nullopt;
      if (end > q) {
        for (;;) {
          const int c = at(end);
          if (c == '\r' || c == '\n' || (o200k_ && c == '/')) {
            ++end;
          } else {
            break;
          }
        }
        return end;
      }
    }
    if (c0 != kSpace && c0 != kNewline) return std::nullopt;  // only PCRE2 knows the rest
    // A run of whitespace W: "\s*[\r\n]+" is W up to its last newline; else
    // "\s+(?!\S)" is W at the end of the text, and W less its last character when something
    // follows (W of two or more); else "\s+" is W.
    size_t w = pos;
    size_t last_newline = std::string_view::npos;
    for (;;) {
      const int c = cls(w);
      if (c == kNewline) {
        last_newline = w;
      } else if (c != kSpace) {
        break;
      }
      ++w;
    }
    if (bail) return std::nullopt;
    if (last_newline != std::string_view::npos) return last_newline + 1;
    if (w >= n) return w;
    if (w - pos >= 2) return w - 1;
    return w;
  }

 private:

  // An apostrophe contraction at `pos` ('s 't 're 've 'm 'll 'd, either case): its end, or
  // `pos` when there is none.
  static size_t Contraction(std::string_view text, size_t pos) {
    auto lower = [&](size_t i) -> int {
      if (i >= text.size()) return -1;
      const int c = static_cast<unsigned char>(text[i]);
      return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
    };
    if (pos >= text.size() || text[pos] != '\'') return pos;
    const int a = lower(pos + 1);
    const int b = lower(pos + 2);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return pos + 2;
    if ((a == 'r' || a == 'v') && b == 'e') return pos + 3;
    if (a == 'l' && b == 'l') return pos + 3;
    return pos;
  }

  // The letter alternatives from `q`: o200k "[A-Z]*[a-z]+" or "[A-Z]+[a-z]*", then an optional
  // contraction; cl100k "[A-Za-z]+". nullopt when no letter starts at `q`.
  template <typename Cls>
  std::optional<size_t> Letters(std::string_view text, size_t q, Cls& cls, bool& bail) const {
    if (!o200k_) {
      size_t end = q;
      for (int c = cls(end); c == kUpper || c == kLower; c = cls(end)) ++end;
      if (bail || end == q) return std::nullopt;
      return end;
    }
    size_t upper_end = q;
    while (cls(upper_end) == kUpper) ++upper_end;
    size_t lower_end = upper_end;
    while (cls(lower_end) == kLower) ++lower_end;
    if (bail || lower_end == q) return std::nullopt;
    // Both alternatives take the whole upper and lower runs, then a contraction if one follows.
    return Contraction(text, lower_end);
  }

  const bool o200k_;
};

class BpeTokenCounter final : public TokenCounter {
 public:
  BpeTokenCounter(std::string name, std::unique_ptr<pcre2_code, PcreCodeDeleter> code, bool jit)
      : name_(std::move(name)), code_(std::move(code)), jit_(jit), ascii_(name_ == "o200k_base") {}

  // Maps `cache_path` when it holds the table of `path` as it is now; else builds the table
  // from `path` and writes it to `cache_path` (when not empty) for the next process.
  absl::Status Load(const std::string& path, const std::string& cache_path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return ErrnoToStatus(errno, path);
    const auto size = static_cast<uint64_t>(st.st_size);
    const int64_t mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (!cache_path.empty() && table_.Map(cache_path, size, mtime_ns)) return absl::OkStatus();
    absl::StatusOr<std::string> text = ReadFile(path, kMaxRanksFileBytes);
    if (!text.ok()) return text.status();
    if (text->size() > kMaxRanksFileBytes) {
      return absl::InvalidArgumentError(StrCat(path, ": larger than ", kMaxRanksFileBytes >> 20,
                                               " MiB, not a vocabulary"));
    }
    if (absl::Status built = table_.Build(path, *text, size, mtime_ns); !built.ok()) {
      return built;
    }
    if (!cache_path.empty()) {
      // Best effort: without the file the next process parses the ranks again.
      const size_t slash = cache_path.rfind('/');
      if (slash != std::string::npos && MakeDirs(cache_path.substr(0, slash)).ok()) {
        (void)WriteFileAtomic(cache_path, table_.Bytes(), Durability::kNone);
      }
    }
    return absl::OkStatus();
  }

  uint64_t Count(std::string_view text) const override {
    // A large text is counted in parts, one a core (up to kMaxCountThreads), split where every
    // piece ends in both patterns: after a newline, before an ASCII byte that is neither
    // whitespace nor '/' (a piece that holds a newline is whitespace, or punctuation followed
    // by newlines and '/'; nothing else may follow a newline in a piece). The counts are those
    // of one pass. Text that is not UTF-8 is counted in one pass: its pieces depend on where
    // the bytes that are not start.
    const size_t cores = std::max(1U, std::thread::hardware_concurrency());
    const size_t parts = std::min({cores, kMaxCountThreads, text.size() / kMinCountPartBytes});
    if (parts < 2 || !core::IsValidUtf8(text)) return CountPart(text);
    std::vector<std::string_view> chunks;
    size_t begin = 0;
    for (size_t k = 1; k < parts; ++k) {
      size_t at = std::max(begin, text.size() / parts * k);
      for (; at + 1 < text.size(); ++at) {
        const char c = text[at + 1];
        if (text[at] == '\n' && static_cast<unsigned char>(c) < 0x80 && c != '/' &&
            !absl::ascii_isspace(static_cast<unsigned char>(c))) {
          break;
        }
      }
      if (at + 1 >= text.size()) break;
      chunks.push_back(text.substr(begin, at + 1 - begin));
      begin = at + 1;
    }
    chunks.push_back(text.substr(begin));
    std::vector<uint64_t> counts(chunks.size(), 0);
    std::vector<std::thread> threads;
    for (size_t k = 1; k < chunks.size(); ++k) {
      threads.emplace_back([&, k] { counts[k] = CountPart(chunks[k]); });
    }
    counts[0] = CountPart(chunks[0]);
    for (std::thread& t : threads) t.join();
    uint64_t tokens = 0;
    for (uint64_t n : counts) tokens += n;
    return tokens;
  }

  std::string_view name() const override { return name_; }

 private:
  // Count() of one part, in one pass.
  uint64_t CountPart(std::string_view text) const {
    if (text.empty()) return 0;
    // Command output repeats itself: a piece seen once is looked up in a small map after,
    // which stays in the processor's cache where the vocabulary's table does not. Most pieces
    // are short, and those are keyed by value (their bytes and length in one integer), which
    // costs neither a string hash nor a comparison of bytes.
    absl::flat_hash_map<uint64_t, uint32_t> seen_short;
    absl::flat_hash_map<std::string_view, uint32_t> seen_long;
    uint64_t tokens = 0;
    // Looks `piece` up under `key`, counting it on a miss; a full map keeps what it holds.
    auto lookup = [&](auto& seen, const auto& key, std::string_view piece) -> uint32_t {
      if (auto it = seen.find(key); it != seen.end()) return it->second;
      const uint32_t n = table_.Rank(piece) ? 1 : static_cast<uint32_t>(Merge(piece));
      if (seen.size() < kMaxSeenPieces) seen.emplace(key, n);
      return n;
    };
    Split(text, /*fast=*/true, [&](std::string_view piece, bool matched) {
      if (!matched) {  // bytes that are not UTF-8
        tokens += Merge(piece);
        return;
      }
      if (piece.size() == 1) {
        ++tokens;
        return;
      }
      if (piece.size() <= kShortPieceBytes) {
        uint64_t key = uint64_t{piece.size()} << 56;
        for (size_t i = 0; i < piece.size(); ++i) {
          key |= uint64_t{static_cast<unsigned char>(piece[i])} << (8 * i);
        }
        tokens += lookup(seen_short, key, piece);
        return;
      }
      tokens += lookup(seen_long, piece, piece);
    });
    return tokens;
  }

 public:
  // Calls `piece(bytes, matched)` for each piece of `text` in order: `matched` false for a run
  // of bytes the pattern cannot match (not UTF-8). `fast`: ASCII matches without PCRE2.
  template <typename F>
  void Split(std::string_view text, bool fast, F&& piece) const {
    std::unique_ptr<pcre2_match_data, PcreMatchDataDeleter> match(
        pcre2_match_data_create_from_pattern(code_.get(), nullptr));
    if (match == nullptr) {
      piece(text, false);
      return;
    }
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t pos = 0;
    while (pos < text.size()) {
      if (fast) {
        if (std::optional<size_t> end = ascii_.Match(text, pos)) {
          piece(text.substr(pos, *end - pos), true);
          pos = *end;
          continue;
        }
      }
      const int rc =
          jit_ ? pcre2_jit_match(code_.get(), subject, text.size(), pos, 0, match.get(), nullptr)
               : pcre2_match(code_.get(), subject, text.size(), pos, 0, match.get(), nullptr);
      if (rc < 0) {  // no match: what is left is not UTF-8
        piece(text.substr(pos), false);
        return;
      }
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
      const size_t start = ovector[0];
      const size_t end = std::max<size_t>(ovector[1], start + 1);
      if (start > pos) piece(text.substr(pos, start - pos), false);
      piece(text.substr(start, end - start), true);
      pos = end;
    }
  }

 private:
  // How many tokens byte-pair merging leaves of one piece (BytePairMerge), for pieces of any
  // length: bounded in memory, and long ones remembered.
  uint64_t Merge(std::string_view piece) const {
    if (piece.size() > kMaxMergeBytes) {
      // A piece this long (a run of NULs, a minified blob) is merged in parts, so memory stays
      // bounded; a token is far shorter than a part, so at most one token per part boundary
      // differs from merging it whole.
      uint64_t tokens = 0;
      for (size_t at = 0; at < piece.size(); at += kMaxMergeBytes) {
        tokens += Merge(piece.substr(at, kMaxMergeBytes));
      }
      return tokens;
    }
    if (piece.size() >= kLongPieceBytes) {
      // Long pieces are mostly one byte repeated (NULs, "=====", "yyyy"), and a large output
      // is counted in chunks: what one cost is remembered across counts, by content.
      const LongPieceKey key{HashBytes(piece), piece.size()};
      {
        absl::MutexLock lock(&long_mu_);
        if (auto it = long_pieces_.find(key); it != long_pieces_.end()) return it->second;
      }
      const uint64_t tokens = BytePairMerge(piece);
      absl::MutexLock lock(&long_mu_);
      if (long_pieces_.size() >= kMaxLongPieces) long_pieces_.clear();
      long_pieces_.emplace(key, tokens);
      return tokens;
    }
    return BytePairMerge(piece);
  }

  // Byte-pair merging of one piece; returns how many tokens are left. Parts are kept as a
  // linked list over byte offsets and candidate pairs in a heap ordered by (rank, offset), so a
  // long piece (a line of "=" or a base64 blob) costs n log n, not n².
  uint64_t BytePairMerge(std::string_view piece) const {
    const size_t n = piece.size();
    if (n <= 1) return n;
    std::vector<uint32_t> next(n);
    std::vector<uint32_t> prev(n);
    std::vector<bool> alive(n, true);
    for (size_t i = 0; i < n; ++i) {
      next[i] = static_cast<uint32_t>(i + 1);
      prev[i] = static_cast<uint32_t>(i == 0 ? 0 : i - 1);
    }
    struct Candidate {
      uint32_t rank;
      uint32_t start;
      uint32_t end;
      bool operator>(const Candidate& other) const {
        return rank != other.rank ? rank > other.rank : start > other.start;
      }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> heap;
    auto pair_end = [&](uint32_t a) -> uint32_t {
      const uint32_t b = next[a];
      return b >= n ? static_cast<uint32_t>(n + 1) : next[b];
    };
    auto push = [&](uint32_t a) {
      if (next[a] >= n) return;
      const uint32_t end = pair_end(a);
      if (std::optional<uint32_t> rank = table_.Rank(piece.substr(a, end - a))) {
        heap.push({*rank, a, end});
      }
    };
    for (uint32_t a = 0; a + 1 < n; ++a) push(a);
    uint64_t parts = n;
    while (!heap.empty()) {
      const Candidate best = heap.top();
      heap.pop();
      if (!alive[best.start] || next[best.start] >= n || pair_end(best.start) != best.end) {
        continue;  // a pair that an earlier merge changed
      }
      const uint32_t a = best.start;
      const uint32_t b = next[a];
      alive[b] = false;
      next[a] = next[b];
      if (next[a] < n) prev[next[a]] = a;
      --parts;
      push(a);
      if (a != 0) push(prev[a]);
    }
    return parts;
  }

  std::string name_;
  std::unique_ptr<pcre2_code, PcreCodeDeleter> code_;
  const bool jit_;
  const AsciiSplitter ascii_;
  RankTable table_;
  struct LongPieceKey {
    uint64_t hash;
    size_t size;
    bool operator==(const LongPieceKey&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const LongPieceKey& k) {
      return H::combine(std::move(h), k.hash, k.size);
    }
  };
  mutable absl::Mutex long_mu_;
  mutable absl::flat_hash_map<LongPieceKey, uint64_t> long_pieces_ ABSL_GUARDED_BY(long_mu_);
};

}  // namespace

namespace {

absl::StatusOr<std::unique_ptr<BpeTokenCounter>> NewCounter(std::string_view encoding) {
  std::string_view pattern;
  if (encoding == "o200k_base") {
    pattern = kO200kPattern;
  } else if (encoding == "cl100k_base") {
    pattern = kCl100kPattern;
  } else {
    return absl::InvalidArgumentError(
        StrCat("unknown encoding \"", ToAbsl(encoding), "\" (o200k_base or cl100k_base)"));
  }
  int error = 0;
  PCRE2_SIZE offset = 0;
  std::unique_ptr<pcre2_code, PcreCodeDeleter> code(
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                    PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &offset, nullptr));
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return absl::InternalError(StrCat(ToAbsl(encoding), "'s pattern does not compile at ", offset, ": ",
                                      reinterpret_cast<const char*>(message)));
  }
  // Without JIT (a platform PCRE2 cannot JIT for) matching is slower, not wrong.
  const bool jit = pcre2_jit_compile(code.get(), PCRE2_JIT_COMPLETE) == 0;
  return std::make_unique<BpeTokenCounter>(std::string(encoding), std::move(code), jit);
}

}  // namespace

absl::StatusOr<std::unique_ptr<TokenCounter>> MakeBpeTokenCounter(std::string_view encoding,
                                                                  const std::string& ranks_path,
                                                                  const std::string& cache_path) {
  absl::StatusOr<std::unique_ptr<BpeTokenCounter>> counter = NewCounter(encoding);
  if (!counter.ok()) return counter.status();
  if (absl::Status status = (*counter)->Load(ranks_path, cache_path); !status.ok()) {
    return status;
  }
  return std::unique_ptr<TokenCounter>(std::move(*counter));
}

absl::StatusOr<std::vector<std::string_view>> SplitPieces(std::string_view encoding,
                                                          std::string_view text, bool fast) {
  absl::StatusOr<std::unique_ptr<BpeTokenCounter>> counter = NewCounter(encoding);
  if (!counter.ok()) return counter.status();
  std::vector<std::string_view> pieces;
  (*counter)->Split(text, fast, [&](std::string_view piece, bool) { pieces.push_back(piece); });
  return pieces;
}

}  // namespace plugline::core
