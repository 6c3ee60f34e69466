#include "exec/child.h"

#include <signal.h>
#include <string.h>
#include <uv.h>

#include <cmath>
#include <cstring>

#include "absl/time/clock.h"
#include "core/strings.h"
#include "exec/spawn_internal.h"

namespace plugline::exec {

constexpr size_t kReadBufferBytes = 64 * 1024;
// How long the destructor waits for a SIGKILLed child to be reaped. Only a child stuck in
// uninterruptible sleep takes longer; it is then left to init.
constexpr absl::Duration kReapWait = absl::Seconds(5);

struct Child::State {
  ChildSpec spec;
  uv_loop_t loop;
  uv_process_t process;
  uv_pipe_t in_pipe;
  uv_pipe_t out_pipe;
  uv_pipe_t err_pipe;
  uv_timer_t deadline_timer;
  uv_write_t write_req;

  bool loop_open = false;
  bool in_open = false, out_open = false, err_open = false;
  bool exited = false;
  ChildExit exit;
  bool timer_fired = false;

  // stdout: bytes from out_head on are not yet returned by ReadLine; out_scan is where the
  // search for the next '\n' resumes; partial_len counts the bytes after the last '\n'.
  std::string out;
  size_t out_head = 0;
  size_t out_scan = 0;
  size_t partial_len = 0;
  bool out_eof = false;
  bool line_too_long = false;
  bool reading_paused = false;
  bool writing = false;

  bool write_done = false;
  int write_status = 0;

  std::string err_tail;
  char buffer[kReadBufferBytes];

  size_t Buffered() const { return out.size() - out_head; }

  void KillNow(int signum) {
    if (exited) return;
    if (spec.own_process_group) {
      ::kill(-process.pid, signum);  // the child leads its own group (UV_PROCESS_DETACHED)
    } else {
      uv_process_kill(&process, signum);
    }
  }

  void ClosePipe(uv_pipe_t* pipe, bool* open) {
    if (!*open) return;
    *open = false;
    uv_close(reinterpret_cast<uv_handle_t*>(pipe), nullptr);
  }

  // Runs the loop until `done()` or `deadline`. Returns done().
  template <typename Done>
  bool RunUntil(absl::Time deadline, Done done) {
    if (done()) return true;
    timer_fired = false;
    if (deadline != absl::InfiniteFuture()) {
      absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) {
        uv_run(&loop, UV_RUN_NOWAIT);  // what is already there still counts
        return done();
      }
      // The loop's clock stood still while nobody ran it.
      uv_update_time(&loop);
      uv_timer_start(
          &deadline_timer,
          [](uv_timer_t* timer) { static_cast<State*>(timer->data)->timer_fired = true; },
          static_cast<uint64_t>(std::ceil(absl::ToDoubleMilliseconds(left))), 0);
    }
    while (!done() && !timer_fired) {
      if (uv_run(&loop, UV_RUN_ONCE) == 0) break;  // nothing left that could change done()
    }
    uv_timer_stop(&deadline_timer);
    return done();
  }
};

namespace {

using State = Child::State;

State* StateOf(uv_handle_t* handle) { return static_cast<State*>(handle->data); }

void OnAlloc(uv_handle_t* handle, size_t, uv_buf_t* buf) {
  State* s = StateOf(handle);
  buf->base = s->buffer;
  buf->len = sizeof s->buffer;
}

void OnStdout(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  State* s = StateOf(reinterpret_cast<uv_handle_t*>(stream));
  if (nread < 0) {  // UV_EOF or an error: no more lines
    s->out_eof = true;
    s->ClosePipe(&s->out_pipe, &s->out_open);
    return;
  }
  if (nread == 0) return;
  std::string_view chunk(buf->base, static_cast<size_t>(nread));
  const void* last_newline = ::memrchr(chunk.data(), '\n', chunk.size());
  s->partial_len = last_newline == nullptr
                       ? s->partial_len + chunk.size()
                       : chunk.size() - (static_cast<const char*>(last_newline) - chunk.data()) - 1;
  if (s->out_head > 0 && s->out_head >= s->out.size() / 2) {
    s->out.erase(0, s->out_head);  // compact before growing
    s->out_scan -= s->out_head;
    s->out_head = 0;
  }
  s->out.append(chunk);
  const size_t max_line = s->spec.max_line_bytes;
  if (max_line != 0 && s->partial_len > max_line) {
    s->line_too_long = true;
    s->KillNow(SIGKILL);
    uv_read_stop(stream);
    return;
  }
  // While a long write is in progress, do not buffer without bound what the child writes.
  if (s->writing && max_line != 0 && s->Buffered() > max_line) {
    s->reading_paused = true;
    uv_read_stop(stream);
  }
}

void OnStderr(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  State* s = StateOf(reinterpret_cast<uv_handle_t*>(stream));
  if (nread < 0) {
    s->ClosePipe(&s->err_pipe, &s->err_open);
    return;
  }
  if (nread == 0) return;
  if (s->spec.on_stderr) s->spec.on_stderr(std::string_view(buf->base, static_cast<size_t>(nread)));
  s->err_tail.append(buf->base, static_cast<size_t>(nread));
  size_t keep = s->spec.stderr_tail_bytes;
  if (s->err_tail.size() > keep) s->err_tail.erase(0, s->err_tail.size() - keep);
}

void OnExit(uv_process_t* process, int64_t exit_status, int term_signal) {
  State* s = StateOf(reinterpret_cast<uv_handle_t*>(process));
  s->exited = true;
  s->exit.exit_status = static_cast<int>(exit_status);
  s->exit.term_signal = term_signal;
  uv_close(reinterpret_cast<uv_handle_t*>(process), nullptr);
}

void OnWritten(uv_write_t* req, int status) {
  State* s = StateOf(reinterpret_cast<uv_handle_t*>(req->handle));
  s->write_done = true;
  s->write_status = status;
}

}  // namespace

