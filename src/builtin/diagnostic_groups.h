// Many diagnostics, few messages: a compiler or linter that reports 1,500 errors repeats a
// handful of messages with other names in quotes. DiagnosticGroups groups diagnostics whose
// kind (severity and code) is the same and whose messages differ only in their quoted names
// and numbers. The caller shows the first of each group in full, as the tool printed it; the
// others become lines of locations after it, each with the names its message had where they
// differ from the first's:
//
//   src/a.ts(3,5): error TS2304: Cannot find name 'taxRate2'.
//   … 186 more TS2304, names differing, at: src/b.ts(9,12) 'taxRate3'; src/c.ts(14,2) 'rate'; …
//
// Every location and code survives, and every quoted name; what is left out is the repeated
// message text and the followers' message chains and code frames (counted). Locations are
// given as printed ("src/a.ts(3,5)", "src/a.c:12:5"), so each stays a substring of the output.
//
// Some compilers name what a message is about on labelled lines under it, not in quotes
// (javac: "cannot find symbol" then "  symbol:   variable total", "  location: class Order").
// Such lines, given as details, are part of the message: their labels join the group's key,
// their values are names like quoted ones, and an entry gives those that differ in
// parentheses: "src/Cart.java:7 (method addd(String), class Cart)".
#ifndef PLUGLINE_BUILTIN_DIAGNOSTIC_GROUPS_H_
#define PLUGLINE_BUILTIN_DIAGNOSTIC_GROUPS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "builtin/common.h"
#include "core/summary_budget.h"

namespace plugline::builtin {

// A message with each quoted name ('x', "x", `x`, ‘x’, “x”) and each number (with its minus
// sign) masked; `fillers` are what was masked, in order (views into the message).
using Fillers = absl::InlinedVector<std::string_view, 2>;
struct MessageShape {
  std::string key;
  Fillers fillers;
};
MessageShape ShapeOfMessage(std::string_view message);

// An indented labelled line under a diagnostic ("  symbol:   variable total", "  location:
// class Order"): its label and value; nothing when the line is not one (a label is one to
// three words of letters, a colon, then space and a value).
struct LabelledDetail {
  std::string_view label;
  std::string_view value;
};
std::optional<LabelledDetail> ParseLabelledDetail(std::string_view line);
// Line `i` of a diagnostic whose lines end before `end`, as a labelled detail — not when the
// line after it is carets (a source line that happens to look like one).
std::optional<LabelledDetail> LabelledDetailAt(const std::vector<std::string_view>& lines,
                                               size_t i, size_t end);
// The labelled details among lines [begin, end) of a diagnostic, in `out` (cleared first).
void LabelledDetails(const std::vector<std::string_view>& lines, size_t begin, size_t end,
                     std::vector<LabelledDetail>* out);
// The same, appended to `key` and `fillers` (a caller shaping many messages reuses them).
void AppendShapeOfMessage(std::string_view message, std::string* key, Fillers* fillers);

// Problems of more than kTallyCodes codes: one marker that counts them by code, most first
// ("… 1,034 problems by code: Style/ClassAndModuleChildren 94, Style/CommentedKeyword 79, …",
// up to kTallyMaxCodes codes), so that every code is named when a budget leaves groups out.
// `codes` has one entry per problem (empty: a problem without a code, not counted).
inline constexpr size_t kTallyCodes = 3;
inline constexpr size_t kTallyMaxCodes = 200;
void WriteCodeTally(const std::vector<std::string_view>& codes, SummaryWriter& out);

// The first line of a list of followers: "… 186 more TS2304 at: " (", names differing," when
// their names differ: each entry then gives its names at the positions that differ somewhere
// in the group, in order, up to the last that is not the first's — the names it does not give
// are the first's); its further lines: "… TS2304 also at: ". Entries are separated by "; " (the
// list vocabulary of core/summary_budget.h, which ranks them).
inline constexpr size_t kFollowersPerLine = 12;

// Writes `count` entries as a list of locations: "… <first>" then the first kFollowersPerLine
// entries, and "… <continuation>" lines for the rest; `entry(i, &text)` appends entry `i`. The
// first line stands for `lines` lines of the output (SummaryWriter::Marker).
template <typename Entry>
void WriteLocationList(std::string_view first, std::string_view continuation, size_t count,
                       uint64_t lines, SummaryWriter& out, Entry entry) {
  std::string text(first);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0 && i % kFollowersPerLine == 0) {
      out.Marker(text, lines);
      lines = 0;
      text.assign(continuation);
    } else if (i > 0) {
      text.append(core::kListSeparator);
    }
    entry(i, &text);
  }
  if (count > 0) out.Marker(text, lines);
}

