#include "core/guard_records.h"

#include <algorithm>

#include "core/fs.h"
#include "core/state_file.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

absl::Status Validate(const Value& doc) {
  const Value* plugins = doc.Find("plugins");
  if (plugins == nullptr) return absl::OkStatus();
  if (absl::Status s = ExpectObject(*plugins, "plugins"); !s.ok()) return s;
  for (const auto& [folder, record] : plugins->as_object()) {
    const std::string where = StrCat("plugins.", folder);
    if (absl::Status s = ExpectObject(record, where); !s.ok()) return s;
    const Value* id = record.Find("id");
    const Value* fail_closed = record.Find("fail_closed");
    const Value* protect = record.Find("protected");
    if (id == nullptr || fail_closed == nullptr || protect == nullptr) {
      return absl::InvalidArgumentError(StrCat("`", where, "` needs id, fail_closed and protected"));
    }
    if (absl::Status s = ExpectString(*id, StrCat(where, ".id")); !s.ok()) return s;
    if (absl::Status s = ExpectBool(*fail_closed, StrCat(where, ".fail_closed")); !s.ok()) return s;
    if (absl::Status s = ExpectBool(*protect, StrCat(where, ".protected")); !s.ok()) return s;
    if (const Value* source = record.Find("source"); source != nullptr) {
      if (absl::Status s = ExpectString(*source, StrCat(where, ".source")); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

StateFile File(const std::string& path) {
  StateFileOptions options;
  options.path = path;
  options.version = 1;
  options.validate = Validate;
  // A lost record only weakens a safety net; no fsync on the command's path.
  options.durability = Durability::kNone;
  return StateFile(std::move(options));
}

Value ToValue(const GuardRecord& record) {
  Value value(ValueObject{});
  value.Set("id", Value(record.id));
  value.Set("fail_closed", Value(record.fail_closed));
  value.Set("protected", Value(record.protect));
  if (!record.source.empty()) value.Set("source", Value(record.source));
  return value;
}

GuardRecord FromValue(const Value& value) {
  GuardRecord record;
  record.id = value.Find("id")->as_string();
  record.fail_closed = value.Find("fail_closed")->as_bool();
  record.protect = value.Find("protected")->as_bool();
  if (const Value* source = value.Find("source"); source != nullptr) record.source = source->as_string();
  return record;
}

std::optional<GuardRecord> Lookup(const Value& doc, const std::string& folder) {
  const Value* plugins = doc.Find("plugins");
  const Value* found = plugins != nullptr ? plugins->Find(folder) : nullptr;
  if (found == nullptr) return std::nullopt;
  return FromValue(*found);
}

}  // namespace

GuardRecords::GuardRecords(std::string home)
    : home_(std::move(home)), path_(JoinPath(home_, "guards.json")) {}

const Value& GuardRecords::Doc(std::vector<std::string>* warnings) {
  if (!doc_.has_value()) {
    absl::StatusOr<Value> read = File(path_).Read(warnings);
    if (!read.ok()) {
      if (warnings != nullptr) warnings->push_back(std::string(read.status().message()));
      doc_.emplace(ValueObject{});
    } else {
      doc_ = *std::move(read);
    }
  }
  return *doc_;
}

std::optional<GuardRecord> GuardRecords::Find(const std::string& folder,
                                              std::vector<std::string>* warnings) {
  absl::MutexLock lock(&mu_);
  return Lookup(Doc(warnings), folder);
}

std::vector<std::pair<std::string, GuardRecord>> GuardRecords::FailClosed(
    std::vector<std::string>* warnings) {
  absl::MutexLock lock(&mu_);
  std::vector<std::pair<std::string, GuardRecord>> out;
  const Value* plugins = Doc(warnings).Find("plugins");
  if (plugins == nullptr || !plugins->is_object()) return out;
  for (const auto& [folder, value] : plugins->as_object()) {
    GuardRecord record = FromValue(value);
    if (record.fail_closed && IsDirectory(folder)) out.emplace_back(folder, std::move(record));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

void GuardRecords::Loaded(const std::string& folder, const GuardRecord& record,
                          std::vector<std::string>* warnings) {
  absl::MutexLock lock(&mu_);
  const bool remember = record.fail_closed || record.protect;
  std::optional<GuardRecord> stored = Lookup(Doc(warnings), folder);
  if (remember ? stored == record : !stored.has_value()) return;
  if (absl::Status s = MakeDirs(home_); !s.ok()) {
    if (warnings != nullptr) warnings->push_back(std::string(s.message()));
    return;
  }
  Value written;
  absl::Status status = File(path_).Update(
      [&](Value& doc) {
        Value plugins(ValueObject{});
        if (const Value* old = doc.Find("plugins"); old != nullptr) {
          for (const auto& [path, value] : old->as_object()) {
            if (path == folder || !PathExists(path)) continue;
            plugins.Set(path, value);
          }
        }
        if (remember) plugins.Set(folder, ToValue(record));
        doc.Set("plugins", std::move(plugins));
        written = doc;
        return absl::OkStatus();
      },
      warnings);
  if (!status.ok()) {
    if (warnings != nullptr) warnings->push_back(std::string(status.message()));
    return;
  }
  doc_ = std::move(written);
}

void GuardRecords::Load(std::vector<std::string>* warnings) {
  absl::MutexLock lock(&mu_);
  doc_.reset();
  Doc(warnings);
}

}  // namespace plugline::core
