#include "core/text.h"

#include <doctest/doctest.h>

#include <string>

namespace plugline::core {
namespace {

TEST_CASE("CountLines counts lines as people do") {
  CHECK(CountLines("") == 0);
  CHECK(CountLines("a") == 1);
  CHECK(CountLines("a\n") == 1);
  CHECK(CountLines("a\nb") == 2);
  CHECK(CountLines("a\nb\n") == 2);
  CHECK(CountLines("\n\n") == 2);
}

TEST_CASE("SplitLines drops terminators, CRLF included") {
  auto lines = SplitLines("one\r\ntwo\n\nthree");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "one");
  CHECK(lines[1] == "two");
  CHECK(lines[2] == "");
  CHECK(lines[3] == "three");
  CHECK(SplitLines("x\n").size() == 1);
  CHECK(SplitLines("").empty());
}

TEST_CASE("FormatCount groups thousands") {
  CHECK(FormatCount(0) == "0");
  CHECK(FormatCount(999) == "999");
  CHECK(FormatCount(1000) == "1,000");
  CHECK(FormatCount(3912) == "3,912");
  CHECK(FormatCount(12345) == "12,345");
  CHECK(FormatCount(123456) == "123,456");
  CHECK(FormatCount(1234567) == "1,234,567");
}

TEST_CASE("UTF-8 validation and repair") {
  CHECK(IsValidUtf8("plain ascii"));
  CHECK(IsValidUtf8("héllo wörld ✓ 🙂"));
  CHECK_FALSE(IsValidUtf8("\xff"));
  CHECK_FALSE(IsValidUtf8("\xe2\x9c"));        // truncated
  CHECK_FALSE(IsValidUtf8("\xed\xa0\x80"));    // a surrogate
  CHECK(SanitizeUtf8("héllo ✓") == "héllo ✓");
  CHECK(SanitizeUtf8("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(SanitizeUtf8("a\xe2\x9c") == "a\xEF\xBF\xBD");  // one U+FFFD for the truncated sequence
  CHECK(IsValidUtf8(SanitizeUtf8("\xc0\x80\xf5\x80\x80\x80 \xe0\x80\x80")));
}

}  // namespace
}  // namespace plugline::core

namespace plugline::core {
namespace {

std::string Normalized(std::string_view text) {
  std::string out;
  return NormalizeTerminalOutput(text, &out) ? out : std::string(text);
}

TEST_CASE("plain text needs no normalization and is not copied") {
  std::string out = "untouched";
  CHECK_FALSE(NormalizeTerminalOutput("line one\nline two\n", &out));
  CHECK(out == "untouched");
}

TEST_CASE("ANSI colours, OSC titles and links are removed") {
  CHECK(Normalized("\x1b[31mFAIL\x1b[0m src/a.test.js\n") == "FAIL src/a.test.js\n");
  CHECK(Normalized("\x1b[1;32m✓\x1b[39;22m ok\n") == "✓ ok\n");
  CHECK(Normalized("\x1b]0;title\x07text\n") == "text\n");
  CHECK(Normalized("\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\\n") == "link\n");
  CHECK(Normalized("a\x1b[Kb\n") == "ab\n");
}

TEST_CASE("carriage-return redraws keep what the terminal finally showed") {
  CHECK(Normalized("progress 10%\rprogress 55%\rprogress 100%\ndone\n") ==
        "progress 100%\ndone\n");
  CHECK(Normalized("abcdef\rxy\n") == "xycdef\n");  // overwrite, as a terminal does
  CHECK(Normalized("windows line\r\nnext\r\n") == "windows line\nnext\n");
  CHECK(Normalized("12345\b\b\bab\n") == "12ab5\n");
  CHECK(Normalized("é✓x\r✓\n") == "✓✓x\n");  // by characters, not bytes
}

TEST_CASE("moves to a column and erases in the line redraw it as a terminal does") {
  // bats' pretty formatter: the test's name, the count at column 75, then the name again from
  // column 1 with its mark, the rest of the line erased.
  CHECK(
      Normalized("\x1b[1G   addition works\x1b[K\x1b[75G 1/45\x1b[2G\x1b[1G \xE2\x9C\x93 addition "
                 "works\x1b[K\n") == " \xE2\x9C\x93 addition works\n");
  CHECK(Normalized("ab\x1b[5Gx\n") == "ab  x\n");        // past the end: blank cells
  CHECK(Normalized("abcdef\x1b[3G\x1b[K\n") == "ab\n");  // erased from the cursor
  // A whole line erased, then written from its start: nothing of the old line is left.
  CHECK(Normalized("Downloading a long name 10%\x1b[2K\rDone 100%\n") == "Done 100%\n");
  CHECK(Normalized("x\x1b[1Kz\n") == "xz\n");  // erase to the start: not applied, stripped
}

TEST_CASE("cursor-up redraws replace the lines they redraw") {
  std::string frames;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) frames += "\x1b[2A\x1b[2K";
    frames += "layer 1: " + std::to_string(i * 40) + "%\n";
    if (i > 0) frames += "\x1b[2K";
    frames += "layer 2: " + std::to_string(i * 30) + "%\n";
  }
  frames += "complete\n";
  CHECK(Normalized("first\n" + frames) == "first\nlayer 1: 80%\nlayer 2: 60%\ncomplete\n");
}

std::string Stripped(std::string_view text) {
  std::string out;
  return StripControlSequences(text, &out) ? out : std::string(text);
}

TEST_CASE("StripControlSequences leaves plain text alone and says so") {
  std::string out = "untouched";
  CHECK_FALSE(StripControlSequences("plain text\n\twith a tab, é ✓ \xF0\x9F\x98\x80\n", &out));
  CHECK(out == "untouched");
  // Invalid UTF-8 that is not a C1 control is kept as it is.
  CHECK_FALSE(StripControlSequences("bad \xff\xfe bytes", &out));
  // U+00A0-U+00BF start with 0xC2 too, and are ordinary characters.
  CHECK_FALSE(StripControlSequences("\xC2\xA0non-breaking \xC2\xA9 2026", &out));
}

TEST_CASE("StripControlSequences removes every sequence that drives a terminal") {
  // CSI: colours, cursor movement, erase, private modes.
  CHECK(Stripped("\x1b[1;31mred\x1b[0m \x1b[2J\x1b[H\x1b[?1049h\x1b[5A.") == "red .");
  // OSC: a title, a hyperlink (OSC 8), a clipboard write (OSC 52), by BEL and by ST.
  CHECK(Stripped("\x1b]0;owned\x07"
                 "a\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\b") == "alinkb");
  CHECK(Stripped("x\x1b]52;c;cm0gLXJmIH4=\x07y") == "xy");
  CHECK(Stripped("x\x1b]52;c;cm0gLXJmIH4=\x1b\\y") == "xy");
  // DCS, SOS, PM and APC strings.
  CHECK(Stripped("1\x1bPq#0;2;0;0;0\x1b\\2\x1bXsos\x1b\\3\x1b^pm\x1b\\4\x1b_apc\x1b\\5") ==
        "12345");
  // Single ESC sequences (save/restore cursor, reverse index, charset selection).
  CHECK(Stripped("a\x1b"
                 "7b\x1b"
                 "8c\x1bMd\x1b(0e") == "abcde");
  // C0 controls but \n and \t: BEL, backspace, carriage return, NUL, vertical tab; and DEL.
  CHECK(Stripped(std::string("bell\x07 back\bspace\r\nnul\0 vt\x0b del\x7f\ttab\n", 36)) ==
        "bell backspace\nnul vt del\ttab\n");
  // C1 controls as UTF-8 (U+009B CSI, U+009D OSC ... U+009C ST) and as stray bytes.
  CHECK(Stripped("a\xC2\x9B"
                 "31mb\xC2\x9D"
                 "52;c;eA==\xC2\x9C"
                 "c\xC2\x85"
                 "d") == "abcd");
  CHECK(Stripped("stray \x9b"
                 "31m csi") == "stray 31m csi");
  // An unterminated string swallows the rest, as a terminal would.
  CHECK(Stripped("before\x1b]52;c;never-terminated") == "before");
  CHECK(Stripped("lone escape at the end\x1b") == "lone escape at the end");
}

TEST_CASE("a cursor-up count too large for an int moves to the top, as a terminal does") {
  // The count was accumulated in an int without bound (UndefinedBehaviorSanitizer: signed
  // overflow, found by the shaper fuzz target); 2147483648 wrapped negative and the redraw was
  // ignored, so the lines it replaced stayed in what the shapers read.
  CHECK(Normalized("old 1\nold 2\n\x1b[2147483648Anew\n") == "new\n");
  CHECK(Normalized("old 1\nold 2\n\x1b[99999999999999999999999Anew\n") == "new\n");
  CHECK(Normalized("keep\nold\n\x1b[1Anew\n") == "keep\nnew\n");
}

}  // namespace
}  // namespace plugline::core