std::string ChildExit::Describe() const {
  if (term_signal != 0) {
    const char* name = ::strsignal(term_signal);
    return StrCat("was killed by signal ", term_signal, " (", name != nullptr ? name : "?", ")");
  }
  return StrCat("exited with status ", exit_status);
}

Child::Child(std::unique_ptr<State> state) : state_(std::move(state)) {}

absl::StatusOr<std::unique_ptr<Child>> Child::Start(const ChildSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return absl::InvalidArgumentError("no command to run");
  }
  auto state = std::make_unique<State>();
  State& s = *state;
  s.spec = spec;
  int rc = uv_loop_init(&s.loop);
  if (rc != 0) return absl::InternalError(StrCat("uv_loop_init: ", uv_strerror(rc)));
  s.loop_open = true;
  for (uv_pipe_t* pipe : {&s.in_pipe, &s.out_pipe, &s.err_pipe}) {
    uv_pipe_init(&s.loop, pipe, 0);
    pipe->data = &s;
  }
  s.in_open = s.out_open = true;
  s.err_open = spec.stderr_mode == ChildSpec::Stderr::kCapture;
  uv_timer_init(&s.loop, &s.deadline_timer);
  s.deadline_timer.data = &s;
  s.process.data = &s;

  std::vector<char*> args;
  for (const std::string& arg : spec.argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  std::vector<char*> env;
  if (!spec.extra_env.empty()) {
    env_strings = internal::BuildEnvironment(spec.extra_env);
    for (std::string& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
  }

  uv_stdio_container_t stdio[3];
  std::memset(stdio, 0, sizeof stdio);
  stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
  stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&s.in_pipe);
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&s.out_pipe);
  switch (spec.stderr_mode) {
    case ChildSpec::Stderr::kCapture:
      stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
      stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&s.err_pipe);
      break;
    case ChildSpec::Stderr::kInherit:
      stdio[2].flags = UV_INHERIT_FD;
      stdio[2].data.fd = 2;
      break;
    case ChildSpec::Stderr::kDiscard:
      stdio[2].flags = UV_IGNORE;
      break;
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

  rc = uv_spawn(&s.loop, &s.process, &options);
  if (rc != 0) {
    // The unique_ptr's deleter path (~Child) expects a started child; clean up here.
    uv_close(reinterpret_cast<uv_handle_t*>(&s.process), nullptr);
    s.ClosePipe(&s.in_pipe, &s.in_open);
    s.ClosePipe(&s.out_pipe, &s.out_open);
    if (spec.stderr_mode == ChildSpec::Stderr::kCapture)
      s.ClosePipe(&s.err_pipe, &s.err_open);
    else
      uv_close(reinterpret_cast<uv_handle_t*>(&s.err_pipe), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&s.deadline_timer), nullptr);
    uv_run(&s.loop, UV_RUN_DEFAULT);
    uv_loop_close(&s.loop);
    return internal::SpawnError(rc, spec.argv[0]);
  }
  if (spec.stderr_mode != ChildSpec::Stderr::kCapture) {
    uv_close(reinterpret_cast<uv_handle_t*>(&s.err_pipe), nullptr);  // initialized, unused
  }
  uv_read_start(reinterpret_cast<uv_stream_t*>(&s.out_pipe), OnAlloc, OnStdout);
  if (s.err_open) uv_read_start(reinterpret_cast<uv_stream_t*>(&s.err_pipe), OnAlloc, OnStderr);
  return std::unique_ptr<Child>(new Child(std::move(state)));
}

