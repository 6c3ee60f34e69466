// Tests for builtin-logs: each log format it reads, the header's counts, folding of repeats,
// stack-trace trimming, exact elision counts, the fallback and match() confidences.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "builtin/builtin_shapers.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

std::vector<std::string> Shape(std::string_view command, const std::string& output,
                               std::optional<int> exit_code = 0) {
  auto logs = MakeLogsShaper();
  core::ShapeContext ctx{command, exit_code, output.size(), core::CountLines(output),
                         "/s/outputs/x.log"};
  auto shaped = logs->Shape(output, ctx);
  REQUIRE(shaped.ok());
  if (shaped->render_mode == RenderMode::kRaw) return {"<raw>"};
  std::vector<std::string> lines;
  for (std::string_view line : core::SplitLines(shaped->summary)) lines.emplace_back(line);
  return lines;
}

double Confidence(std::string_view command, const std::string& output) {
  auto logs = MakeLogsShaper();
  auto match = logs->Match(command, output, 0);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

bool Has(const std::vector<std::string>& lines, std::string_view line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

size_t IndexOf(const std::vector<std::string>& lines, std::string_view line) {
  auto it = std::find(lines.begin(), lines.end(), line);
  REQUIRE_MESSAGE(it != lines.end(), "missing: " << std::string(line));
  return static_cast<size_t>(it - lines.begin());
}

// Every line of the summary after the header is a line of the output, a "… " marker, or an
// entry's continuation line without the timestamp and source it repeats: two spaces, then the
// end of a line of the output.
void CheckVerbatim(const std::vector<std::string>& summary, const std::string& output) {
  std::vector<std::string_view> source = core::SplitLines(output);
  for (size_t i = 1; i < summary.size(); ++i) {
    auto continuation = [&](std::string_view line) {
      if (!line.starts_with("  ") || line.size() < 3 || line[2] == ' ') return false;
      std::string_view rest = line.substr(2);
      return std::any_of(source.begin(), source.end(), [&](std::string_view s) {
        return s.size() > rest.size() && s.ends_with(rest) && s[s.size() - rest.size() - 1] == ' ';
      });
    };
    bool ok = summary[i].starts_with("… ") || continuation(summary[i]) ||
              std::find(source.begin(), source.end(), summary[i]) != source.end();
    CHECK_MESSAGE(ok, "not from the output: " << summary[i]);
  }
}

// Python logging (asctime levelname name message) with a traceback and many warnings.
std::string PythonLog() {
  std::string out;
  for (int i = 1; i <= 200; ++i) {
    StrAppend(&out, "2026-11-29 20:01:", i % 60 < 10 ? "0" : "", i % 60, ",", 100 + i,
              " INFO     worker [311] job ", i, " done in ", i % 7, " ms\n");
    if (i % 20 == 0) {
      StrAppend(&out, "2026-11-29 20:01:", i % 60 < 10 ? "0" : "", i % 60, ",", 200 + i,
                " WARNING  worker [311] queue depth ", 100 + i, " above 100\n");
    }
    if (i == 120) {
      out +=
          "2026-11-29 20:01:00,777 ERROR    worker [311] job 120 failed\n"
          "Traceback (most recent call last):\n"
          "  File \"/srv/app/worker.py\", line 40, in run\n"
          "    result = handler(job)\n"
          "             ^^^^^^^^^^^^\n"
          "  File \"/usr/lib/python3/dist-packages/requests/api.py\", line 59, in request\n"
          "    return session.request(method=method, url=url, **kwargs)\n"
          "  File \"/srv/app/handlers.py\", line 12, in handler\n"
          "    raise ValueError(f\"bad payload {job.id}\")\n"
          "ValueError: bad payload 120\n";
    }
  }
  out += "2026-11-29 20:02:01,001 CRITICAL worker [311] out of workers, exiting\n";
  return out;
}

TEST_CASE("logs: python logging — header counts, traceback trimmed, warnings folded, exact elisions") {
  std::string out = PythonLog();
  auto s = Shape("python3 worker.py", out, 1);
  CheckVerbatim(s, out);
  // 200 info + 10 warnings + 1 error with 9 traceback lines + 1 critical.
  CHECK(s[0] ==
        "log: FAILED (exit 1), 221 lines, 1 critical, 1 error, 10 warnings, 200 info "
        "(2026-11-29 20:01:01,101 – 2026-11-29 20:02:01,001)");
  // The first five lines as they are.
  CHECK(s[1] == "2026-11-29 20:01:01,101 INFO     worker [311] job 1 done in 1 ms");
  CHECK(s[5] == "2026-11-29 20:01:05,105 INFO     worker [311] job 5 done in 5 ms");
  // 10 warnings are few: each is shown.
  CHECK(Has(s, "2026-11-29 20:01:20,220 WARNING  worker [311] queue depth 120 above 100"));
  CHECK(Has(s, "2026-11-29 20:01:20,400 WARNING  worker [311] queue depth 300 above 100"));
  // Between them, the info chatter counted: lines 6..20 are jobs 6..20 (15 lines).
  size_t w1 = IndexOf(s, "2026-11-29 20:01:20,220 WARNING  worker [311] queue depth 120 above 100");
  CHECK(s[w1 - 1] == "… 15 info lines omitted");
  // The traceback: the error line, the user's frames with their code, the exception; the
  // library frame (2 lines) and the ^^^ marker counted.
  size_t e = IndexOf(s, "2026-11-29 20:01:00,777 ERROR    worker [311] job 120 failed");
  CHECK(s[e + 1] == "Traceback (most recent call last):");
  CHECK(s[e + 2] == "  File \"/srv/app/worker.py\", line 40, in run");
  CHECK(s[e + 3] == "    result = handler(job)");
  CHECK(s[e + 4] == "  File \"/srv/app/handlers.py\", line 12, in handler");
  CHECK(s[e + 5] == "    raise ValueError(f\"bad payload {job.id}\")");
  CHECK(s[e + 6] == "ValueError: bad payload 120");
  CHECK(s[e + 7] == "… 3 lines of library stack frames and ^~ markers omitted");
  // The last ten lines as they are, the critical one last.
  CHECK(s.back() == "2026-11-29 20:02:01,001 CRITICAL worker [311] out of workers, exiting");
  // Every line is shown or counted once.
  uint64_t counted = 0, shown = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i].starts_with("… ")) {
      counted += std::stoull(s[i].substr(std::string("… ").size()));
    } else {
      ++shown;
    }
  }
  CHECK(shown + counted == 221);
}