class DiagnosticGroups {
 public:
  // Adds the next diagnostic (indices count from 0 in the order added): `kind` (its severity
  // and code, "error TS2304"), `label` (what its group's lists call them: "TS2304", "errors
  // like it", a lint rule; diagnostics of one group share both), its message (the header
  // without the location and kind), its location as printed, and `details`, the labelled
  // lines under it (ParseLabelledDetail). The views must outlive the groups.
  //
  // kVerbatim: the diagnostic starts a group of its own unless one before it had the same
  // kind, message and details to the letter — its names do not make it like others (a caller
  // shows it in full, where its names are read in its own words). Any diagnostic added later
  // whose message is to the letter that of a verbatim group's goes to that group.
  // kRepeatOnly: the diagnostic is added only to such a group; false when there is none.
  enum class Grouping { kByShape, kVerbatim, kRepeatOnly };
  bool Add(std::string_view kind, std::string_view label, std::string_view message,
           std::string_view where, std::span<const LabelledDetail> details = {},
           Grouping grouping = Grouping::kByShape);

  size_t size() const { return members_.size(); }
  size_t groups() const { return groups_.size(); }
  // Whether diagnostic `index` is the first of its group.
  bool Leads(size_t index) const;
  // The first of the group of diagnostic `index`.
  size_t LeaderOf(size_t index) const { return groups_[members_[index].group].members.front(); }
  // How many diagnostics follow the leader `index` in its group.
  size_t Followers(size_t index) const;
  // What an entry of diagnostic `index` gives after its location: " 'taxRate3'" — its names
  // at the positions that differ within its group, up to the last that is not the first's
  // (the rest are the first's), then its details' values that differ, in parentheses
  // (" (variable total, class Order)"); "" when none differ.
  std::string Names(size_t index) const;
  // Writes the followers of the leader `index` as location lines (nothing when it has none).
  // `lines_of(index)` is how many output lines a follower's diagnostic spans, for the writer's
  // accounting of the lines a marker stands for.
  template <typename LinesOf>
  void WriteFollowers(size_t index, SummaryWriter& out, LinesOf lines_of) const {
    const Group& g = groups_[members_[index].group];
    uint64_t lines = 0;
    for (size_t k = 1; k < g.members.size(); ++k) lines += lines_of(g.members[k]);
    WriteFollowerLines(g, lines, out);
  }

 private:
  struct Member {
    uint32_t group = 0;
    std::string_view where;
    Fillers fillers;          // the message's names, then the details' values
    uint32_t in_message = 0;  // how many of the fillers are the message's
  };
  struct Group {
    std::string_view label;
    std::vector<uint32_t> members;  // the leader first
  };
  void WriteFollowerLines(const Group& g, uint64_t lines, SummaryWriter& out) const;
  // Per group, the positions of the names that differ somewhere in it (computed once, when
  // the first list is written: every diagnostic has been added by then).
  const std::vector<bool>& Varies(uint32_t group) const;

  std::vector<Member> members_;
  std::vector<Group> groups_;
  absl::flat_hash_map<std::string, uint32_t> index_;
  mutable std::vector<std::vector<bool>> varies_;
  std::string scratch_;  // the key being built
  std::string exact_;    // the key of the message to the letter, while verbatim groups exist
  size_t verbatim_groups_ = 0;
};

}  // namespace plugline::builtin

#endif  // PLUGLINE_BUILTIN_DIAGNOSTIC_GROUPS_H_
