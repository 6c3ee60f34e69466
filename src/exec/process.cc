#include "exec/process.h"

#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>
#include <uv.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "exec/spawn_internal.h"

namespace plugline::exec {
namespace {

using internal::BuildEnvironment;
using internal::SigpipeGuard;

constexpr size_t kReadBufferBytes = 64 * 1024;
// After the child exits, output still in flight is read; a grandchild that keeps the pipe
// open (a daemon started by the command) is not waited for longer than this, nor past the
// spec's timeout deadline — but always at least kMinDrainMs, so that what the child wrote
// just before it exited is still read.
constexpr uint64_t kDrainAfterExitMs = 2000;
constexpr uint64_t kMinDrainMs = 50;
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// True when this process is in the foreground of its controlling terminal: a SIGINT from the
// keyboard then reached the whole process group, the child included.
bool InForegroundOfTerminal() {
  int tty = ::open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
  if (tty < 0) return false;
  bool foreground = ::tcgetpgrp(tty) == ::getpgrp();
  ::close(tty);
  return foreground;
}

struct Run {
  const ProcessSpec* spec = nullptr;
  ProcessResult result;

  uv_loop_t loop;
  uv_process_t process;
  uv_pipe_t out_pipe;
  uv_pipe_t err_pipe;
  uv_pipe_t in_pipe;
  uv_write_t in_write;
  uv_timer_t timeout_timer;
  uv_timer_t kill_timer;
  uv_timer_t tick_timer;
  uv_timer_t drain_timer;
  uv_signal_t signals[std::size(kForwardedSignals)];

  bool out_open = false, err_open = false, in_open = false;
  bool spawned = false;
  bool exited = false;
  bool terminal_foreground = false;
  size_t bytes_read = 0;  // of stdout and stderr, for max_output_bytes
  uint64_t start_ns = 0;
  char buffer[kReadBufferBytes];

  void Kill(int signum) {
    if (!spawned || exited) return;
    if (spec->own_process_group) {
      ::kill(-process.pid, signum);  // the child leads its own group (UV_PROCESS_DETACHED)
    } else {
      uv_process_kill(&process, signum);
    }
  }

  void CloseStream(uv_pipe_t* pipe, bool* open) {
    if (!*open) return;
    *open = false;
    uv_close(reinterpret_cast<uv_handle_t*>(pipe), nullptr);
  }

  void CloseOutputs() {
    CloseStream(&out_pipe, &out_open);
    CloseStream(&err_pipe, &err_open);
  }
};

void CloseIfActive(uv_handle_t* handle) {
  if (!uv_is_closing(handle)) uv_close(handle, nullptr);
}

Run* RunOf(uv_handle_t* handle) { return static_cast<Run*>(handle->loop->data); }

void OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  Run* run = RunOf(handle);
  buf->base = run->buffer;
  buf->len = sizeof run->buffer;
}

void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(stream));
  bool is_err = stream == reinterpret_cast<uv_stream_t*>(&run->err_pipe);
  if (nread < 0) {  // UV_EOF or an error: this stream is done
    if (is_err) {
      run->CloseStream(&run->err_pipe, &run->err_open);
    } else {
      run->CloseStream(&run->out_pipe, &run->out_open);
    }
    if (run->exited && !run->out_open && !run->err_open) {
      CloseIfActive(reinterpret_cast<uv_handle_t*>(&run->drain_timer));
    }
    return;
  }
  if (nread == 0) return;
  std::string_view chunk(buf->base, static_cast<size_t>(nread));
  std::string& sink = is_err ? run->result.error_output : run->result.output;
  const bool collect = run->spec->collect_output;
  const size_t limit = run->spec->max_output_bytes;
  if (limit != 0 && run->bytes_read + chunk.size() > limit) {
    size_t room = limit - std::min(limit, run->bytes_read);
    if (collect) sink.append(chunk.substr(0, room));
    run->bytes_read += room;
    if (!run->result.output_limit_hit) {
      run->result.output_limit_hit = true;
      run->Kill(SIGKILL);
    }
    run->CloseOutputs();
    return;
  }
  run->bytes_read += chunk.size();
  if (collect) sink.append(chunk);
  if (run->spec->on_output && !is_err) run->spec->on_output(chunk);
}

void OnDrainTimeout(uv_timer_t* timer) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(timer));
  run->CloseOutputs();
  CloseIfActive(reinterpret_cast<uv_handle_t*>(timer));
}

