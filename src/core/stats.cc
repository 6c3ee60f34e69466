#include "core/stats.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "core/fs.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

Value* Child(Value& parent, std::string_view key) {
  if (parent.Find(key) == nullptr) parent.Set(key, Value(ValueObject{}));
  for (auto& [k, v] : parent.as_object()) {
    if (k == key) return &v;
  }
  return nullptr;
}

void AddNumber(Value& object, std::string_view key, double delta) {
  const Value* old = object.Find(key);
  double base = old != nullptr && old->is_number() ? old->as_number() : 0;
  object.Set(key, Value(base + delta));
}

// "2026-11-29": the keys of `daily` sort by time only in this form.
bool IsIsoDate(std::string_view key) {
  if (key.size() != 10 || key[4] != '-' || key[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(key[i]))) return false;
  }
  return true;
}

using Check = absl::Status (*)(const Value&, std::string_view);

// Checks the members of `object` named in `fields` that are present.
absl::Status CheckFields(const Value& object, std::string_view where,
                         std::initializer_list<std::pair<std::string_view, Check>> fields) {
  for (const auto& [key, check] : fields) {
    const Value* v = object.Find(key);
    if (v == nullptr) continue;
    if (absl::Status s = check(*v, StrCat(where, ".", key)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateStats(const Value& doc) {
  if (const Value* shapers = doc.Find("shapers")) {
    if (absl::Status s = ExpectObject(*shapers, "shapers"); !s.ok()) return s;
    for (const auto& [id, shaper] : shapers->as_object()) {
      const std::string where = StrCat("shapers.", id);
      if (absl::Status s = ExpectObject(shaper, where); !s.ok()) return s;
      absl::Status s = CheckFields(shaper, where,
                                   {{"match_count", ExpectCount},
                                    {"shape_count", ExpectCount},
                                    {"fail_count", ExpectCount},
                                    {"match_fail_count", ExpectCount},
                                    {"tokens_saved", ExpectInteger},
                                    {"shape_ms_total", ExpectNonNegative}});
      if (!s.ok()) return s;
    }
  }
  if (const Value* daily = doc.Find("daily")) {
    if (absl::Status s = ExpectObject(*daily, "daily"); !s.ok()) return s;
    for (const auto& [day, buckets] : daily->as_object()) {
      if (!IsIsoDate(day)) {
        return absl::InvalidArgumentError(
            StrCat("`daily` keys must be dates (YYYY-MM-DD), not \"", day, "\""));
      }
      const std::string where = StrCat("daily.", day);
      if (absl::Status s = ExpectObject(buckets, where); !s.ok()) return s;
      for (const auto& [id, bucket] : buckets.as_object()) {
        const std::string bucket_where = StrCat(where, ".", id);
        if (absl::Status s = ExpectObject(bucket, bucket_where); !s.ok()) return s;
        absl::Status s = CheckFields(bucket, bucket_where,
                                     {{"shapes", ExpectCount},
                                      {"tokens_raw", ExpectCount},
                                      {"tokens_saved", ExpectInteger}});
        if (!s.ok()) return s;
      }
    }
  }
  if (const Value* commands = doc.Find("commands")) {
    if (absl::Status s = ExpectObject(*commands, "commands"); !s.ok()) return s;
    for (const auto& [key, c] : commands->as_object()) {
      const std::string where = StrCat("commands.", key);
      if (absl::Status s = ExpectObject(c, where); !s.ok()) return s;
      absl::Status s = CheckFields(c, where,
                                   {{"shapes", ExpectCount},
                                    {"tokens_raw", ExpectCount},
                                    {"tokens_saved", ExpectInteger},
                                    {"shaper", ExpectString}});
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

StatsStore::StatsStore(std::string home)
    : home_(std::move(home)),
      file_(StateFileOptions{JoinPath(home_, "stats.json"), JoinPath(home_, "stats.lock"),
                             kStatsVersion, ValidateStats, Durability::kNone}) {}

namespace {

// Adds one shaping to the stats document `root` (checked by ValidateStats).
void AddShaping(Value& root, const ShapeTrace& trace, absl::Time when) {
  // ValidateStats has checked every member used here: each is absent or an object.
  Value* shapers = Child(root, "shapers");
  for (const std::string& id : trace.matched) {
    AddNumber(*Child(*shapers, id), "match_count", 1);
  }
  for (const std::string& id : trace.match_failed) {
    AddNumber(*Child(*shapers, id), "match_fail_count", 1);
  }
  if (trace.shaper.empty()) return;
  Value* s = Child(*shapers, trace.shaper);
  const double saved = static_cast<double>(trace.tokens_raw) -
                       static_cast<double>(trace.tokens_shaper_summary);
  if (trace.failed) {
    AddNumber(*s, "fail_count", 1);
  } else {
    AddNumber(*s, "shape_count", 1);
    AddNumber(*s, "tokens_saved", saved);
  }
  AddNumber(*s, "shape_ms_total", trace.shape_ms);

  std::string day = absl::FormatTime("%Y-%m-%d", when, absl::UTCTimeZone());
  Value* daily = Child(root, "daily");
  Value* bucket = Child(*Child(*daily, day), trace.shaper);
  AddNumber(*bucket, "shapes", 1);
  AddNumber(*bucket, "tokens_raw", static_cast<double>(trace.tokens_raw));
  if (!trace.failed) AddNumber(*bucket, "tokens_saved", saved);
  // Per command (its CommandKey), bounded: the ones that saved the least go first.
  if (!trace.failed && !trace.command.empty()) {
    Value* commands = Child(root, "commands");
    Value* c = Child(*commands, trace.command);
    AddNumber(*c, "shapes", 1);
    AddNumber(*c, "tokens_raw", static_cast<double>(trace.tokens_raw));
    AddNumber(*c, "tokens_saved", saved);
    c->Set("shaper", Value(trace.shaper));
    ValueObject& all = commands->as_object();
    if (all.size() > kStatsCommandsKept) {
      auto saved_of = [](const Value& v) {
        const Value* n = v.Find("tokens_saved");
        return n != nullptr && n->is_number() ? n->as_number() : 0.0;
      };
      std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
        return saved_of(a.second) > saved_of(b.second);
      });
      all.erase(all.begin() + static_cast<std::ptrdiff_t>(kStatsCommandsKept), all.end());
    }
  }
  // Bounded: the oldest days go first (keys are ISO dates, so they sort by time).
  ValueObject& days = daily->as_object();
  if (days.size() > static_cast<size_t>(kStatsDaysKept)) {
    std::sort(days.begin(), days.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    days.erase(days.begin(), days.end() - kStatsDaysKept);
  }
}

bool Counts(const ShapeTrace& trace) {
  return !trace.matched.empty() || !trace.shaper.empty() || !trace.match_failed.empty();
}

}  // namespace

absl::Status StatsStore::Record(const ShapeTrace& trace, absl::Time when,
                                std::vector<std::string>* warnings) {
  if (!Counts(trace)) return absl::OkStatus();
  return RecordAll({Queued{trace, when}}, warnings);
}

void StatsStore::Enqueue(ShapeTrace trace, absl::Time when) {
  if (!Counts(trace)) return;
  absl::MutexLock lock(&queue_mu_);
  queue_.push_back(Queued{std::move(trace), when});
}

absl::Status StatsStore::FlushQueued(std::vector<std::string>* warnings) {
  absl::MutexLock flushing(&flush_mu_);
  std::vector<Queued> shapings;
  {
    absl::MutexLock lock(&queue_mu_);
    shapings.swap(queue_);
  }
  if (shapings.empty()) return absl::OkStatus();
  return RecordAll(shapings, warnings);
}

absl::Status StatsStore::RecordAll(const std::vector<Queued>& shapings,
                                   std::vector<std::string>* warnings) {
  absl::Status made = MakeDirs(home_);
  if (!made.ok()) return made;
  return file_.Update(
      [&](Value& root) {
        for (const Queued& shaping : shapings) AddShaping(root, shaping.trace, shaping.when);
        return absl::OkStatus();
      },
      warnings);
}

absl::StatusOr<Value> StatsStore::Load(std::vector<std::string>* warnings) const {
  absl::StatusOr<Value> stats = file_.Read(warnings);
  if (!stats.ok()) return stats;
  Value* shapers = Child(*stats, "shapers");
  for (auto& [id, s] : shapers->as_object()) {
    const Value* count = s.Find("shape_count");
    const Value* total = s.Find("shape_ms_total");
    double n = count != nullptr && count->is_number() ? count->as_number() : 0;
    double ms = total != nullptr && total->is_number() ? total->as_number() : 0;
    s.Set("average_shape_ms", Value(n > 0 ? ms / n : 0.0));
  }
  return stats;
}

namespace {

double NumberOr0(const Value& object, std::string_view key) {
  const Value* v = object.Find(key);
  return v != nullptr && v->is_number() ? v->as_number() : 0;
}

int64_t WholeOr0(const Value& object, std::string_view key) {
  return static_cast<int64_t>(NumberOr0(object, key));
}

const ValueObject* ObjectOrNull(const Value& doc, std::string_view key) {
  const Value* v = doc.Find(key);
  return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace

plugline::Stats StatsFromValue(const Value& doc) {
  plugline::Stats stats;
  stats.version = static_cast<int64_t>(NumberOr0(doc, "version"));
  if (const ValueObject* shapers = ObjectOrNull(doc, "shapers")) {
    for (const auto& [id, s] : *shapers) {
      plugline::ShaperStats row;
      row.id = id;
      row.match_count = WholeOr0(s, "match_count");
      row.shape_count = WholeOr0(s, "shape_count");
      row.fail_count = WholeOr0(s, "fail_count");
      row.match_fail_count = WholeOr0(s, "match_fail_count");
      row.tokens_saved = WholeOr0(s, "tokens_saved");
      row.shape_ms_total = NumberOr0(s, "shape_ms_total");
      row.average_shape_ms = NumberOr0(s, "average_shape_ms");
      stats.shapers.push_back(std::move(row));
    }
  }
  if (const ValueObject* daily = ObjectOrNull(doc, "daily")) {
    for (const auto& [date, buckets] : *daily) {
      plugline::DailyStats day;
      day.date = date;
      if (buckets.is_object()) {
        for (const auto& [id, bucket] : buckets.as_object()) {
          day.shapers.push_back({id, WholeOr0(bucket, "shapes"), WholeOr0(bucket, "tokens_raw"),
                                 WholeOr0(bucket, "tokens_saved")});
        }
      }
      stats.daily.push_back(std::move(day));
    }
    std::stable_sort(stats.daily.begin(), stats.daily.end(),
                     [](const plugline::DailyStats& a, const plugline::DailyStats& b) {
                       return a.date < b.date;
                     });
  }
  if (const ValueObject* commands = ObjectOrNull(doc, "commands")) {
    for (const auto& [key, c] : *commands) {
      const Value* shaper = c.Find("shaper");
      stats.commands.push_back({key, shaper != nullptr && shaper->is_string() ? shaper->as_string() : "",
                                WholeOr0(c, "shapes"), WholeOr0(c, "tokens_raw"),
                                WholeOr0(c, "tokens_saved")});
    }
  }
  return stats;
}

}  // namespace plugline::core

namespace plugline {

std::string Stats::ToJson() const {
  core::JsonWriter w;
  w.BeginObject().Key("version").Int(version);
  w.Key("shapers").BeginObject();
  for (const ShaperStats& s : shapers) {
    w.Key(s.id).BeginObject();
    w.Key("match_count").Int(s.match_count).Key("shape_count").Int(s.shape_count);
    w.Key("fail_count").Int(s.fail_count).Key("match_fail_count").Int(s.match_fail_count);
    w.Key("tokens_saved").Int(s.tokens_saved).Key("shape_ms_total").Double(s.shape_ms_total);
    w.Key("average_shape_ms").Double(s.average_shape_ms);
    w.EndObject();
  }
  w.EndObject().Key("daily").BeginObject();
  for (const DailyStats& day : daily) {
    w.Key(day.date).BeginObject();
    for (const DailyShaperStats& b : day.shapers) {
      w.Key(b.shaper).BeginObject().Key("shapes").Int(b.shapes);
      w.Key("tokens_raw").Int(b.tokens_raw).Key("tokens_saved").Int(b.tokens_saved).EndObject();
    }
    w.EndObject();
  }
  w.EndObject().Key("commands").BeginObject();
  for (const CommandStats& c : commands) {
    w.Key(c.command).BeginObject().Key("shapes").Int(c.shapes);
    w.Key("tokens_raw").Int(c.tokens_raw).Key("tokens_saved").Int(c.tokens_saved);
    w.Key("shaper").String(c.shaper).EndObject();
  }
  w.EndObject().EndObject();
  return w.Take();
}

}  // namespace plugline
