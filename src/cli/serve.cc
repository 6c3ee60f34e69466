#include "cli/serve.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/wire.h"
#include "core/host_internal.h"
#include "core/output_store.h"
#include "core/strings.h"

namespace plugline::cli {
namespace {

std::string ErrorReply(std::string_view code, std::string_view message) {
  core::JsonWriter w;
  w.BeginObject().Key("ok").Bool(false).Key("error").BeginObject();
  w.Key("code").String(code).Key("message").String(message).EndObject().EndObject();
  return w.Take();
}

std::string CommandReply(int exit_code, const BufferOutput& io) {
  core::JsonWriter w;
  w.BeginObject().Key("ok").Bool(true).Key("exit").Int(exit_code).Key("output");
  wire::WriteChunks(io.chunks(), w);
  w.EndObject();
  return w.Take();
}

// A command's environment in the server: the client's directory, the pool's host for it.
struct ServedEnv {
  BufferOutput io;
  CommandEnv env;
  std::shared_ptr<Host> host;  // held for the request

  ServedEnv(server::HostPool& pool, const std::string& cwd) {
    env.io = &io;
    env.cwd = cwd;
    env.open_host = [this, &pool, cwd]() -> absl::StatusOr<Host*> {
      absl::StatusOr<std::shared_ptr<Host>> got = pool.Get(cwd);
      if (!got.ok()) return got.status();
      host = *std::move(got);
      return host.get();
    };
  }
};

absl::StatusOr<std::string> Cwd(const core::Value& request) {
  absl::StatusOr<std::string> cwd = wire::Text(request, "cwd");
  if (cwd.ok() && !cwd->starts_with("/")) {
    return absl::InvalidArgumentError("cwd: not an absolute path");
  }
  return cwd;
}

std::string Command(server::HostPool& pool, const core::Value& request) {
  absl::StatusOr<std::string> cwd = Cwd(request);
  absl::StatusOr<std::string> name = wire::Text(request, "name");
  if (!cwd.ok()) return ErrorReply("invalid_argument", ToStd(cwd.status().message()));
  if (!name.ok()) return ErrorReply("invalid_argument", ToStd(name.status().message()));
  if (!IsHostCommand(*name)) {
    return ErrorReply("invalid_argument", StrCat("the server does not run `", *name, "`"));
  }
  std::vector<std::string> args;
  const core::Value* list = request.Find("args");
  if (list == nullptr || !list->is_array()) {
    return ErrorReply("invalid_argument", "args: expected an array of strings");
  }
  for (const core::Value& arg : list->as_array()) {
    if (!arg.is_string()) return ErrorReply("invalid_argument", "args: expected strings");
    args.push_back(arg.as_string());
  }
  std::optional<std::string> stdin_data;
  if (request.Find("stdin") != nullptr) {
    absl::StatusOr<std::string> data = wire::Bytes(request, "stdin");
    if (!data.ok()) return ErrorReply("invalid_argument", ToStd(data.status().message()));
    stdin_data = *std::move(data);
  }
  ServedEnv served(pool, *cwd);
  if (stdin_data) served.env.stdin_data = &*stdin_data;
  const int exit_code = RunHostCommand(*name, args, served.env);
  return CommandReply(exit_code, served.io);
}

std::string Capture(server::HostPool& pool, const core::Value& request) {
  absl::StatusOr<std::string> cwd = Cwd(request);
  if (!cwd.ok()) return ErrorReply("invalid_argument", ToStd(cwd.status().message()));
  absl::StatusOr<std::shared_ptr<Host>> host = pool.Get(*cwd);
  if (!host.ok()) return ErrorReply("unavailable", ToStd(host.status().message()));
  core::JsonWriter w;
  w.BeginObject().Key("ok").Bool(true);
  wire::WriteSettings(internal::HostAccess::CaptureSettings(**host), w);
  w.EndObject();
  return w.Take();
}

std::string Shape(server::HostPool& pool, const core::Value& request,
                  const std::function<void(std::function<void()>)>& later,
                  const std::function<void(std::shared_ptr<Host>)>& stats_queued) {
  absl::StatusOr<std::string> cwd = Cwd(request);
  absl::StatusOr<std::string> command = wire::Text(request, "command");
  absl::StatusOr<std::string> shaper = wire::Text(request, "shaper");
  for (const absl::Status& s : {cwd.status(), command.status(), shaper.status()}) {
    if (!s.ok()) return ErrorReply("invalid_argument", ToStd(s.message()));
  }
  std::optional<int> exit_code;
  if (const core::Value* code = request.Find("exit_code"); code != nullptr && !code->is_null()) {
    std::optional<int64_t> n = code->as_integer();
    if (!n) return ErrorReply("invalid_argument", "exit_code: expected an integer or null");
    exit_code = static_cast<int>(*n);
  }
  const core::Value* output = request.Find("captured");
  if (output == nullptr) return ErrorReply("invalid_argument", "captured: missing");
  absl::StatusOr<core::CapturedOutput> captured = wire::ReadCaptured(*output);
  if (!captured.ok()) return ErrorReply("invalid_argument", ToStd(captured.status().message()));
  const bool run = wire::Flag(request, "run");
  ShapeFlags flags;
  flags.json = wire::Flag(request, "json");
  flags.shaper = *shaper;
  if (const core::Value* max = request.Find("max_tokens"); max != nullptr && !max->is_null()) {
    std::optional<int64_t> n = max->as_integer();
    if (!n || *n < 0) {
      return ErrorReply("invalid_argument", "max_tokens: expected a whole number or null");
    }
    flags.max_tokens = static_cast<uint64_t>(*n);
  }

  ServedEnv served(pool, *cwd);
  HostSession session(served.env);
  absl::StatusOr<Host*> host = session.Get();
  // The client shapes in this case itself (it has what it needs to tell the user).
  if (!host.ok()) return ErrorReply("unavailable", ToStd(host.status().message()));
  const int status = ShapeAndPrint(
      served.io,
      [&](std::string_view id) {
        return internal::HostAccess::ShapeCaptured(**host, *command, exit_code, id, *captured,
                                                   /*queue_stats=*/true, flags.max_tokens);
      },
      flags, run, run ? exit_code.value_or(0) : 0);
  session.PrintNewDiagnostics();
  std::shared_ptr<Host> keep = served.host;
  stats_queued(keep);
  // The client stored the raw file without pruning the store: that is done here, after.
  if (!captured->raw.path.empty()) {
    const core::CaptureSettings settings = internal::HostAccess::CaptureSettings(*keep);
    if (settings.store_outputs) {
      later([settings, path = captured->raw.path] {
        core::OutputStore(settings.outputs_dir, settings.retention).Prune(path);
      });
    }
  }
  return CommandReply(status, served.io);
}

}  // namespace

Service::Service(server::HostPool::Options options)
    : pool_(std::move(options)), stats_writer_([this] { StatsWriter(); }) {}

Service::~Service() { Stop(); }

void Service::Stop() {
  {
    absl::MutexLock lock(&stats_mu_);
    stopping_ = true;
  }
  if (stats_writer_.joinable()) stats_writer_.join();
  WriteStats();
}

void Service::QueuedStats(std::shared_ptr<Host> host) {
  absl::MutexLock lock(&stats_mu_);
  if (std::find(stats_hosts_.begin(), stats_hosts_.end(), host) == stats_hosts_.end()) {
    stats_hosts_.push_back(std::move(host));
  }
}

void Service::WriteStats() {
  absl::MutexLock writing(&write_mu_);
  std::vector<std::shared_ptr<Host>> hosts;
  {
    absl::MutexLock lock(&stats_mu_);
    hosts.swap(stats_hosts_);
  }
  for (const std::shared_ptr<Host>& host : hosts) internal::HostAccess::FlushStats(*host);
}

void Service::StatsWriter() {
  auto queued_or_stopping = [this]() ABSL_SHARED_LOCKS_REQUIRED(stats_mu_) {
    return stopping_ || !stats_hosts_.empty();
  };
  auto stopping = [this]() ABSL_SHARED_LOCKS_REQUIRED(stats_mu_) { return stopping_; };
  for (;;) {
    {
      absl::MutexLock lock(&stats_mu_);
      stats_mu_.Await(absl::Condition(&queued_or_stopping));
      // The shapings of the next moment join these: one write for all of them.
      stats_mu_.AwaitWithTimeout(absl::Condition(&stopping), kStatsInterval);
      if (stopping_) return;
    }
    WriteStats();
  }
}

std::function<void()> Service::Deferred(std::function<void()> task) {
  {
    absl::MutexLock lock(&mu_);
    ++pending_;
  }
  return [this, task = std::move(task)] {
    task();
    absl::MutexLock lock(&mu_);
    --pending_;
  };
}

std::string Service::Handle(const core::Value& request,
                            std::vector<std::function<void()>>* later) {
  absl::StatusOr<std::string> type = wire::Text(request, "type");
  if (!type.ok()) return ErrorReply("invalid_argument", ToStd(type.status().message()));
  auto flush = [this] {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(+[](int* pending) { return *pending == 0; }, &pending_));
  };
  if (*type == "flush") {
    flush();
    WriteStats();
    return "{\"ok\":true}";
  }
  // The listing shows statistics: those of every shaping answered so far.
  if (*type == "command" && wire::Text(request, "name").value_or("") == "plugins") {
    flush();
    WriteStats();
  }
  if (pool_.Mode() == core::ServerMode::kNever) {
    return ErrorReply("in_process", "config.yaml says server: never");
  }
  if (*type == "command") return Command(pool_, request);
  if (*type == "capture") return Capture(pool_, request);
  if (*type == "shape") {
    return Shape(
        pool_, request,
        [&](std::function<void()> task) { later->push_back(Deferred(std::move(task))); },
        [this](std::shared_ptr<Host> host) { QueuedStats(std::move(host)); });
  }
  return ErrorReply("unimplemented", StrCat("this server does not serve `", *type, "` requests"));
}

}  // namespace plugline::cli