TEST_CASE("logs: many warnings fold by kind, errors fold with the last occurrence's timestamp") {
  std::string out;
  for (int i = 0; i < 300; ++i) {
    StrAppend(&out, "2026-11-29T20:", 10 + i / 60, ":", i % 60 < 10 ? "0" : "", i % 60,
              ".000Z WARN  [cache] eviction of key user:", 1000 + i, " took ", i, "ms\n");
    StrAppend(&out, "2026-11-29T20:", 10 + i / 60, ":", i % 60 < 10 ? "0" : "", i % 60,
              ".500Z INFO  [http] GET /api/items/", i, " 200\n");
    if (i % 50 == 7) {
      StrAppend(&out, "2026-11-29T20:", 10 + i / 60, ":", i % 60 < 10 ? "0" : "", i % 60,
                ".900Z ERROR [db] connection to 10.0.0.", i % 9, ":5432 refused (attempt ", i,
                ")\n");
    }
  }
  auto s = Shape("kubectl logs deploy/api", out);
  CheckVerbatim(s, out);
  CHECK(s[0] ==
        "log: 606 lines, 300 requests by status: 300 × 200, 6 errors, 300 warnings, 300 info "
        "(2026-11-29T20:10:00.000Z – "
        "2026-11-29T20:14:59.500Z)");
  // One kind of warning: shown once with the others counted.
  size_t w = IndexOf(s, "2026-11-29T20:10:00.000Z WARN  [cache] eviction of key user:1000 took 0ms");
  CHECK(s[w + 1] == "… 299 more like the line above, numbers differing (last at "
                    "2026-11-29T20:14:59.000Z)");
  // Six errors equal but for numbers and the IP: one line, then the others by their time and
  // the values that differ, each with the word before it — which host, which attempt.
  size_t e = IndexOf(s, "2026-11-29T20:10:07.900Z ERROR [db] connection to 10.0.0.7:5432 refused (attempt 7)");
  CHECK(s[e + 1] == "… 5 more like the line above, numbers differing, at: 2026-11-29T20:10:57.900Z "
                    "to 10.0.0.3:5432 (attempt 57); 2026-11-29T20:11:47.900Z to 10.0.0.8:5432 "
                    "(attempt 107); 2026-11-29T20:12:37.900Z to 10.0.0.4:5432 (attempt 157); "
                    "2026-11-29T20:13:27.900Z to 10.0.0.0:5432 (attempt 207); "
                    "2026-11-29T20:14:17.900Z to 10.0.0.5:5432 (attempt 257)");
  CHECK(s.size() < 40);
}

TEST_CASE("logs: pino JSON lines kept verbatim, numeric levels counted") {
  std::string out;
  for (int i = 0; i < 60; ++i) {
    StrAppend(&out, "{\"level\":30,\"time\":17959841", 10000 + i * 7,
              ",\"pid\":7,\"reqId\":\"c9a25dca-5aec-45bf-a945-fd3006b9d5", 10 + i,
              "\",\"msg\":\"request completed\"}\n");
  }
  out +=
      "{\"level\":50,\"time\":1795984110500,\"pid\":7,\"err\":{\"type\":\"TypeError\","
      "\"message\":\"Cannot read properties of undefined (reading 'total')\",\"stack\":\"TypeError: "
      "x\\n    at invoice (/srv/server.js:29:53)\"},\"msg\":\"request failed\"}\n"
      "{\"level\":40,\"time\":1795984110600,\"pid\":7,\"sku\":\"SKU-1\",\"msg\":\"item not found\"}\n"
      "{\"level\":50,\"time\":1795984110700,\"pid\":7,\"err\":{\"type\":\"TypeError\","
      "\"message\":\"Cannot read properties of undefined (reading 'total')\",\"stack\":\"TypeError: "
      "x\\n    at invoice (/srv/server.js:29:53)\"},\"msg\":\"request failed\"}\n";
  for (int i = 0; i < 20; ++i) {
    StrAppend(&out, "{\"level\":\"info\",\"time\":17959842", 10000 + i,
              ",\"pid\":7,\"msg\":\"heartbeat\"}\n");
  }
  auto s = Shape("node server.js", out);
  CHECK(s[0] == "log: 83 lines, 2 errors, 1 warning, 80 info (1795984110000 – 1795984210019)");
  // The lines as they are; the two errors equal but for the time: one, and its repeat.
  size_t e = IndexOf(s, core::SplitLines(out)[60]);
  CHECK(s[e - 1] == "… 55 info lines omitted");
  CHECK(s[e + 1] == "… 1 repeat of the line above (last at 1795984110700)");
  CHECK(s[e + 2] == std::string(core::SplitLines(out)[61]));  // the warning
  CHECK(s[e + 3] == "… 10 info lines omitted");
}

TEST_CASE("logs: a JSON log's failed requests alike but for their paths list the paths") {
  // pino-http's request lines: a failure on /api/orders/800 and one on /api/orders/2100 are
  // the same line but for their numbers; the second's path is named, not lost in a repeat.
  std::string out;
  auto request = [&out](int id, std::string_view method, std::string_view url, int status) {
    StrAppend(&out, "{\"level\":30,\"time\":17959841", 10000 + id,
              ",\"pid\":7,\"req\":{\"id\":", id, ",\"method\":\"", method, "\",\"url\":\"", url,
              "\"},\"res\":{\"statusCode\":", status,
              "},\"responseTime\":", id % 7 + 1, ",\"msg\":\"request completed\"}\n");
  };
  for (int i = 0; i < 40; ++i) {
    if (i == 10 || i == 30) {
      request(i, "POST", StrCat("/api/orders/", i * 70), 500);
    } else {
      request(i, "GET", StrCat("/api/items/", i), 200);
    }
  }
  auto s = Shape("cat app.log", out);
  INFO(absl::StrJoin(s, "\n"));
  CHECK(s[0] == "access log: 40 requests by status: 2 × 500, 38 × 200, 40 info (1795984110000 – "
                "1795984110039)");
  const size_t first = IndexOf(s, core::SplitLines(out)[10]);
  REQUIRE(first < s.size() - 1);
  CHECK(s[first + 1] ==
        "… 1 more like the line above (last at 1795984110030) at: /api/orders/2100");
  // The path a JSON line names: a request's before a file's.
  std::string files;
  for (int i = 0; i < 40; ++i) {
    StrAppend(&files, "{\"level\":50,\"time\":", 1795984110000 + i, ",\"file\":\"/srv/app/x.js\",",
              "\"path\":\"/api/report/", i, "\",\"msg\":\"render failed\"}\n");
  }
  auto f = Shape("cat app.log", files);
  INFO(absl::StrJoin(f, "\n"));
  REQUIRE(f.size() > 2);
  CHECK(f[2].find("at: /api/report/1; /api/report/2;") != std::string::npos);
}

