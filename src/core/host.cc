// plugline::Host: wires configuration, the output store, the token counter and the shapers.
#include "plugline/host.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "builtin/builtin_shapers.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/output_store.h"
#include "core/shaping_pipeline.h"
#include "core/stats.h"
#include "core/text.h"
#include "core/tokens.h"
#include "core/version.h"

namespace plugline {

std::string_view VersionString() { return core::kVersionString; }

std::string ShapeResult::ToJson() const {
  core::JsonWriter w;
  w.BeginObject();
  w.Key("summary").String(summary);
  w.Key("render_mode").String(render_mode == RenderMode::kRaw ? "raw" : "summary");
  w.Key("shaper").String(shaper);
  w.Key("confidence").Double(confidence);
  w.Key("raw_path");
  if (raw_path.empty()) {
    w.Null();
  } else {
    w.String(raw_path);
  }
  w.Key("raw_bytes").Int(static_cast<int64_t>(raw_bytes));
  w.Key("raw_lines").Int(static_cast<int64_t>(raw_lines));
  w.Key("tokens_raw").Int(static_cast<int64_t>(tokens_raw));
  w.Key("tokens_summary").Int(static_cast<int64_t>(tokens_summary));
  w.Key("fallback");
  if (fallback) {
    w.String(*fallback);
  } else {
    w.Null();
  }
  w.EndObject();
  return w.Take();
}

struct Host::Impl {
  HostOptions options;
  std::string home;
  std::vector<std::string> diagnostics;
  core::Config config;
  std::unique_ptr<core::TokenCounter> counter;
  std::unique_ptr<core::OutputStore> outputs;
  std::unique_ptr<core::ShaperPipeline> pipeline;
  std::unique_ptr<core::StatsStore> stats;
};

Host::Host(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Host::~Host() = default;

absl::StatusOr<std::unique_ptr<Host>> Host::Create(HostOptions options) {
  auto impl = std::make_unique<Impl>();
  absl::StatusOr<std::string> home = core::ResolveHome(options.home);
  if (!home.ok()) return home.status();
  impl->home = *home;
  impl->config = core::LoadConfig(impl->home, options.project_dir, &impl->diagnostics);
  impl->counter = options.token_counter
                      ? core::MakeFunctionTokenCounter(options.token_counter)
                      : core::MakeEstimateTokenCounter();
  if (options.store_outputs) {
    impl->outputs = std::make_unique<core::OutputStore>(core::JoinPath(impl->home, "outputs"),
                                                        impl->config.outputs);
  }
  impl->stats = std::make_unique<core::StatsStore>(impl->home);
  impl->pipeline = std::make_unique<core::ShaperPipeline>(impl->counter.get());
  for (auto& shaper : builtin::MakeBuiltinShapers()) impl->pipeline->Add(std::move(shaper));
  impl->options = std::move(options);
  return std::unique_ptr<Host>(new Host(std::move(impl)));
}

absl::StatusOr<ShapeResult> Host::Shape(const ShapeRequest& request) {
  if (!core::IsValidUtf8(request.command)) {
    return absl::InvalidArgumentError("command is not valid UTF-8");
  }
  core::RawOutputLocation raw;
  if (impl_->outputs) {
    absl::StatusOr<std::string> path = impl_->outputs->Store(request.output);
    if (path.ok()) {
      raw.path = *std::move(path);
    } else {
      raw.store_error = std::string(path.status().message());
    }
  }
  core::ShapeTrace trace;
  absl::StatusOr<ShapeResult> result = impl_->pipeline->Run(request, raw, &trace);
  if (result.ok() && impl_->options.record_stats && impl_->config.stats_enabled) {
    // Statistics are best effort: a read-only home must not fail shaping.
    impl_->stats->Record(trace, absl::Now()).IgnoreError();
  }
  return result;
}

absl::StatusOr<std::string> Host::StatsJson() const {
  absl::StatusOr<core::Value> stats = impl_->stats->Load();
  if (!stats.ok()) return stats.status();
  return core::ToJson(*stats);
}

const std::string& Host::home() const { return impl_->home; }
const std::vector<std::string>& Host::diagnostics() const { return impl_->diagnostics; }

}  // namespace plugline
