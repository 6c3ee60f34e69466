// Text helpers shared by the pipeline and the shapers: lines, UTF-8, ANSI escapes, counts.
#ifndef PLUGLINE_CORE_TEXT_H_
#define PLUGLINE_CORE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::core {

// True when `text` is valid UTF-8 (implemented with simdjson's validator in src/formats/).
bool IsValidUtf8(std::string_view text);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD (one per maximal invalid
// subpart, as the Unicode standard recommends). Valid input comes back unchanged.
std::string SanitizeUtf8(std::string_view text);

// Whether `text` is binary data, no text: more than one byte in ten of its first 8 KiB neither
// printable, whitespace, an escape nor part of valid UTF-8 — a NUL, another control byte, an
// invalid sequence (an executable, an image, a compressed stream `cat` printed; not names
// separated by NULs, `find -print0`, `git ls-files -z`).
bool LooksBinary(std::string_view text);

// The length (2-4) of the well-formed UTF-8 sequence that starts at text[i], a byte >= 0x80, or
// 0 when none does there (an invalid or cut-off sequence, a stray continuation byte).
size_t Utf8SequenceLength(std::string_view text, size_t i);

// True when `text` has nothing but spaces, tabs and line ends ("" too).
bool IsBlank(std::string_view text);

// Number of lines as a person counts them: "a\nb" and "a\nb\n" are both 2; "" is 0.
size_t CountLines(std::string_view text);

// Splits into lines without their terminators. "\r\n" counts as one terminator; a final
// terminator does not start an empty last line. The views point into `text`.
std::vector<std::string_view> SplitLines(std::string_view text);

// Output as a person saw it in a terminal, for shaping: ANSI escape sequences (colours,
// cursor movement, OSC titles and links) removed; carriage-return and backspace redraws
// applied, so a progress bar that redrew itself 500 times is one line showing its final
// state; "cursor up" redraws replace the lines they redraw; CRLF becomes LF. Returns false
// (and leaves *out untouched) when `text` needs none of this, which is the common case and
// costs one scan.
bool NormalizeTerminalOutput(std::string_view text, std::string* out);

// Text made safe to print on a terminal: every terminal control sequence removed — CSI
// (colours, cursor movement), OSC (titles, OSC 8 links, OSC 52 clipboard writes), DCS, SOS, PM
// and APC strings, other ESC sequences, C0 controls other than \n and \t (BEL, backspace,
// carriage return, ...), DEL, and C1 controls, in their UTF-8 form (U+0080–U+009F, where
// U+009B opens a CSI and U+009D an OSC like their ESC forms) and as stray bytes. Sequences
// are recognized by the parser NormalizeTerminalOutput uses. Everything else, invalid UTF-8
// included, is kept. Returns false (and leaves *out untouched) when there is nothing to
// remove, which costs one scan.
bool StripControlSequences(std::string_view text, std::string* out);

// Case-insensitive substring search (ASCII).
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);

// Finds any of a fixed set of ASCII keywords in a line, ignoring case, in one pass over the
// line: a table of the keywords' first two letters (case-folded) selects the few positions
// worth comparing. For per-line checks over large outputs.
class KeywordMatcher {
 public:
  // `word_starts`: a keyword counts only where a word starts: after a byte that is not an ASCII
  // letter, or at a capital that starts a part of a CamelCase name ("TypeError",
  // "IOException"); not inside "liberror" or "-Werror".
  explicit KeywordMatcher(std::initializer_list<std::string_view> keywords,
                          bool word_starts = false);
  bool Contains(std::string_view text) const { return Find(text) != std::string_view::npos; }
  // Where the first keyword starts in `text`, or npos.
  size_t Find(std::string_view text) const;

 private:
  std::vector<std::string> keywords_;  // lower case, at least 2 characters
  std::vector<uint64_t> bigrams_;      // 65,536 bits: folded first two bytes of a keyword
  bool word_starts_ = false;
};

// Lines that signal trouble in output no shaper understands: "error", "fail", "fatal",
// "panic", "exception", "traceback", "denied", "not permitted", "not found", "segmentation
// fault", "abort", "crash", a memory checker's "invalid read", "uninitialised value", "definitely
// lost", "…Sanitizer" ... where a word starts ("TypeError" too, not "liberror" or "-Werror"), but
// not "0 errors" (but "10 failed"), "no failures" or "No syntax errors detected"; and a server's
// line of a request that failed with a 5xx status. Not a word in a path
// ("absl/random/seed_gen_exception.h" of a listing, "cc -c src/errors.c", "cannot access
// 'src/errors.c': …"): a file's name says nothing of how the command went. The generic shaper keeps
// them from the middle of an output, and so does the shaping window (output_window.h). And a
// line that reports a process's non-zero exit (ReportsFailedExit).
bool LooksLikeErrorLine(std::string_view line);
// Whether `line` reports that a process exited with a non-zero code: "api-1 exited with code 1"
// (docker compose), "Process exited with status 137", "exit status 2" (go run), "exit code: 1".
// Part of LooksLikeErrorLine.
bool ReportsFailedExit(std::string_view line);
// The first request named in `line` at or after `from`: an HTTP method (GET, POST, PUT, PATCH,
// DELETE, HEAD, OPTIONS) at the start of the line or after a space, tab or quote, one space,
// then a path starting with '/' (or quoted: Rails' `Started POST "/orders"`). Returns where the
// method starts and sets `*path_end` (may be null) to where the path ends; npos when there is none.
size_t FindRequest(std::string_view line, size_t from = 0, size_t* path_end = nullptr);

// The HTTP status of the request a server's log line records, or 0: after the quoted request
// line (`"GET /x HTTP/1.1" 500 59`: common and combined log formats, werkzeug, uvicorn, Django,
// gunicorn), after the method and path (`GET /x 503 1.2 ms - 10`: morgan, Go's and most
// frameworks' one-line formats), or as a field of a line that also names the method, path or
// URL (`"status": 500` in JSON, `status=500` in logfmt; also `status_code`, `statusCode`).
uint16_t RequestStatus(std::string_view line);

// A server's log line of a request answered with a 5xx status (RequestStatus): the request
// that failed, next to its traceback. Part of LooksLikeErrorLine.
bool IsFailedRequestLine(std::string_view line);

// The offset of the first line of `text` (a run of '\n'-terminated lines) for which
// LooksLikeErrorLine is true, or npos: one pass over many lines, for large outputs.
size_t FindErrorLine(std::string_view text);

// "3912" -> "3,912".
std::string FormatCount(uint64_t n);

// A byte count for people: "812 B", "14.2 KiB", "3.1 MiB".
std::string FormatBytes(uint64_t n);

// A command's exit status as a summary names it: "exit 2"; a shell's 128 + N for a command a
// signal ended, when N is one that ends a program that crashed or was stopped, with the
// signal's name: "exit 139: SIGSEGV", "exit 137: SIGKILL" (an out-of-memory kill). Other codes
// above 128 are a program's own (git's 128 and 129).
std::string ExitText(int code);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_TEXT_H_