void OnExit(uv_process_t* process, int64_t exit_status, int term_signal) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(process));
  run->exited = true;
  run->result.exit_status = static_cast<int>(exit_status);
  run->result.term_signal = term_signal;
  run->result.elapsed = absl::Nanoseconds(uv_hrtime() - run->start_ns);
  uv_close(reinterpret_cast<uv_handle_t*>(process), nullptr);
  CloseIfActive(reinterpret_cast<uv_handle_t*>(&run->timeout_timer));
  CloseIfActive(reinterpret_cast<uv_handle_t*>(&run->kill_timer));
  CloseIfActive(reinterpret_cast<uv_handle_t*>(&run->tick_timer));
  for (uv_signal_t& signal : run->signals) CloseIfActive(reinterpret_cast<uv_handle_t*>(&signal));
  if (run->out_open || run->err_open) {
    uint64_t drain_ms = kDrainAfterExitMs;
    if (run->spec->timeout != absl::InfiniteDuration()) {
      const uint64_t timeout_ns =
          static_cast<uint64_t>(std::max<int64_t>(0, absl::ToInt64Nanoseconds(run->spec->timeout)));
      const uint64_t elapsed_ns = uv_hrtime() - run->start_ns;
      const uint64_t left_ms =
          elapsed_ns >= timeout_ns ? 0 : (timeout_ns - elapsed_ns + 999'999) / 1'000'000;
      drain_ms = std::clamp(left_ms, kMinDrainMs, kDrainAfterExitMs);
    }
    uv_timer_start(&run->drain_timer, OnDrainTimeout, drain_ms, 0);
  } else {
    CloseIfActive(reinterpret_cast<uv_handle_t*>(&run->drain_timer));
  }
}

void OnKillTimer(uv_timer_t* timer) {
  RunOf(reinterpret_cast<uv_handle_t*>(timer))->Kill(SIGKILL);
}

void OnTimeout(uv_timer_t* timer) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(timer));
  run->result.timed_out = true;
  run->Kill(SIGTERM);
  uv_timer_start(&run->kill_timer, OnKillTimer,
                 static_cast<uint64_t>(absl::ToInt64Milliseconds(run->spec->kill_grace)), 0);
}

void OnTick(uv_timer_t* timer) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(timer));
  if (run->spec->on_tick) run->spec->on_tick(absl::Nanoseconds(uv_hrtime() - run->start_ns));
}

void OnSignal(uv_signal_t* handle, int signum) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(handle));
  bool from_keyboard = (signum == SIGINT || signum == SIGQUIT) && run->terminal_foreground &&
                       !run->spec->own_process_group;
  if (!from_keyboard) run->Kill(signum);
}

void OnStdinWritten(uv_write_t* req, int) {
  Run* run = RunOf(reinterpret_cast<uv_handle_t*>(req->handle));
  run->CloseStream(&run->in_pipe, &run->in_open);
}

}  // namespace