TEST_CASE(
    "logs: a traceback repeated for other paths lists each one's exception where it differs") {
  // Python's http.server: a handler that raises is reported between lines of dashes, with no
  // request line of its own; the path is in the exception's message only.
  std::string out;
  int n = 0;
  auto ok = [&] {
    StrAppend(&out, "127.0.0.1 - - [07/Dec/2026 16:54:", 10 + n / 10, "] \"GET /api/users/", n,
              " HTTP/1.1\" 200 -\n");
    ++n;
  };
  for (int job = 53; job < 600; job += 100) {
    for (int i = 0; i < 12; ++i) ok();
    StrAppend(
        &out,
        "----------------------------------------\n"
        "Exception occurred during processing of request from ('127.0.0.1', ",
        36000 + job,
        ")\n"
        "Traceback (most recent call last):\n"
        "  File \"/usr/lib/python3.11/socketserver.py\", line 691, in process_request_thread\n"
        "    self.finish_request(request, client_address)\n"
        "  File \"/srv/app.py\", line 30, in do_GET\n"
        "    raise RuntimeError(\"handler crashed hard on \" + self.path)\n"
        "RuntimeError: handler crashed hard on /crash/job",
        job,
        "\n"
        "----------------------------------------\n");
  }
  for (int i = 0; i < 12; ++i) ok();
  auto s = Shape("cat access.log", out);
  INFO(absl::StrJoin(s, "\n"));
  CheckVerbatim(s, out);
  IndexOf(s, "RuntimeError: handler crashed hard on /crash/job53");
  IndexOf(s,
          "… 5 more like the entry above, its last line differing, at: /crash/job153; "
          "/crash/job253; /crash/job353; /crash/job453; /crash/job553");
}

TEST_CASE("logs: repeats of a failed request name each path once, with how many times") {
  std::string out;
  int sec = 0;
  auto line = [&](std::string_view path, int status) {
    StrAppend(&out, "203.0.113.9 - - [29/Nov/2026:20:", 10 + sec / 60, ":",
              sec % 60 < 10 ? "0" : "", sec % 60, " +0000] \"GET ", path, " HTTP/1.1\" ", status,
              " 512 \"-\" \"curl/8.0\"\n");
    ++sec;
  };
  for (int i = 0; i < 30; ++i) line("/index.html", 200);
  for (int i = 0; i < 90; ++i) line(absl::StrCat("/api/orders?page=", i % 3), 502);
  line("/api/orders?page=7", 502);
  for (int i = 0; i < 30; ++i) line("/index.html", 200);
  auto s = Shape("tail -n 200 /var/log/nginx/access.log", out);
  CheckVerbatim(s, out);
  INFO(absl::StrJoin(s, "\n"));
  size_t e = IndexOf(s,
                     "… 90 more like the line above (last at 29/Nov/2026:20:12:00 +0000) at: "
                     "GET /api/orders?page=1 ×30; GET /api/orders?page=2 ×30; "
                     "GET /api/orders?page=0 ×29; GET /api/orders?page=7");
  CHECK(s[e - 1].find("\"GET /api/orders?page=0 HTTP/1.1\" 502") != std::string::npos);
}

TEST_CASE("logs: nginx access log grouped by status: 5xx kept, 4xx few shown, 2xx counted") {
  std::string out;
  auto line = [&](int sec, std::string_view request, int status) {
    StrAppend(&out, "203.0.113.", sec % 200, " - - [29/Nov/2026:20:12:", sec < 10 ? "0" : "", sec,
              " +0000] \"", request, "\" ", status, " 512 \"-\" \"curl/8.0\"\n");
  };
  for (int i = 0; i < 50; ++i) line(i, "GET /index.html HTTP/1.1", 200);
  line(50, "GET /api/orders/1 HTTP/1.1", 502);
  line(51, "GET /api/orders/2 HTTP/1.1", 502);
  line(52, "GET /api/orders/3 HTTP/1.1", 500);  // same path shape, other status
  line(53, "GET /wp-login.php HTTP/1.1", 404);
  line(54, "POST /api/orders HTTP/1.1", 413);
  for (int i = 55; i < 59; ++i) line(i, "GET /old HTTP/1.1", 301);
  for (int i = 0; i < 20; ++i) line(59, "GET /index.html HTTP/1.1", 200);
  auto s = Shape("tail -n 200 /var/log/nginx/access.log", out);
  CheckVerbatim(s, out);
  CHECK(s[0] ==
        "access log: 79 requests by status: 1 × 500, 2 × 502, 1 × 404, 1 × 413, 4 × 301, 70 × 200 "
        "(29/Nov/2026:20:12:00 +0000 – 29/Nov/2026:20:12:59 +0000)");
  size_t e = IndexOf(s, "203.0.113.50 - - [29/Nov/2026:20:12:50 +0000] \"GET /api/orders/1 HTTP/1.1\" 502 512 \"-\" \"curl/8.0\"");
  CHECK(s[e - 1] == "… 45 2xx lines omitted");
  // A repeat for another request: the marker names it.
  CHECK(s[e + 1] == "… 1 more like the line above (last at 29/Nov/2026:20:12:51 +0000) at: GET /api/orders/2");
  CHECK(s[e + 2] == "203.0.113.52 - - [29/Nov/2026:20:12:52 +0000] \"GET /api/orders/3 HTTP/1.1\" 500 512 \"-\" \"curl/8.0\"");
  CHECK(s[e + 3] == "203.0.113.53 - - [29/Nov/2026:20:12:53 +0000] \"GET /wp-login.php HTTP/1.1\" 404 512 \"-\" \"curl/8.0\"");
  CHECK(s[e + 4] == "203.0.113.54 - - [29/Nov/2026:20:12:54 +0000] \"POST /api/orders HTTP/1.1\" 413 512 \"-\" \"curl/8.0\"");
  CHECK(s[e + 5] == "… 14 lines omitted (4 3xx, 10 2xx)");
}

