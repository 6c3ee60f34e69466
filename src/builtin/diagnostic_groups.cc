#include "builtin/diagnostic_groups.h"

#include <algorithm>
#include <cctype>

#include "core/strings.h"

namespace plugline::builtin {
namespace {

bool IsWordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The end (one past the closing quote) of a quoted name opening at `i`, or 0.
size_t QuotedEnd(std::string_view s, size_t i) {
  const char c = s[i];
  if (c == '\'' || c == '"' || c == '`') {
    if (i > 0 && IsWordByte(s[i - 1])) return 0;  // "doesn't"
    for (size_t j = s.find(c, i + 1); j != std::string_view::npos; j = s.find(c, j + 1)) {
      if (j + 1 == s.size() || !std::isalnum(static_cast<unsigned char>(s[j + 1]))) return j + 1;
    }
    return 0;
  }
  // ‘x’ and “x” (GCC and Clang in a UTF-8 locale).
  if (c == '\xE2' && i + 2 < s.size() && s[i + 1] == '\x80' &&
      (s[i + 2] == '\x98' || s[i + 2] == '\x9C')) {
    const std::string_view close = s[i + 2] == '\x98' ? "\xE2\x80\x99" : "\xE2\x80\x9D";
    const size_t j = s.find(close, i + 3);
    return j == std::string_view::npos ? 0 : j + close.size();
  }
  return 0;
}

// The end of a number starting at `i` ("3", "2.5", "1,024"), or 0 when none starts there.
size_t NumberEnd(std::string_view s, size_t i) {
  if (!IsDigit(s[i]) || (i > 0 && (IsWordByte(s[i - 1]) || s[i - 1] == '.'))) return 0;
  size_t j = i;
  while (j < s.size() &&
         (IsDigit(s[j]) || ((s[j] == '.' || s[j] == ',') && j + 1 < s.size() && IsDigit(s[j + 1])))) {
    ++j;
  }
  return j < s.size() && IsWordByte(s[j]) ? 0 : j;
}

// The end of a dotted name starting at `i` ("span.cntrl", ".cntrl", "div#generating_info",
// "java.lang.String", "tr.no-previous": word bytes with a '.' or '#' between them or before
// them, and '-' between them), or 0.
size_t DottedNameEnd(std::string_view s, size_t i) {
  if (i > 0 && (IsWordByte(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '#')) return 0;
  size_t j = i;
  bool dot = false;
  while (j < s.size()) {
    if (IsWordByte(s[j])) {
      ++j;
    } else if ((s[j] == '.' || s[j] == '#') && j + 1 < s.size() && IsWordByte(s[j + 1])) {
      dot = true;
      ++j;
    } else if (s[j] == '-' && j > i && IsWordByte(s[j - 1]) && j + 1 < s.size() &&
               IsWordByte(s[j + 1])) {
      ++j;
    } else {
      break;
    }
  }
  return dot ? j : 0;
}

}  // namespace

void AppendShapeOfMessage(std::string_view message, std::string* key, Fillers* fillers) {
  size_t i = 0, plain = 0;  // message[plain, i) is copied as it is
  while (i < message.size()) {
    const char c = message[i];
    // Only these can start a name or a number.
    // A minus sign goes with its number ("Encode(-42, 2)"), not one inside a word ("utf-8").
    const bool sign = c == '-' && i + 1 < message.size() && IsDigit(message[i + 1]) &&
                      (i == 0 || (!IsWordByte(message[i - 1]) && message[i - 1] != '.' &&
                                  message[i - 1] != '-'));
    if (c != '\'' && c != '"' && c != '`' && c != '\xE2' && !IsDigit(c) && !sign &&
        !IsWordByte(c) && c != '.' && c != '#') {
      ++i;
      continue;
    }
    size_t end = sign ? NumberEnd(message, i + 1) : QuotedEnd(message, i);
    if (end == 0 && !sign) end = NumberEnd(message, i);
    if (end == 0 && !sign) end = DottedNameEnd(message, i);
    if (end == 0) {
      ++i;
      continue;
    }
    key->append(message.substr(plain, i - plain));
    key->push_back('\x01');
    fillers->push_back(message.substr(i, end - i));
    i = plain = end;
  }
  key->append(message.substr(plain));
}

MessageShape ShapeOfMessage(std::string_view message) {
  MessageShape shape;
  AppendShapeOfMessage(message, &shape.key, &shape.fillers);
  return shape;
}

std::optional<LabelledDetail> ParseLabelledDetail(std::string_view line) {
  if (line.empty() || (line[0] != ' ' && line[0] != '\t')) return std::nullopt;
  const size_t start = line.find_first_not_of(" \t");
  const size_t colon = line.find(':', start);
  if (start == std::string_view::npos || colon == std::string_view::npos) return std::nullopt;
  const std::string_view label = line.substr(start, colon - start);
  int words = 1;
  for (size_t i = 0; i < label.size(); ++i) {
    const char c = label[i];
    if (c == ' ') {
      if (i == 0 || label[i - 1] == ' ' || ++words > 3) return std::nullopt;
    } else if (!std::isalpha(static_cast<unsigned char>(c))) {
      return std::nullopt;
    }
  }
  if (label.empty() || label.back() == ' ') return std::nullopt;
  // Space after the colon, then the value ("symbol:   variable total").
  if (colon + 1 >= line.size() || (line[colon + 1] != ' ' && line[colon + 1] != '\t')) {
    return std::nullopt;
  }
  const size_t value_start = line.find_first_not_of(" \t", colon + 1);
  if (value_start == std::string_view::npos) return std::nullopt;
  const size_t value_end = line.find_last_not_of(" \t\r");
  return LabelledDetail{label, line.substr(value_start, value_end + 1 - value_start)};
}

std::optional<LabelledDetail> LabelledDetailAt(const std::vector<std::string_view>& lines,
                                               size_t i, size_t end) {
  if (i + 1 < end && IsCaretsOnly(lines[i + 1])) return std::nullopt;
  return ParseLabelledDetail(lines[i]);
}

void LabelledDetails(const std::vector<std::string_view>& lines, size_t begin, size_t end,
                     std::vector<LabelledDetail>* out) {
  out->clear();
  for (size_t i = begin; i < end; ++i) {
    if (std::optional<LabelledDetail> d = LabelledDetailAt(lines, i, end)) out->push_back(*d);
  }
}

bool DiagnosticGroups::Add(std::string_view kind, std::string_view label, std::string_view message,
                           std::string_view where, std::span<const LabelledDetail> details,
                           Grouping grouping) {
  const bool verbatim = grouping == Grouping::kVerbatim;
  scratch_.assign(kind);
  scratch_.push_back('\x1f');
  scratch_.append(label);
  scratch_.push_back('\x1f');
  Fillers fillers;
  AppendShapeOfMessage(message, &scratch_, &fillers);
  const auto in_message = static_cast<uint32_t>(fillers.size());
  for (const LabelledDetail& d : details) {
    scratch_.push_back('\x1f');
    scratch_.append(d.label);
    scratch_.push_back('\x01');
    fillers.push_back(d.value);
  }
  auto it = index_.end();
  if (grouping != Grouping::kByShape || verbatim_groups_ > 0) {
    // The key to the letter: a masked key never starts with '\x02', so the two never meet.
    exact_.assign("\x02");
    StrAppend(&exact_, kind, "\x1f", label, "\x1f", message);
    for (const LabelledDetail& d : details) StrAppend(&exact_, "\x1f", d.label, "\x01", d.value);
    it = index_.find(exact_);
    if (it == index_.end() && verbatim) {
      it = index_.emplace(exact_, static_cast<uint32_t>(groups_.size())).first;
      groups_.push_back(Group{label, {}});
      ++verbatim_groups_;
    }
  }
  if (it == index_.end() && grouping == Grouping::kRepeatOnly) return false;
  if (it == index_.end()) it = index_.find(scratch_);
  if (it == index_.end()) {
    it = index_.emplace(scratch_, static_cast<uint32_t>(groups_.size())).first;
    groups_.push_back(Group{label, {}});
  }
  groups_[it->second].members.push_back(static_cast<uint32_t>(members_.size()));
  members_.push_back(Member{it->second, where, std::move(fillers), in_message});
  return true;
}

bool DiagnosticGroups::Leads(size_t index) const {
  return groups_[members_[index].group].members.front() == index;
}

size_t DiagnosticGroups::Followers(size_t index) const {
  const Group& g = groups_[members_[index].group];
  return g.members.front() == index ? g.members.size() - 1 : 0;
}

const std::vector<bool>& DiagnosticGroups::Varies(uint32_t group) const {
  if (varies_.empty()) {
    varies_.resize(groups_.size());
    for (size_t k = 0; k < groups_.size(); ++k) {
      const Group& g = groups_[k];
      const Member& leader = members_[g.members.front()];
      std::vector<bool>& varies = varies_[k];
      varies.assign(leader.fillers.size(), false);
      for (size_t j = 1; j < g.members.size(); ++j) {
        const Member& m = members_[g.members[j]];
        for (size_t f = 0; f < varies.size() && f < m.fillers.size(); ++f) {
          if (m.fillers[f] != leader.fillers[f]) varies[f] = true;
        }
      }
    }
  }
  return varies_[group];
}

std::string DiagnosticGroups::Names(size_t index) const {
  const Member& m = members_[index];
  const Group& g = groups_[m.group];
  const Member& leader = members_[g.members.front()];
  const std::vector<bool>& varies = Varies(m.group);
  // The names at the positions that vary, but for the last ones that are the first's.
  size_t last = m.fillers.size();
  while (last > 0 && last - 1 < leader.fillers.size() &&
         m.fillers[last - 1] == leader.fillers[last - 1]) {
    --last;
  }
  std::string names;
  bool in_details = false;
  for (size_t f = 0; f < last; ++f) {
    if (f < varies.size() && !varies[f]) continue;
    if (f < m.in_message) {
      StrAppend(&names, " ", m.fillers[f]);
    } else {
      StrAppend(&names, in_details ? ", " : " (", m.fillers[f]);
      in_details = true;
    }
  }
  if (in_details) names.push_back(')');
  return names;
}

void DiagnosticGroups::WriteFollowerLines(const Group& g, uint64_t lines, SummaryWriter& out) const {
  if (g.members.size() < 2) return;
  const std::vector<bool>& varies = Varies(members_[g.members.front()].group);
  const bool names_differ = std::find(varies.begin(), varies.end(), true) != varies.end();
  // "1 more error like it", not "errors like it".
  std::string_view label = g.label;
  std::string one;
  if (g.members.size() == 2 && label.ends_with("s like it")) {
    one = StrCat(label.substr(0, label.size() - 9), " like it");
    label = one;
  }
  if (!names_differ && std::all_of(g.members.begin() + 1, g.members.end(),
                                   [&](uint32_t k) { return members_[k].where.empty(); })) {
    // None located (their location lines taken out: `oxlint | grep error`): counted.
    out.Marker(StrCat(core::FormatCount(g.members.size() - 1), " more ", label,
                      " (their locations are not in the output)"),
               lines);
    return;
  }
  // The entries; a run of one entry repeated (Free Pascal's "Found declaration: f(…)" at the
  // same place after each wrong call) once, with its count: "a.pas(17,10) ×6".
  std::vector<std::string> entries;
  std::string entry;
  size_t run = 0;
  auto flush = [&] {
    if (run > 1) StrAppend(&entries.back(), " ×", run);
  };
  for (size_t i = 1; i < g.members.size(); ++i) {
    const uint32_t k = g.members[i];
    const std::string_view where = members_[k].where;
    entry = StrCat(where.empty() ? std::string_view("(no file)") : where, Names(k));
    if (run > 0 && entries.back() == entry) {
      ++run;
      continue;
    }
    flush();
    entries.push_back(entry);
    run = 1;
  }
  flush();
  WriteLocationList(StrCat(core::FormatCount(g.members.size() - 1), " more ", label,
                           names_differ ? ", names differing," : "", core::kListAt),
                    StrCat(g.label, core::kListAlsoAt), entries.size(), lines, out,
                    [&](size_t i, std::string* text) { text->append(entries[i]); });
}

void WriteCodeTally(const std::vector<std::string_view>& codes, SummaryWriter& out) {
  absl::flat_hash_map<std::string_view, size_t> index;
  std::vector<std::pair<std::string_view, uint64_t>> counts;  // in order of first appearance
  uint64_t coded = 0;
  for (std::string_view code : codes) {
    if (code.empty()) continue;
    ++coded;
    const auto [it, added] = index.try_emplace(code, counts.size());
    if (added) counts.emplace_back(code, 0);
    ++counts[it->second].second;
  }
  if (counts.size() <= kTallyCodes) return;
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text = StrCat(coded == 1 ? "problem" : "problems", core::kTallyBy);
  for (size_t i = 0; i < counts.size() && i < kTallyMaxCodes; ++i) {
    StrAppend(&text, i > 0 ? ", " : "", counts[i].first, " ", core::FormatCount(counts[i].second));
  }
  if (counts.size() > kTallyMaxCodes) {
    StrAppend(&text, ", and ", core::FormatCount(counts.size() - kTallyMaxCodes), " more codes");
  }
  out.Elided(coded, text);
}

}  // namespace plugline::builtin