absl::StatusOr<ProcessResult> RunProcess(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return absl::InvalidArgumentError("no command to run");
  }
  auto run = std::make_unique<Run>();
  run->spec = &spec;
  int rc = uv_loop_init(&run->loop);
  if (rc != 0) return absl::InternalError(StrCat("uv_loop_init: ", uv_strerror(rc)));
  run->loop.data = run.get();

  std::vector<char*> args;
  for (const std::string& arg : spec.argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  std::vector<char*> env;
  if (!spec.extra_env.empty()) {
    env_strings = BuildEnvironment(spec.extra_env);
    for (std::string& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
  }

  uv_stdio_container_t stdio[3];
  std::memset(stdio, 0, sizeof stdio);
  if (spec.stdin_data.has_value()) {
    uv_pipe_init(&run->loop, &run->in_pipe, 0);
    run->in_open = true;
    stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
    stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&run->in_pipe);
  } else if (spec.inherit_stdin) {
    stdio[0].flags = UV_INHERIT_FD;
    stdio[0].data.fd = 0;
  } else {
    stdio[0].flags = UV_IGNORE;
  }

  uv_pipe_init(&run->loop, &run->out_pipe, 0);
  run->out_open = true;
  uv_file merged[2] = {-1, -1};
  if (spec.merge_output) {
    // One pipe on both fd 1 and fd 2: the kernel keeps the order of the child's writes.
    rc = uv_pipe(merged, 0, 0);
    if (rc != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(&run->out_pipe), nullptr);
      if (run->in_open) uv_close(reinterpret_cast<uv_handle_t*>(&run->in_pipe), nullptr);
      uv_run(&run->loop, UV_RUN_DEFAULT);
      uv_loop_close(&run->loop);
      return absl::ResourceExhaustedError(StrCat("cannot create a pipe: ", uv_strerror(rc)));
    }
    stdio[1].flags = UV_INHERIT_FD;
    stdio[1].data.fd = merged[1];
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = merged[1];
  } else {
    uv_pipe_init(&run->loop, &run->err_pipe, 0);
    run->err_open = true;
    stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&run->out_pipe);
    stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&run->err_pipe);
  }

  uv_process_options_t options;
  std::memset(&options, 0, sizeof options);
  options.exit_cb = OnExit;
  options.file = spec.argv[0].c_str();
  options.args = args.data();
  options.env = env.empty() ? nullptr : env.data();
  options.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  options.stdio_count = 3;
  options.stdio = stdio;
  // DETACHED makes the child a session (and so process group) leader.
  options.flags = spec.own_process_group ? UV_PROCESS_DETACHED : 0;

  std::optional<SigpipeGuard> sigpipe_guard;
  if (spec.stdin_data.has_value()) sigpipe_guard.emplace();

  run->terminal_foreground = spec.forward_signals && InForegroundOfTerminal();
  // Before the child exists: a signal sent to this process once the command runs (it may be
  // sent the moment the command has started) must reach the command, not end this process
  // and leave the command behind. libuv gives the child the default dispositions back.
  for (size_t i = 0; i < std::size(kForwardedSignals); ++i) {
    uv_signal_init(&run->loop, &run->signals[i]);
    if (spec.forward_signals) uv_signal_start(&run->signals[i], OnSignal, kForwardedSignals[i]);
  }
  run->start_ns = uv_hrtime();
  {
    std::optional<internal::ParentDeathSignalGuard> pdeathsig;
    if (spec.kill_with_parent) pdeathsig.emplace();
    rc = uv_spawn(&run->loop, &run->process, &options);
  }
  if (merged[1] >= 0) ::close(merged[1]);  // the child has its copy
  if (rc != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&run->process), nullptr);
    for (uv_signal_t& signal : run->signals) CloseIfActive(reinterpret_cast<uv_handle_t*>(&signal));
    if (merged[0] >= 0) ::close(merged[0]);
    run->CloseOutputs();
    if (run->in_open) run->CloseStream(&run->in_pipe, &run->in_open);
    uv_run(&run->loop, UV_RUN_DEFAULT);
    uv_loop_close(&run->loop);
    return internal::SpawnError(rc, spec.argv[0]);
  }
  run->spawned = true;
  if (merged[0] >= 0) uv_pipe_open(&run->out_pipe, merged[0]);
  if (spec.on_spawn) spec.on_spawn(run->process.pid);

  uv_read_start(reinterpret_cast<uv_stream_t*>(&run->out_pipe), OnAlloc, OnRead);
  if (run->err_open) {
    uv_read_start(reinterpret_cast<uv_stream_t*>(&run->err_pipe), OnAlloc, OnRead);
  }
  if (run->in_open) {
    uv_buf_t buf = uv_buf_init(const_cast<char*>(spec.stdin_data->data()),
                               static_cast<unsigned>(spec.stdin_data->size()));
    if (uv_write(&run->in_write, reinterpret_cast<uv_stream_t*>(&run->in_pipe), &buf, 1,
                 OnStdinWritten) != 0) {
      run->CloseStream(&run->in_pipe, &run->in_open);
    }
  }

  uv_timer_init(&run->loop, &run->timeout_timer);
  uv_timer_init(&run->loop, &run->kill_timer);
  uv_timer_init(&run->loop, &run->tick_timer);
  uv_timer_init(&run->loop, &run->drain_timer);
  if (spec.timeout != absl::InfiniteDuration()) {
    uv_timer_start(&run->timeout_timer, OnTimeout,
                   static_cast<uint64_t>(std::max<int64_t>(0, absl::ToInt64Milliseconds(spec.timeout))),
                   0);
  }
  if (spec.on_tick) {
    uint64_t every = static_cast<uint64_t>(absl::ToInt64Milliseconds(spec.tick_interval));
    uv_timer_start(&run->tick_timer, OnTick, every, every);
  }
  uv_run(&run->loop, UV_RUN_DEFAULT);
  uv_loop_close(&run->loop);
  return std::move(run->result);
}

}  // namespace plugline::exec