Child::~Child() {
  State& s = *state_;
  if (!s.exited) {
    s.KillNow(SIGKILL);
    s.RunUntil(absl::Now() + kReapWait, [&] { return s.exited; });
    if (!s.exited) uv_close(reinterpret_cast<uv_handle_t*>(&s.process), nullptr);
  }
  s.ClosePipe(&s.in_pipe, &s.in_open);
  s.ClosePipe(&s.out_pipe, &s.out_open);
  s.ClosePipe(&s.err_pipe, &s.err_open);
  uv_close(reinterpret_cast<uv_handle_t*>(&s.deadline_timer), nullptr);
  uv_run(&s.loop, UV_RUN_DEFAULT);
  uv_loop_close(&s.loop);
}

int Child::pid() const { return state_->process.pid; }

absl::Status Child::WriteLine(std::string_view line, absl::Time deadline) {
  State& s = *state_;
  if (!s.in_open) return absl::UnavailableError("the child's stdin is closed");
  internal::SigpipeGuard sigpipe_guard;
  uv_buf_t bufs[2] = {
      uv_buf_init(const_cast<char*>(line.data()), static_cast<unsigned>(line.size())),
      uv_buf_init(const_cast<char*>("\n"), 1)};
  s.write_done = false;
  s.write_status = 0;
  s.write_req.data = &s;
  int rc = uv_write(&s.write_req, reinterpret_cast<uv_stream_t*>(&s.in_pipe), bufs, 2, OnWritten);
  if (rc != 0) {
    s.ClosePipe(&s.in_pipe, &s.in_open);
    return absl::UnavailableError(StrCat("cannot write to the child: ", uv_strerror(rc)));
  }
  s.writing = true;
  bool done = s.RunUntil(deadline, [&] { return s.write_done; });
  s.writing = false;
  if (s.reading_paused && s.out_open && !s.line_too_long) {
    s.reading_paused = false;
    uv_read_start(reinterpret_cast<uv_stream_t*>(&s.out_pipe), OnAlloc, OnStdout);
  }
  if (!done) {
    // Half a line went out: the stream is unusable. Closing stdin cancels the write, whose
    // callback must run before `line` may go away.
    s.ClosePipe(&s.in_pipe, &s.in_open);
    s.RunUntil(absl::InfiniteFuture(), [&] { return s.write_done; });
    return absl::DeadlineExceededError("the child did not read its input in time");
  }
  if (s.write_status != 0) {
    s.ClosePipe(&s.in_pipe, &s.in_open);
    return absl::UnavailableError(
        StrCat("the child closed its stdin (", uv_strerror(s.write_status), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Child::ReadLine(absl::Time deadline) {
  State& s = *state_;
  size_t newline = std::string::npos;
  auto have_line = [&] {
    if (newline == std::string::npos && s.out_scan < s.out.size()) {
      newline = s.out.find('\n', std::max(s.out_scan, s.out_head));
      s.out_scan = newline == std::string::npos ? s.out.size() : newline;
    }
    return newline != std::string::npos || s.out_eof || s.line_too_long;
  };
  s.RunUntil(deadline, have_line);
  if (newline != std::string::npos) {
    std::string line;
    if (s.out_head == 0 && newline + 1 == s.out.size()) {
      s.out.pop_back();  // the common case: the buffer holds exactly one line
      line = std::move(s.out);
      s.out.clear();
      s.out_head = 0;
    } else {
      line.assign(s.out, s.out_head, newline - s.out_head);
      s.out_head = newline + 1;
      if (s.out_head == s.out.size()) {
        s.out.clear();
        s.out_head = 0;
      }
    }
    s.out_scan = s.out_head;
    return line;
  }
  if (s.line_too_long) {
    return absl::ResourceExhaustedError(
        StrCat("the child wrote a line longer than ", s.spec.max_line_bytes, " bytes"));
  }
  if (s.out_eof) return absl::UnavailableError("the child closed its output");
  return absl::DeadlineExceededError("the child did not answer in time");
}

void Child::CloseInput() { state_->ClosePipe(&state_->in_pipe, &state_->in_open); }

void Child::Kill(int signal) { state_->KillNow(signal); }

std::optional<ChildExit> Child::Wait(absl::Time deadline) {
  State& s = *state_;
  // A crashed child's last words are on stderr: read them to the end too.
  s.RunUntil(deadline, [&] { return s.exited && !s.err_open; });
  return exit();
}

std::optional<ChildExit> Child::exit() const {
  if (!state_->exited) return std::nullopt;
  return state_->exit;
}

std::string Child::stderr_tail() const { return state_->err_tail; }

}  // namespace plugline::exec