TEST_CASE("logs: PostgreSQL errors keep their DETAIL, HINT and STATEMENT lines") {
  std::string out;
  for (int i = 0; i < 30; ++i) {
    StrAppend(&out, "2026-11-29 20:29:0", i / 10, ".", 100 + i,
              " UTC [19521] LOG:  checkpoint starting: time\n");
  }
  out +=
      "2026-11-29 20:29:09.779 UTC [19668] app@shop ERROR:  duplicate key value violates unique "
      "constraint \"items_pkey\"\n"
      "2026-11-29 20:29:09.779 UTC [19668] app@shop DETAIL:  Key (sku)=(SKU-1) already exists.\n"
      "2026-11-29 20:29:09.779 UTC [19668] app@shop STATEMENT:  INSERT INTO items VALUES ('SKU-1');\n"
      "2026-11-29 20:29:10.001 UTC [19700] app@shop LOG:  duration: 1706.793 ms  statement: SELECT "
      "pg_sleep(1.7)\n"
      "2026-11-29 20:29:13.126 UTC [19836] app@archive FATAL:  database \"archive\" does not exist\n";
  for (int i = 0; i < 12; ++i) {
    StrAppend(&out, "2026-11-29 20:29:2", i / 10, ".", 100 + i,
              " UTC [19521] LOG:  checkpoint complete\n");
  }
  auto s = Shape("cat /var/log/postgresql/postgresql-15-main.log", out);
  CheckVerbatim(s, out);
  CHECK(s[0] ==
        "log: 47 lines, 1 fatal, 1 error, 43 LOG (2026-11-29 20:29:00.100 UTC – 2026-11-29 "
        "20:29:21.111 UTC)");
  size_t e = IndexOf(s, core::SplitLines(out)[30]);
  CHECK(s[e - 1] == "… 25 LOG lines omitted");
  // The continuation lines repeat the error's timestamp, process and source: shown without them.
  CHECK(s[e + 1] == "  DETAIL:  Key (sku)=(SKU-1) already exists.");
  CHECK(s[e + 2] == "  STATEMENT:  INSERT INTO items VALUES ('SKU-1');");
  CHECK(s[e + 3] == "… 1 LOG line omitted");
  CHECK(s[e + 4] == std::string(core::SplitLines(out)[34]));  // FATAL
}

TEST_CASE("logs: syslog lines without a level: trouble kept, the rest counted") {
  std::string out;
  for (int i = 0; i < 40; ++i) {
    StrAppend(&out, "Nov  9 03:1", i / 10, ":0", i % 10, " web01 CRON[", 2000 + i,
              "]: (root) CMD (run-parts /etc/cron.hourly)\n");
    if (i == 20) {
      out += "Nov  9 03:12:00 web01 backup.sh[4242]: pg_dump of shop failed (exit 1)\n";
      out += "Nov  9 03:12:01 web01 kernel: [ 8123.4567] Out of memory: Killed process 4242 (pg_dump)\n";
    }
  }
  auto s = Shape("journalctl --since today", out);
  CheckVerbatim(s, out);
  CHECK(s[0] == "log: 42 lines (Nov  9 03:10:00 – Nov  9 03:13:09)");
  size_t e = IndexOf(s, "Nov  9 03:12:00 web01 backup.sh[4242]: pg_dump of shop failed (exit 1)");
  CHECK(s[e - 1] == "… 16 lines without a level omitted");
  CHECK(s[e + 1] == "Nov  9 03:12:01 web01 kernel: [ 8123.4567] Out of memory: Killed process 4242 (pg_dump)");
  CHECK(s[e + 2] == "… 9 lines without a level omitted");
}

TEST_CASE("logs: other formats — glog, logfmt, bracketed, Apache error, Ruby, Go stack, Java trace") {
  SUBCASE("glog/klog") {
    std::string out;
    for (int i = 0; i < 30; ++i) {
      StrAppend(&out, "I1129 20:12:", 10 + i, ".123456    4242 server.go:88] served /healthz\n");
    }
    out += "E1129 20:12:59.000001    4242 server.go:120] failed to sync pod kube-system/dns: timeout\n";
    out += "W1129 20:13:00.000001    4242 server.go:130] slow disk\n";
    auto s = Shape("kubectl logs -n kube-system kubelet-x", out);
    CHECK(s[0] == "log: 32 lines, 1 error, 1 warning, 30 info (1129 20:12:10.123456 – 1129 20:13:00.000001)");
    CHECK(Has(s, "E1129 20:12:59.000001    4242 server.go:120] failed to sync pod kube-system/dns: timeout"));
  }
  SUBCASE("logfmt") {
    std::string out;
    for (int i = 0; i < 30; ++i) {
      StrAppend(&out, "time=2026-11-29T20:12:", 10 + i, "Z level=info msg=\"tick\" n=", i, "\n");
    }
    out += "time=2026-11-29T20:13:00Z level=error msg=\"dial tcp 10.1.2.3:443: i/o timeout\"\n";
    auto s = Shape("docker logs api", out);
    CHECK(s[0] == "log: 31 lines, 1 error, 30 info (2026-11-29T20:12:10Z – 2026-11-29T20:13:00Z)");
    CHECK(Has(s, "time=2026-11-29T20:13:00Z level=error msg=\"dial tcp 10.1.2.3:443: i/o timeout\""));
  }
  SUBCASE("bracketed levels and Apache's [module:level]") {
    std::string out;
    for (int i = 0; i < 30; ++i) {
      StrAppend(&out, "[Sun Nov 29 20:12:", 10 + i, ".123456 2026] [mpm_event:notice] [pid 1] resuming\n");
    }
    out += "[Sun Nov 29 20:13:00.000001 2026] [proxy:error] [pid 9] (111)Connection refused: AH00957: backend down\n";
    auto s = Shape("cat /var/log/apache2/error.log", out);
    CHECK(s[0] == "log: 31 lines, 1 error, 30 notices (Sun Nov 29 20:12:10.123456 2026 – Sun Nov 29 20:13:00.000001 2026)");
    CHECK(s[s.size() - 1] == "[Sun Nov 29 20:13:00.000001 2026] [proxy:error] [pid 9] (111)Connection refused: AH00957: backend down");
  }
  SUBCASE("Ruby Logger and a level word opening the line") {
    std::string out;
    for (int i = 0; i < 30; ++i) {
      StrAppend(&out, "I, [2026-11-29T20:12:", 10 + i, ".000001 #77]  INFO -- : Completed 200 OK\n");
    }
    out += "E, [2026-11-29T20:13:00.000001 #77] ERROR -- : PG::ConnectionBad: could not connect\n";
    out += "WARNING:root:disk almost full\n";
    auto s = Shape("heroku logs --tail", out);
    CHECK(s[0] == "log: 32 lines, 1 error, 1 warning, 30 info (2026-11-29T20:12:10.000001 – 2026-11-29T20:13:00.000001)");
  }
  SUBCASE("Go panic after log.Printf lines: the runtime's frames (two lines each) counted") {
    std::string out;
    for (int i = 0; i < 25; ++i) StrAppend(&out, "2026/11/29 20:12:", 10 + i, " handled request ", i, "\n");
    out +=
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
        "goroutine 18 [running]:\n"
        "main.(*Server).handle(0x0, {0x5c1f20, 0xc000120000})\n"
        "\t/home/u/app/server.go:42 +0x1c\n"
        "net/http.HandlerFunc.ServeHTTP(0x0?, {0x5c1f20?, 0xc000120000?}, 0x0?)\n"
        "\t/usr/local/go/src/net/http/server.go:2136 +0x29\n"
        "exit status 2\n";
    auto s = Shape("./server", out, 1);
    CHECK(s[0] ==
          "log: FAILED (exit 1), 32 lines, 1 panic (2026/11/29 20:12:10 – 2026/11/29 20:12:34)");
    size_t p = IndexOf(s, "panic: runtime error: invalid memory address or nil pointer dereference");
    // Lines 6..22 counted; 23..25 are among the last ten lines.
    CHECK(s[p - 4] == "… 17 lines without a level omitted");
    CHECK(s[p - 1] == "2026/11/29 20:12:34 handled request 24");
    CHECK(s[p + 2] == "main.(*Server).handle(0x0, {0x5c1f20, 0xc000120000})");
    CHECK(s[p + 3] == "\t/home/u/app/server.go:42 +0x1c");
    CHECK(s[p + 4] == "exit status 2");
    CHECK(s[p + 5] == "… 2 lines of library stack frames omitted");
  }
  SUBCASE("Java stack trace: library frames counted, Caused by kept") {
    std::string out;
    for (int i = 0; i < 30; ++i) {
      StrAppend(&out, "2026-11-29 20:12:", 10 + i, ".123  INFO 1 --- [main] c.e.Api : ok\n");
    }
    out +=
        "2026-11-29 20:13:00.001 ERROR 1 --- [nio-8080-exec-1] c.e.Api : request failed\n"
        "java.lang.IllegalStateException: order 7 has no lines\n"
        "\tat com.example.orders.Invoice.total(Invoice.java:41)\n"
        "\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:897)\n"
        "\tat java.base/java.lang.Thread.run(Thread.java:840)\n"
        "Caused by: java.lang.NullPointerException: lines is null\n"
        "\tat com.example.orders.Order.lines(Order.java:12)\n"
        "\t... 2 more\n";
    for (int i = 0; i < 10; ++i) {
      StrAppend(&out, "2026-11-29 20:13:", 10 + i, ".123  INFO 1 --- [main] c.e.Api : ok\n");
    }
    auto s = Shape("kubectl logs api-7d9f", out);
    size_t e = IndexOf(s, "2026-11-29 20:13:00.001 ERROR 1 --- [nio-8080-exec-1] c.e.Api : request failed");
    CHECK(s[e + 1] == "java.lang.IllegalStateException: order 7 has no lines");
    CHECK(s[e + 2] == "\tat com.example.orders.Invoice.total(Invoice.java:41)");
    CHECK(s[e + 3] == "Caused by: java.lang.NullPointerException: lines is null");
    CHECK(s[e + 4] == "\tat com.example.orders.Order.lines(Order.java:12)");
    CHECK(s[e + 5] == "\t... 2 more");
    CHECK(s[e + 6] == "… 2 lines of library stack frames omitted");
  }
}

