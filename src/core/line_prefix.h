// What a log carrier writes before each line of a command's output, and removing it so the
// output is shaped by its own lines.
//
// Output often reaches an agent through something that prefixes every line: a CI log
// (`gh run view --log` prints "JOB<tab>STEP<tab>TIMESTAMP line"; a raw GitHub Actions log has
// "2026-12-06T01:18:38.1234567Z line"), `docker compose logs` ("app-1  | line"), `docker logs
// -t` and `kubectl logs --timestamps` (an RFC 3339 timestamp with nanoseconds), `kubectl logs
// --prefix` ("[pod/web-7d9c/app] line"). Under those prefixes no shaper recognizes a test
// run or a compiler's output, and what a summary must keep is lost. The shaping pipeline
// removes them first; a summary says so, and the raw file keeps them.
//
// A prefix is removed only when it is a carrier's, not the program's own: it starts every
// line, or 90% or more of the lines of a longer output (three or more), and
// - a timestamp is one of a machine's, with seven or more digits of fractions of a second
//   (GitHub Actions: 7, docker: 9, kubectl: up to 9) on most lines; a program's own log
//   timestamps (milliseconds, microseconds, none) are part of its lines and stay;
// - a name (`app-1  | `, `[pod/…] `) is the same on every line: the output of one service.
//   Lines of several services interleaved are left as they are (which line came from which
//   service matters).
// A prefix under a prefix (`app-1  | 2026-…Z line` from `docker compose logs -t`) is removed
// too. Lines without the prefix stay as they are.
#ifndef PLUGLINE_CORE_LINE_PREFIX_H_
#define PLUGLINE_CORE_LINE_PREFIX_H_

#include <string>
#include <string_view>

namespace plugline::core {

// True, with the text without the prefixes in `*out` and what they were in `*what` (a
// phrase: "a timestamp", "the job, step and timestamp of a CI log", "'app-1  | '"), when
// `text`'s lines have a carrier's prefix; false (both untouched) when they do not.
bool StripCarrierPrefixes(std::string_view text, std::string* out, std::string* what);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_LINE_PREFIX_H_
