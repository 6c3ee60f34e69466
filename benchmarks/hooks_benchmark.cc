// Hook dispatch through plugline::Host: per plugin per call for native hooks, one-shot exec
// plugins (a small C program and the Antares protocol's sh example), persistent exec plugins (C and python3),
// a chain of 10 exec plugins, and OpenCode JS plugins (tool.execute.before, 1 and 10) in the
// node runtime and the sandboxed one.
//
// usage: hooks_benchmark [NATIVE_CALLS=200000] [ONESHOT_CALLS=300] [PERSISTENT_CALLS=20000]
// Figures are printed; nothing is asserted. The C plugin is hook_echo_plugin (built alongside).
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "plugline/host.h"

namespace {

using plugline::bench::NowMs;

constexpr const char* kPayload =
    R"({"event":"pre_tool_call","session_id":"ses_1","platform":"cli","tool":"terminal",)"
    R"("arguments":"{\"command\":\"rm -rf build\"}"})";

void Write(const std::string& path, const std::string& text, bool executable = false) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
  if (executable) ::chmod(path.c_str(), 0755);
}

// A fresh home whose plugins/ holds `count` copies of one exec plugin.
std::string Home(const std::string& name, int count, const std::string& manifest_tail,
                 const std::string& script = "") {
  char tmpl[] = "/tmp/plugline-hooks-bench-XXXXXX";
  std::string home = ::mkdtemp(tmpl);
  for (int i = 0; i < count; ++i) {
    std::string dir = home + "/plugins/" + name + "-" + std::to_string(100 + i);
    Write(dir + "/plugin.yaml", "name: " + name + "-" + std::to_string(100 + i) +
                                    "\nhooks: [pre_tool_call]\n" + manifest_tail);
    if (!script.empty()) Write(dir + "/run", script, true);
  }
  return home;
}

std::unique_ptr<plugline::Host> Open(const std::string& home) {
  plugline::HostOptions options;
  options.home = home;
  options.store_outputs = false;
  auto host = plugline::Host::Create(options);
  if (!host.ok()) {
    std::fprintf(stderr, "%s\n", host.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(host);
}

// Median ms of one Dispatch over `calls` calls (after 3 warm-up calls), checking that every
// plugin ran without a failure.
double DispatchMs(plugline::Host& host, int calls, size_t expect_plugins) {
  calls = std::max(calls, 1);
  std::vector<double> samples;
  for (int i = 0; i < calls + 3; ++i) {
    double start = NowMs();
    auto result = host.Dispatch("pre_tool_call", kPayload);
    double ms = NowMs() - start;
    if (!result.ok() || result->plugins.size() != expect_plugins || !result->skipped.empty()) {
      std::fprintf(stderr, "dispatch failed: %s\n",
                   result.ok() ? result->ToJson().c_str() : result.status().ToString().c_str());
      std::exit(1);
    }
    if (i >= 3) samples.push_back(ms);
  }
  return plugline::bench::Summarize(samples).median;
}

void Line(const char* what, double ms_per_dispatch, int plugins, double baseline_ms = 0) {
  double per_plugin_us = (ms_per_dispatch - baseline_ms) * 1000.0 / plugins;
  std::printf("%-52s %10.3f µs per dispatch  %10.3f µs per plugin per call\n", what,
              ms_per_dispatch * 1000.0, per_plugin_us);
}

extern "C" char** environ;

// The floor of a one-shot call on this machine: posix_spawn + waitpid of `argv` with stdin and
// stdout on /dev/null, no event loop, no pipes (median ms).
double SpawnFloorMs(const std::vector<std::string>& argv, int runs) {
  runs = std::max(runs, 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    double start = NowMs();
    pid_t pid;
    if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) return -1;
    int status;
    ::waitpid(pid, &status, 0);
    samples.push_back(NowMs() - start);
    posix_spawn_file_actions_destroy(&actions);
  }
  return plugline::bench::Summarize(samples).median;
}

std::string ExecDir() {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return ".";
  self[n] = '\0';
  return std::filesystem::path(self).parent_path().string();
}

}  // namespace