TEST_CASE("logs: a crash printed after the last log line is kept") {
  std::string out;
  for (int i = 0; i < 40; ++i) {
    StrAppend(&out, "2026-11-29T20:12:", 10 + i, ".000Z info: served request ", i, "\n");
  }
  out +=
      "/srv/app/server.js:36\n"
      "      throw new Error('reindex failed');\n"
      "      ^\n"
      "\n"
      "Error: reindex failed\n"
      "    at Immediate.reindex (/srv/app/server.js:36:13)\n"
      "    at process.processImmediate (node:internal/timers:483:21)\n"
      "\n"
      "Node.js v20.20.2\n";
  for (int i = 0; i < 11; ++i) out += "restarting in 1s\n";
  auto s = Shape("docker logs api", out, 1);
  CheckVerbatim(s, out);
  CHECK(s[0] == "log: FAILED (exit 1), 60 lines, 40 info (2026-11-29T20:12:10.000Z – "
                "2026-11-29T20:12:49.000Z)");
  size_t e = IndexOf(s, "Error: reindex failed");
  CHECK(s[e + 1] == "    at Immediate.reindex (/srv/app/server.js:36:13)");
  CHECK(Has(s, "/srv/app/server.js:36"));
}

TEST_CASE("logs: a quiet log is the header, the first and last lines and one count") {
  std::string out;
  for (int i = 0; i < 500; ++i) {
    StrAppend(&out, "2026-11-29 20:", 10 + i / 60, ":", i % 60 < 10 ? "0" : "", i % 60,
              " [INFO] tick ", i, "\n");
  }
  auto s = Shape("tail -n 500 /var/log/app/app.log", out);
  REQUIRE(s.size() == 17);
  CHECK(s[0] == "log: 500 lines, 500 info (2026-11-29 20:10:00 – 2026-11-29 20:18:19)");
  CHECK(s[1] == "2026-11-29 20:10:00 [INFO] tick 0");
  CHECK(s[6] == "… 485 info lines omitted");
  CHECK(s[16] == "2026-11-29 20:18:19 [INFO] tick 499");
}

TEST_CASE("logs: output without log structure falls back to head, tail and error lines") {
  std::string out;
  for (int i = 0; i < 300; ++i) {
    if (i == 150) {
      out += "panic: runtime error: index out of range [3] with length 3\n";
    } else {
      StrAppend(&out, "processing record ", i, "\n");
    }
  }
  auto s = Shape("kubectl logs job/import", out, 2);
  CHECK(s[0] == "kubectl: FAILED (exit 2), 300 lines");
  CHECK(Has(s, "panic: runtime error: index out of range [3] with length 3"));
  CHECK(s[1] == "processing record 0");
  // Tiny outputs and unstored ones are shown raw.
  CHECK(Shape("journalctl -u x", "-- No entries --\n") == std::vector<std::string>{"<raw>"});
}

TEST_CASE("logs: match confidences") {
  std::string log;
  for (int i = 0; i < 20; ++i) {
    StrAppend(&log, "2026-11-29 20:12:", 10 + i, ",000 INFO app: step ", i, "\n");
  }
  std::string access;
  for (int i = 0; i < 20; ++i) {
    StrAppend(&access, "10.0.0.1 - - [29/Nov/2026:20:12:", 10 + i,
              " +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"curl/8\"\n");
  }
  std::string compiler =
      "src/main.c:12:5: error: 'x' undeclared (first use in this function)\n"
      "src/main.c:14:1: warning: control reaches end of non-void function\n"
      "make: *** [Makefile:8: main.o] Error 1\n";
  std::string pytest =
      "============================= test session starts ==============================\n"
      "collected 3 items\n\ntests/test_a.py ..F                                   [100%]\n"
      "=========================== 1 failed, 2 passed in 0.05s ===========================\n";
  std::string levels;
  for (int i = 0; i < 10; ++i) StrAppend(&levels, "[INFO] Building module ", i, "\n");

  // Commands that read logs.
  CHECK(Confidence("journalctl -u nginx --no-pager", log) == doctest::Approx(0.9));
  CHECK(Confidence("kubectl logs deploy/api --tail=200", log) == doctest::Approx(0.9));
  CHECK(Confidence("docker compose logs web | tail -100", log) == doctest::Approx(0.9));
  CHECK(Confidence("sudo tail -f /srv/app/current", log) == doctest::Approx(0.9));
  CHECK(Confidence("cat /var/log/syslog", log) == doctest::Approx(0.9));
  CHECK(Confidence("tail -n 5000 /tmp/nginx/access.log", access) == doctest::Approx(0.9));
  // A logs command whose output is not a log: still this shaper, below output-specific ones.
  CHECK(Confidence("docker logs runner", pytest) == doctest::Approx(0.65));
  // Only the output's signals: at most 0.8, below the test and build shapers.
  CHECK(Confidence("python3 app.py", log) == doctest::Approx(0.8));
  CHECK(Confidence("./run.sh", access) == doctest::Approx(0.8));
  CHECK(Confidence("mvn -q exec:java", levels) == doctest::Approx(0.55));
  // Looks like a log file, but the output is a compiler's or a test runner's: not a log.
  CHECK(Confidence("cat build.log", compiler) == 0);
  CHECK(Confidence("tail -n 50 test.log", pytest) == 0);
  CHECK(Confidence("make", compiler) == 0);
  CHECK(Confidence("ls -la", "total 8\ndrwxr-xr-x 2 root root 4096 Nov 29 20:12 .\n") == 0);
}