namespace plugline::core {
namespace {

TEST_CASE("text: trouble words count where a word starts, CamelCase parts included") {
  for (std::string_view line : {"error: x", "Build FAILED.", "TypeError: x is undefined",
                                "java.io.IOException: closed", "npm-error-code", "[ERROR] x",
                                "subprocess.CalledProcessError: 1", "Aborted (core dumped)",
                                "✖error", "(fatal) y"}) {
    CAPTURE(line);
    CHECK(LooksLikeErrorLine(line));
  }
  for (std::string_view line : {"ii  liberror-perl 0.17029-2 all Perl module",
                                "gcc -Wall -Werror -c a.c", "counterterrorism", "prefailing"}) {
    CAPTURE(line);
    CHECK_FALSE(LooksLikeErrorLine(line));
  }
  // A word in a path is a file's name (`tar -t`, `find`, a compiler's command): it says nothing
  // of the run.
  for (std::string_view line :
       {"absl/random/seed_gen_exception.h", "  ./logs/crash-2026.log",
        "https://example.com/errors/", "cc -c src/errors.c -o build/errors.o",
        "-rw-r--r-- root/root 1529 2022-08-31 17:15 absl/exception.h", "GET /api/errors 200 3ms",
        "changing ownership of 'absl/random/seed_gen_exception.h': done"}) {
    CAPTURE(line);
    CHECK_FALSE(LooksLikeErrorLine(line));
  }
  // A process that exited with a non-zero code; not one that exited with 0.
  for (std::string_view line :
       {"api-1 exited with code 1", "Process exited with status 137", "exit status 2",
        "worker exited with exit code -9", "  exit code: 1", "child exit status: 255."}) {
    CAPTURE(line);
    CHECK(ReportsFailedExit(line));
    CHECK(LooksLikeErrorLine(line));
    CHECK(FindErrorLine("started\n" + std::string(line) + "\n") == 8);
  }
  for (std::string_view line :
       {"api-1 exited with code 0", "exit status 0", "exit code 10s ago", "nexit code 1",
        "src/exit code 3", "the exit codes 1 and 2", "exit 1", "exited with code"}) {
    CAPTURE(line);
    CHECK_FALSE(ReportsFailedExit(line));
  }
  // A count that ends in 0 is no absence of trouble.
  CHECK(LooksLikeErrorLine("attempt 10 failed: connection refused"));
  CHECK(LooksLikeErrorLine("found 1,000 errors in 3 files"));
  CHECK_FALSE(LooksLikeErrorLine("build finished: 0 errors, 2 warnings"));
  CHECK_FALSE(LooksLikeErrorLine("0 failed, 12 passed"));
  // A refusal: EPERM's "Operation not permitted", as EACCES's "Permission denied".
  CHECK(LooksLikeErrorLine("chown: changing ownership of 'absl': Operation not permitted"));
  for (std::string_view line :
       {"src/error.c:12:", "error:/x", "AssertionError", "java.lang.NullPointerException",
        "build/x.o: error", "make: *** [src/errors.o] Error 1", "FAIL src/errors.test.js",
        "cannot open src/errors.c", "a.js:13:10: 'x' is not defined. [Error/no-undef]"}) {
    CAPTURE(line);
    CHECK(LooksLikeErrorLine(line));
  }
  // A folder's name, a keyword in it after the first slash, joined by '-' or '_' (`du`'s
  // listing); words joined by a slash are not one.
  for (std::string_view line :
       {"100K\tnode_modules/es-errors", "4.0K  src/error_pages", "site-packages/failed_jobs/x"}) {
    CAPTURE(line);
    CHECK_FALSE(LooksLikeErrorLine(line));
  }
  for (std::string_view line :
       {"tests: passed/failed 3/4", "[Error/no-undef]", "fatal/panic-prone", "errors/warnings"}) {
    CAPTURE(line);
    CHECK(LooksLikeErrorLine(line));
  }
  const std::string text = "gcc -Werror -c a.c\nliberror\na.c:3: error: x\n";
  CHECK(FindErrorLine(text) == text.find("a.c:3:"));
}

TEST_CASE("text: FindRequest finds a method and a path, not a word that ends in one") {
  size_t end = 0;
  const std::string_view combined = R"(1.2.3.4 - - [x] "POST /api/pay?x=1 HTTP/2.0" 502 157)";
  CHECK(FindRequest(combined, 0, &end) == combined.find("POST"));
  CHECK(combined.substr(end).starts_with(" HTTP/2.0"));
  const std::string_view morgan = "INFO GET /export 200 streaming";
  CHECK(FindRequest(morgan, 0, &end) == 5);
  CHECK(morgan.substr(end) == " 200 streaming");
  CHECK(FindRequest("TARGET /x 500") == std::string_view::npos);
  CHECK(FindRequest("GET nothing") == std::string_view::npos);
  CHECK(FindRequest("GET / then PUT /b", 1) == 11);
}

TEST_CASE("text: a crash is trouble, a clean syntax check is not") {
  CHECK(LooksLikeErrorLine("18099:M 04 Dec 2026 14:09:03.068 # Redis 7.0.15 crashed by signal: 11, si_code: 2"));
  CHECK_FALSE(LooksLikeErrorLine("No syntax errors detected in PhpParser/Node/Arg.php"));
  CHECK(LooksLikeErrorLine("Errors parsing PhpParser/Node/Expr/YieldFrom.php"));
}

TEST_CASE("text: the status of the request a log line records, in any of the common forms") {
  CHECK(RequestStatus(R"(2026-12-04 14:06:03,213 INFO werkzeug: 127.0.0.1 - - [04/Dec/2026 14:06:03] "GET /divide?a=4&b=0 HTTP/1.1" 500 -)") == 500);
  CHECK(RequestStatus("2026/12/04 14:10:11.188070 GET /order?id=x1 400 33.897µs") == 400);
  // An address after the path is no status: "127" of "127.0.0.1:48496".
  CHECK(RequestStatus("2026/12/04 19:53:03.616294 main.go:22: GET /healthz 127.0.0.1:47706") == 0);
  CHECK(RequestStatus("GET /files 200/3 done") == 0);
  CHECK(RequestStatus(R"(INFO:     127.0.0.1:50012 - "POST /items HTTP/1.1" 422 Unprocessable Entity)") == 422);
  CHECK(RequestStatus(R"({"event": "request finished", "method": "POST", "path": "/invoice", "status": 500, "duration_ms": 10.27})") == 500);
  CHECK(RequestStatus(R"({"level":30,"req":{"method":"GET","url":"/api/items/SKU-1"},"res":{"statusCode":404}})") == 404);
  CHECK(RequestStatus("time=2026-12-04T10:00:00Z level=info method=GET path=/health status=200") == 200);
  // A status field without a request, a number after a path that is not a status.
  CHECK(RequestStatus(R"({"job": "sync", "status": 500})") == 0);
  CHECK(RequestStatus("GET /x 5000 bytes") == 0);
  CHECK(RequestStatus("GET /x 200ms") == 0);
  CHECK(RequestStatus("copied 500 files to /backup") == 0);
}

TEST_CASE("text: a server's line of a request that failed with a 5xx is an error line") {
  for (std::string_view line : {
           R"(127.0.0.1 - - [01/Dec/2026 22:43:59] "GET /orders/42 HTTP/1.1" 500 59)",
           R"(10.0.0.7 - - [12/Mar/2026:10:01:02 +0000] "POST /api/pay HTTP/2.0" 502 157 "-" "curl/7.88")",
           R"(INFO:     127.0.0.1:50312 - "GET /report HTTP/1.1" 500 Internal Server Error)",
           "GET /users/bob 503 1.204 ms - 22",
           "POST /upload 500",
       }) {
    CAPTURE(line);
    CHECK(IsFailedRequestLine(line));
    CHECK(LooksLikeErrorLine(line));
  }
  for (std::string_view line : {
           R"(127.0.0.1 - - [01/Dec/2026 22:43:59] "GET /orders/41 HTTP/1.1" 200 28)",
           R"(127.0.0.1 - - [01/Dec/2026 22:43:59] "GET /missing HTTP/1.1" 404 22)",
           "GET /users/alice 200 0.512 ms - 26",
           "the build took 500 ms",
           "GET /x 5000 bytes",
           "TARGET /x 500",
       }) {
    CAPTURE(line);
    CHECK_FALSE(IsFailedRequestLine(line));
  }
  // Found by the one-pass search too, also when no trouble word comes before it.
  const std::string text =
      "127.0.0.1 - - [x] \"GET / HTTP/1.1\" 200 2\n"
      "127.0.0.1 - - [x] \"GET /report HTTP/1.1\" 500 59\n"
      "Traceback (most recent call last):\n";
  CHECK(FindErrorLine(text) == text.find("127.0.0.1 - - [x] \"GET /report"));
}

TEST_CASE("text: an exit status above 128 names the signal that ended the command, if one did") {
  CHECK(ExitText(1) == "exit 1");
  CHECK(ExitText(139) == "exit 139: SIGSEGV");
  CHECK(ExitText(137) == "exit 137: SIGKILL");
  CHECK(ExitText(134) == "exit 134: SIGABRT");
  CHECK(ExitText(143) == "exit 143: SIGTERM");
  // git's own codes, not signals.
  CHECK(ExitText(128) == "exit 128");
  CHECK(ExitText(129) == "exit 129");
}

}  // namespace
}  // namespace plugline::core