int main(int argc, char** argv) {
  const int native_calls = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int oneshot_calls = argc > 2 ? std::atoi(argv[2]) : 300;
  const int persistent_calls = argc > 3 ? std::atoi(argv[3]) : 20000;
  const std::string echo = ExecDir() + "/hook_echo_plugin";
  std::vector<std::string> homes;

  // Native hooks: the dispatch itself (payload parse, result) with no plugin, then 1 and 10.
  std::string empty_home = Home("none", 0, "");
  homes.push_back(empty_home);
  auto host = Open(empty_home);
  double base = DispatchMs(*host, native_calls, 0);
  std::printf("%-52s %10.3f µs per dispatch\n", "dispatch, no plugin (parse payload, result)",
              base * 1000.0);
  int added = 0;
  for (int n : {1, 10}) {
    for (; added < n; ++added) {
      auto status = host->AddHook(
          {"native-" + std::to_string(added), {"pre_tool_call"},
           [](std::string_view, std::string_view) -> absl::StatusOr<plugline::HookAnswer> {
             return plugline::HookAnswer{};
           }});
      if (!status.ok()) return 1;
    }
    double ms = DispatchMs(*host, native_calls, static_cast<size_t>(n));
    Line(n == 1 ? "native hook x1" : "native hook x10", ms, n, base);
  }
  host.reset();

  // One-shot exec plugins: a C program, then the Antares protocol's sh example; 1 and a chain of 10.
  std::printf("%-52s %10.3f µs (the floor of a one-shot call here)\n",
              "bare posix_spawn+waitpid of the C plugin",
              SpawnFloorMs({echo, "oneshot"}, oneshot_calls) * 1000.0);
  std::printf("%-52s %10.3f µs\n", "bare posix_spawn+waitpid of /bin/sh -c 'cat'",
              SpawnFloorMs({"/bin/sh", "-c", "P=$(cat); echo '{}'"}, oneshot_calls) * 1000.0);
  struct Case {
    const char* what;
    std::string manifest;
    std::string script;
    int plugins;
    int calls;
  };
  const std::string sh_script =
      "#!/bin/sh\nPAYLOAD=$(cat)\ncase \"$PAYLOAD\" in\n"
      "  *'\"tool\":\"write_file\"'*) echo '{\"deny\":true}' ;;\n  *) echo '{}' ;;\nesac\n";
  const std::string py_script =
      "#!/usr/bin/env python3\nimport json, sys\nfor line in sys.stdin:\n"
      "    req = json.loads(line)\n    print(json.dumps({\"id\": req[\"id\"]}), flush=True)\n";
  const std::vector<Case> cases = {
      {"one-shot exec (C program) x1", "command: " + echo + "\nargs: [oneshot]\n", "", 1,
       oneshot_calls},
      {"one-shot exec (C program) x10", "command: " + echo + "\nargs: [oneshot]\n", "", 10,
       oneshot_calls / 5},
      {"one-shot exec (Antares sh example) x1", "command: ./run\n", sh_script, 1, oneshot_calls},
      {"one-shot exec (Antares sh example) x10", "command: ./run\n", sh_script, 10,
       oneshot_calls / 5},
      {"persistent exec (C program) x1",
       "command: " + echo + "\nargs: [persistent]\nprotocol: persistent\n", "", 1,
       persistent_calls},
      {"persistent exec (C program) x10",
       "command: " + echo + "\nargs: [persistent]\nprotocol: persistent\n", "", 10,
       persistent_calls / 5},
      {"persistent exec (python3) x1", "command: ./run\nprotocol: persistent\n", py_script, 1,
       persistent_calls / 2},
  };
  for (const Case& c : cases) {
    std::string home = Home("bench", c.plugins, c.manifest, c.script);
    homes.push_back(home);
    auto exec_host = Open(home);
    double ms = DispatchMs(*exec_host, c.calls, static_cast<size_t>(c.plugins));
    Line(c.what, ms, c.plugins, base);
  }
  // OpenCode JS plugins: tool.execute.before (OpenCode's documented .env blocker) through 1 and 10.
  const std::string js_plugin =
      "export default async () => ({\n"
      "  'tool.execute.before': async (input, output) => {\n"
      "    if (input.tool === 'read' && String(output.args.filePath).includes('.env')) {\n"
      "      throw new Error('Do not read .env files');\n"
      "    }\n"
      "  },\n"
      "});\n";
  // In each runtime: node (Node.js in a worker process per plugin, the default for a user's
  // OpenCode plugins) and sandboxed (plugline's V8 runtime, in process). Loading (the first
  // dispatch: the worker starts, the module loads, the plugin function runs) is printed too.
  for (const char* runtime : {"node", "sandboxed"}) {
    for (int n : {1, 10}) {
      char tmpl[] = "/tmp/plugline-hooks-bench-XXXXXX";
      std::string home = ::mkdtemp(tmpl);
      homes.push_back(home);
      Write(home + "/config.yaml", std::string("plugins:\n  js: {runtime: ") + runtime + "}\n");
      for (int i = 0; i < n; ++i) {
        Write(home + "/plugins/opencode-" + std::to_string(100 + i) + ".js", js_plugin);
      }
      auto js_host = Open(home);
      double start = NowMs();
      if (!js_host->Dispatch("pre_tool_call", kPayload).ok()) std::exit(1);
      double load_ms = NowMs() - start;
      double ms = DispatchMs(*js_host, persistent_calls, static_cast<size_t>(n));
      std::string what = std::string("OpenCode JS plugin (") + runtime +
                         "), tool.execute.before x" + std::to_string(n);
      Line(what.c_str(), ms, n, base);
      std::printf("%-52s %10.1f ms (first dispatch: %d plugin%s loaded)\n",
                  ("  loading, " + std::string(runtime) + " x" + std::to_string(n)).c_str(),
                  load_ms, n, n == 1 ? "" : "s");
    }
  }
  for (const std::string& home : homes) std::filesystem::remove_all(home);
  return 0;
}