// The output as shapers see it: the pipeline takes out terminal control sequences (werkzeug
// colours its request lines) before shaping.
std::string AsShaped(const std::string& output) {
  std::string stripped;
  return core::StripControlSequences(output, &stripped) ? stripped : output;
}

TEST_CASE("logs: a request logged after a logger's prefix is counted by status, and the failed one stays by its traceback") {
  const std::string out = AsShaped(testing::ReadFixture("logs", "flask-shop"));
  auto s = Shape("cat server.log", out);
  CheckVerbatim(s, out);
  CHECK(s[0].starts_with("log: 541 lines, 427 requests by status: 5 × 500, 60 × 404, 362 × 200, "));
  // Each traceback, with the user's frames, and the request that failed right after it.
  size_t e = IndexOf(s, "ZeroDivisionError: division by zero");
  REQUIRE(e + 2 < s.size());
  CHECK(s[e + 2].find("\"GET /divide?a=4&b=0 HTTP/1.1\" 500 -") != std::string::npos);
  CHECK(Has(s, "  File \"/tmp/plg-logs/flask/shop.py\", line 33, in divide"));
  for (std::string_view request : {"GET /orders/1 HTTP/1.1", "GET /db HTTP/1.1", "POST /parse HTTP/1.1"}) {
    CHECK_MESSAGE(std::any_of(s.begin(), s.end(), [&](const std::string& line) {
      return line.find(request) != std::string::npos && line.ends_with("\" 500 -");
    }), request);
  }
}

TEST_CASE("logs: errors for other paths are not repeats: a traceback like one shown keeps its first and last lines") {
  const std::string out = AsShaped(testing::ReadFixture("logs", "flask-users"));
  auto s = Shape("tail -n 5000 server.log", out);
  CheckVerbatim(s, out);
  for (int user = 1001; user <= 1040; ++user) {
    const std::string path = StrCat("/user/", user);
    CHECK_MESSAGE(std::any_of(s.begin(), s.end(), [&](const std::string& line) {
      return line.ends_with(StrCat("ERROR users: Exception on ", path, " [GET]"));
    }), path);
    CHECK_MESSAGE(std::any_of(s.begin(), s.end(), [&](const std::string& line) {
      return line.find(StrCat("\"GET ", path, " HTTP/1.1\" 500")) != std::string::npos;
    }), path);
  }
  size_t e = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].ends_with("ERROR users: Exception on /user/1006 [GET]")) e = i;
  }
  REQUIRE(e > 0);
  CHECK(s[e + 1].starts_with("… "));
  CHECK(s[e + 1].ends_with(" lines omitted, as in the entry like it above"));
  CHECK(s[e + 2] == "KeyError: 'profile_1006'");
  // The later ones: the two lines, what they leave out counted in one marker at the end.
  size_t later = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].ends_with("ERROR users: Exception on /user/1007 [GET]")) later = i;
  }
  REQUIRE(later > e);
  CHECK(s[later + 1] == "ValueError: invalid literal for int() with base 10: 'id-1007'");
  CHECK(std::count_if(s.begin(), s.end(), [](const std::string& line) {
          return line.ends_with(", as in the entry like it above");
        }) == 1);
  CHECK(std::any_of(s.begin() + static_cast<std::ptrdiff_t>(later), s.end(), [](const std::string& line) {
    return line.starts_with("… ") &&
           line.ends_with(" more errors like one shown in full above omitted (each is shown by "
                          "its first and last lines)");
  }));
}

TEST_CASE("logs: a traceback through other code is no repeat, whatever its first and last lines") {
  // Two decimal.InvalidOperation under "invoice generation failed": one raised in line_total,
  // the other in compute_invoice's discount. Their first and last lines differ only in digits.
  const std::string out = testing::ReadFixture("logs", "billing-worker");
  auto s = Shape("python3 -m billing.worker", out, 1);
  CheckVerbatim(s, out);
  for (const char* id : {"INV-2026-00407", "INV-2026-00993", "INV-2026-01288", "INV-2026-01501"}) {
    CHECK_MESSAGE(std::any_of(s.begin(), s.end(), [&](const std::string& line) {
      return line.ends_with(StrCat("invoice_id=", id));
    }), id);
  }
  for (const char* frame : {"billing/invoices.py\", line 6, in line_total",
                            "billing/invoices.py\", line 11, in compute_invoice"}) {
    CHECK_MESSAGE(std::any_of(s.begin(), s.end(), [&](const std::string& line) {
      return line.ends_with(frame);
    }), frame);
  }
  CHECK(std::none_of(s.begin(), s.end(), [](const std::string& line) {
    return line.find("repeat") != std::string::npos || line.find("as in the entry like it") != std::string::npos;
  }));
}

TEST_CASE("logs: one-line failures alike but for their numbers are listed by them, no repeats") {
  // A payment worker: 7 of 600 charges declined, one ERROR line each, alike but for the order
  // number and the decline code.
  const std::string out = testing::ReadFixture("logs", "charges-worker");
  auto s = Shape("python3 worker.py", out, 1);
  INFO(absl::StrJoin(s, "\n"));
  const std::vector<std::string_view> raw = core::SplitLines(out);
  const auto first = std::find_if(raw.begin(), raw.end(), [](std::string_view line) {
    return line.find(" ERROR ") != std::string_view::npos;
  });
  REQUIRE(first != raw.end());
  const size_t e = IndexOf(s, *first);
  REQUIRE(e + 1 < s.size());
  const std::string& list = s[e + 1];
  CHECK(list.starts_with("… 6 more like the line above, numbers differing, at: "));
  // Each of the others by its timestamp, its order and its code, as the line has them.
  size_t listed = 0;
  for (auto it = first + 1; it != raw.end(); ++it) {
    if (it->find(" ERROR ") == std::string_view::npos) continue;
    ++listed;
    const std::string_view line = *it;
    const std::string_view ts = line.substr(0, line.find(" ERROR "));
    const size_t order = line.find("order ");
    const std::string_view number = line.substr(order, line.find(':', order) + 1 - order);
    const std::string_view code = line.substr(line.rfind('('));
    CHECK_MESSAGE(list.find(StrCat(ts, " ", number, " ", code)) != std::string::npos, line);
  }
  CHECK(listed == 6);
  CHECK(std::none_of(s.begin(), s.end(), [](const std::string& line) {
    return line.find("repeat") != std::string::npos;
  }));
}

TEST_CASE("logs: what an app prints between access log lines is an entry of its own") {
  // express: morgan's combined lines, and the error handler's console.error(err) stacks.
  const std::string out = testing::ReadFixture("logs", "express-morgan");
  auto s = Shape("node src/server.js", out, 1);
  CheckVerbatim(s, out);
  for (const char* kept : {"Error: User 999 not found", "    at getUser (/tmp/plg-logs/express/src/users.js:7:17)",
                           "TypeError: Cannot read properties of null (reading 'theme')",
                           "    at themeOf (/tmp/plg-logs/express/src/users.js:15:27)",
                           "SyntaxError: Unexpected end of JSON input",
                           "Error: CRM sync failed for user 77: ECONNREFUSED 10.0.3.7:8443"}) {
    CHECK_MESSAGE(IndexOf(s, kept) > 0, kept);
  }
  // The library's frames are counted.
  CHECK(std::none_of(s.begin(), s.end(), [](const std::string& line) {
    return line.find("node_modules/express/lib/router") != std::string::npos;
  }));
}

TEST_CASE("logs: one-line failures for other requests are listed by their requests, not called repeats") {
  const std::string out = testing::ReadFixture("logs", "nginx-error");
  auto s = Shape("cat /var/log/nginx/error.log", out);
  CHECK(std::any_of(s.begin(), s.end(), [](const std::string& line) {
    return line.starts_with("… 5 more like the line above (last at 2026/11/29 20:29:49) at: "
                            "GET /legacy/report?month=2024-02; GET /legacy/report?month=2024-03; ");
  }));
}

TEST_CASE("logs: java.util.logging's two-line entries keep their timestamp and source with the level") {
  const std::string out = testing::ReadFixture("logs", "java-jul");
  auto s = Shape("java OrderService", out, 1);
  CheckVerbatim(s, out);
  for (std::string_view message : {"SEVERE: order 57 failed", "SEVERE: failed to reload pricing config",
                                   "WARNING: bad qty in order 133, skipping"}) {
    const size_t e = IndexOf(s, message);
    REQUIRE_MESSAGE(e > 0, message);
    CHECK_MESSAGE(s[e - 1].ends_with(" PM OrderService main"), message);
  }
  // The pair is one entry: no line of the log is counted as without a level.
  CHECK(std::none_of(s.begin(), s.end(), [](const std::string& line) {
    return line.find("without a level") != std::string::npos;
  }));
}

TEST_CASE("logs: the request logged just before an exception is kept with it") {
  std::string out;
  auto info = [&](int i, std::string_view what) {
    StrAppend(&out, "2024-05-02T10:00:", i < 10 ? "0" : "", i, ".000Z INFO ", what, "\n");
  };
  for (int i = 0; i < 30; ++i) info(i, StrCat("GET /orders/", i, " 200 1ms"));
  info(30, "GET /export 200 streaming");
  out += "2024-05-02T10:00:30.001Z FATAL uncaughtException: TypeError: Cannot read properties of "
         "undefined (reading 'toUpperCase')\n"
         "    at IncomingMessage.<anonymous> (/srv/app/server.js:37:22)\n"
         "    at Array.map (<anonymous>)\n"
         "    at process.processImmediate (node:internal/timers:483:21)\n";
  for (int i = 31; i < 60; ++i) info(i, StrCat("GET /orders/", i, " 200 1ms"));
  auto s = Shape("cat server.log", out);
  CheckVerbatim(s, out);
  size_t e = IndexOf(s, "2024-05-02T10:00:30.001Z FATAL uncaughtException: TypeError: Cannot read "
                        "properties of undefined (reading 'toUpperCase')");
  CHECK(s[e - 1] == "2024-05-02T10:00:30.000Z INFO GET /export 200 streaming");
  CHECK(s[e - 2] == "… 25 2xx lines omitted");  // info entries that log requests answered 2xx
  // A frame in the user's file whose function is anonymous is the user's; "(<anonymous>)" and
  // node:internal frames are counted.
  CHECK(s[e + 1] == "    at IncomingMessage.<anonymous> (/srv/app/server.js:37:22)");
  CHECK(s[e + 2] == "… 2 lines of library stack frames omitted");
}

TEST_CASE("logs: an exception repeated after other requests lists the request each followed") {
  // A Spring application's log: the same exception, its frames and all, after two checkouts;
  // the first request is kept above the exception shown, the second is listed with the repeat.
  std::string out;
  auto info = [&](int i, std::string_view what) {
    StrAppend(&out, "2024-05-14 10:", i < 10 ? "0" : "", i,
              ":00.000 INFO  [exec-1] c.e.shop.web.OrderController - ", what, "\n");
  };
  auto failure = [&](int i, int order) {
    info(i, StrCat("POST /orders/", order, "/checkout user=u", order % 97));
    StrAppend(
        &out, "2024-05-14 10:", i < 10 ? "0" : "", i,
        ":00.001 ERROR [exec-1] o.a.c.c.C.[dispatcherServlet] - Servlet.service() threw exception\n"
        "org.springframework.dao.DataIntegrityViolationException: could not execute statement\n"
        "\tat com.example.shop.service.OrderService.checkout(OrderService.java:88)\n"
        "Caused by: org.postgresql.util.PSQLException: ERROR: duplicate key value violates unique "
        "constraint\n"
        "  Detail: Key (id)=(",
        order, ") already exists.\n");
  };
  for (int i = 0; i < 20; ++i) info(i, StrCat("GET /orders/", i, " status=200 took=3ms"));
  failure(20, 4411);
  for (int i = 21; i < 40; ++i) info(i, StrCat("GET /orders/", i, " status=200 took=3ms"));
  failure(40, 5120);
  for (int i = 41; i < 59; ++i) info(i, StrCat("GET /orders/", i, " status=200 took=3ms"));
  auto s = Shape("cat app.log", out);
  const std::string joined = absl::StrJoin(s, "\n");
  INFO(joined);
  CHECK(testing::Contains(
      joined,
      "INFO  [exec-1] c.e.shop.web.OrderController - POST /orders/4411/checkout user=u46\n"
      "2024-05-14 10:20:00.001 ERROR "));
  CHECK(testing::Contains(joined,
                          "… 1 more like the entry above (last at 2024-05-14 10:40:00.001) at: "
                          "POST /orders/5120/checkout\n"));
}

TEST_CASE("logs: under docker compose's service prefix a traceback's library frames are counted as without it") {
  // The real Flask log, as `docker compose logs --no-color` prints a service's lines.
  const std::string plain = AsShaped(testing::ReadFixture("logs", "flask-shop"));
  std::string prefixed;
  for (std::string_view line : core::SplitLines(plain)) StrAppend(&prefixed, "web-1  | ", line, "\n");
  const auto a = Shape("cat app.log", plain);
  const auto b = Shape("docker compose logs --no-color", prefixed);
  CheckVerbatim(b, prefixed);
  auto notes = [](const std::vector<std::string>& lines) {
    std::vector<std::string> found;
    for (const std::string& line : lines) {
      if (line.find("library stack frames") != std::string::npos) found.push_back(line);
    }
    return found;
  };
  CHECK_FALSE(notes(a).empty());
  CHECK(notes(b) == notes(a));
  for (const std::string& line : b) CHECK_MESSAGE(line.find("-packages/") == std::string::npos, line);
}

TEST_CASE("logs: Go's net/http panics: no status read from an address, the runtime's frames counted") {
  const std::string out = testing::ReadFixture("logs", "go-nethttp-panics");
  const auto s = Shape("cat ledgerd.log", out);
  CheckVerbatim(s, out);
  REQUIRE(!s.empty());
  // "GET /healthz 127.0.0.1:44522" has no status: 127 is an address's first number.
  CHECK(s[0].find("requests by status") == std::string::npos);
  CHECK(s[0].find(" 20 panics ") != std::string::npos);
  bool user_frame = false, library_note = false;
  for (const std::string& line : s) {
    CHECK_MESSAGE(line.find("/usr/lib/go-") == std::string::npos, line);
    CHECK_MESSAGE(!line.starts_with("net/http.(*conn).serve"), line);
    user_frame = user_frame || line == "\t/tmp/plg-logs/go-ledgerd/internal/ledger/ledger.go:25";
    library_note = library_note || line.find(" lines of library stack frames omitted") != std::string::npos;
  }
  CHECK(user_frame);
  CHECK(library_note);
}

TEST_CASE("logs: Django's 500s, each named: shown with its traceback, or listed after the marker that counts it") {
  const std::string out = testing::ReadFixture("logs", "django-runserver");
  const auto s = Shape("cat server.log", out);
  CheckVerbatim(s, out);
  REQUIRE(!s.empty());
  // A log whose entries carry long tracebacks is read as a log.
  CHECK(s[0].starts_with("log: 5,915 lines, 3,182 requests by status: 181 × 500, 3,001 × 200, "));
  std::string summary;
  for (const std::string& line : s) StrAppend(&summary, line, "\n");
  size_t failed = 0;
  for (std::string_view line : core::SplitLines(out)) {
    const size_t end = line.find(" HTTP/1.1\" 500 ");
    if (end == std::string_view::npos) continue;
    ++failed;
    const std::string_view request = line.substr(line.find('"') + 1, end - line.find('"') - 1);
    CHECK_MESSAGE(summary.find(StrCat(request, " ")) != std::string::npos, request);
  }
  CHECK(failed == 181);
  CHECK(summary.find(" failed requests among them at: ") != std::string::npos);
}

TEST_CASE("logs: Python's http.server request lines are access lines, and its tracebacks of other exceptions are not repeats") {
  // BaseHTTPRequestHandler's line: "127.0.0.1 - - [04/Dec/2026 23:02:33] "GET / HTTP/1.1" 200 -"
  // (the time after a space, no zone); socketserver's report of an exception in a handler,
  // between two lines of dashes.
  std::string out;
  auto report = [&](int port, std::string_view line, std::string_view exception) {
    StrAppend(&out, "----------------------------------------\n",
              "Exception occurred during processing of request from ('127.0.0.1', ", port, ")\n",
              "Traceback (most recent call last):\n",
              "  File \"/usr/lib/python3.11/socketserver.py\", line 691, in process_request_thread\n",
              "    self.finish_request(request, client_address)\n",
              "  File \"/srv/app.py\", line ", line, ", in do_GET\n",
              "    return self._send(200, handle(self.path))\n", exception, "\n",
              "----------------------------------------\n");
  };
  for (int i = 0; i < 40; ++i) {
    StrAppend(&out, "127.0.0.1 - - [04/Dec/2026 23:02:", 10 + i % 40, "] \"GET /orders/", i,
              " HTTP/1.1\" 200 -\n");
    if (i % 10 == 3) report(49000 + i, "36", "ZeroDivisionError: division by zero");
    if (i % 10 == 7) report(49000 + i, "23", "ValueError: invalid literal for int() with base 10: 'abc'");
  }
  const auto s = Shape("cat server.log", out);
  CheckVerbatim(s, out);
  REQUIRE(!s.empty());
  CHECK(s[0].starts_with("log: "));
  CHECK(s[0].find("40 requests by status: 40 × 200") != std::string::npos);
  std::string summary;
  for (const std::string& line : s) StrAppend(&summary, line, "\n");
  CHECK(summary.find("ZeroDivisionError: division by zero\n") != std::string::npos);
  CHECK(summary.find("ValueError: invalid literal for int() with base 10: 'abc'\n") != std::string::npos);
}

TEST_CASE("logs: Celery's level is the word before its process: ERROR/MainProcess") {
  std::string out;
  for (int i = 0; i < 30; ++i) {
    StrAppend(&out, "[2026-12-04 19:56:53,", 100 + i, ": INFO/MainProcess] Task mailer.send_email[id-", i,
              "] received\n");
  }
  out += "[2026-12-04 19:56:54,561: ERROR/MainProcess] Task handler raised error: TimeLimitExceeded(1)\n"
         "[2026-12-04 19:56:54,562: ERROR/MainProcess] Hard time limit (1s) exceeded for mailer.nightly_digest[af88]\n"
         "[2026-12-04 19:56:54,563: WARNING/ForkPoolWorker-2] Retrying in 2s\n";
  const auto s = Shape("cat worker.log", out);
  REQUIRE(!s.empty());
  CHECK(s[0].find("2 errors, 1 warning, 30 info") != std::string::npos);
  CHECK(Has(s, "[2026-12-04 19:56:54,562: ERROR/MainProcess] Hard time limit (1s) exceeded for mailer.nightly_digest[af88]"));
}

}  // namespace
}  // namespace plugline::builtin
