// What the warm server buys a command, whole-process, measured against bare `true` in the
// same run (each sample of a command is taken right after one of `true`, so both see the same
// machine).
//
// usage: server_benchmark [PLUGLINE_BINARY] [RUNS]
//
// Prints, each in-process (PLUGLINE_SERVER=0) and with the server warm:
//   - `plugline run -- true` with no JS plugin (warm also with the outputs store at its bound,
//     a user's steady state), and with 20 JS shapers installed;
//   - `plugline hook pre_tool_call` through one OpenCode JS plugin;
//   - `plugline hook --agent claude-code` on a PreToolUse call (p50, p99): with one OpenCode
//     plugin warm, with no plugin, and with one exec plugin (a sh script, and a C program);
// then the first call that starts the server against the same call in-process, 16 clients
// running 200 hook commands each at once (p50, p99 per call; beside 16 clients running bare
// `true` the same way), the server's resident memory
// with 50 JS plugins loaded, and how many shared libraries the client maps.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "bench_util.h"
#include "core/json.h"
#include "server/client.h"

extern char** environ;

namespace {

std::string g_home;

// Spawns argv with `env` added, stdin from `input` (a file) or /dev/null, stdout to /dev/null;
// returns the wall time in ms.
double Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             const std::string& input = "/dev/null") {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    if (entry.rfind("PLUGLINE_", 0) == 0) continue;
    env_strings.push_back(entry);
  }
  env_strings.push_back("PLUGLINE_HOME=" + g_home);
  for (const auto& e : env) env_strings.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), 0 /*O_RDONLY*/, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", 01 /*O_WRONLY*/, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", 01 /*O_WRONLY*/, 0);
  const double start = plugline::bench::NowMs();
  pid_t pid;
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data()) != 0) {
    std::perror("posix_spawnp");
    std::exit(1);
  }
  int status;
  waitpid(pid, &status, 0);
  const double elapsed = plugline::bench::NowMs() - start;
  posix_spawn_file_actions_destroy(&actions);
  return elapsed;
}

struct Parallel {
  double p50 = 0, p99 = 0, seconds = 0;
  int calls = 0;
};

// 16 threads, each spawning argv `per_client` times back to back.
Parallel RunParallel(const std::vector<std::string>& argv, int per_client,
                     const std::string& input) {
  constexpr int kClients = 16;
  std::vector<std::vector<double>> samples(kClients);
  std::vector<std::thread> threads;
  const double start = plugline::bench::NowMs();
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < per_client; ++i) samples[t].push_back(Spawn(argv, {}, input));
    });
  }
  for (auto& t : threads) t.join();
  std::vector<double> all;
  for (auto& s : samples) all.insert(all.end(), s.begin(), s.end());
  const plugline::bench::Stats stats = plugline::bench::Summarize(all);
  Parallel p;
  p.calls = static_cast<int>(all.size());
  p.seconds = (plugline::bench::NowMs() - start) / 1000;
  p.p50 = stats.median;
  p.p99 = stats.p99;
  return p;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

void Sh(const std::string& command) {
  if (std::system(command.c_str()) != 0) std::fprintf(stderr, "failed: %s\n", command.c_str());
}

struct Pair {
  plugline::bench::Stats bare;
  plugline::bench::Stats command;
};

// `runs` samples of bare `true` and of the command, alternating.
Pair Compare(const std::vector<std::string>& argv, const std::vector<std::string>& env, int runs,
             const std::string& input = "/dev/null") {
  for (int i = 0; i < 3; ++i) Spawn(argv, env, input);  // page cache, a server's first load
  std::vector<double> bare, command;
  for (int i = 0; i < runs; ++i) {
    bare.push_back(Spawn({"true"}, {}));
    command.push_back(Spawn(argv, env, input));
  }
  return {plugline::bench::Summarize(bare), plugline::bench::Summarize(command)};
}

void Report(const std::string& name, const Pair& p) {
  std::printf("%-58s median %7.3f ms  (true %6.3f)  overhead %7.3f ms  ratio %6.2f\n", name.c_str(),
              p.command.median, p.bare.median, p.command.median - p.bare.median,
              p.command.median / p.bare.median);
}

void StopServer(const std::string& plugline) { Spawn({plugline, "server", "stop"}, {}); }

void StartServer(const std::string& plugline) { Spawn({plugline, "server", "start"}, {}); }

std::string Shaper(int i) {
  return "export default {\n"
         "  meta: { name: \"p" + std::to_string(i) + "\", version: \"1\", description: \"d\", tier: \"community\" },\n"
         "  match(c) { return /^tool" + std::to_string(i) + "\\b/.test(c) ? { matched: true, confidence: 0.9 } : { matched: false, confidence: 0 }; },\n"
         "  shape(o) { return { summary: o.split(\"\\n\").length + \" lines\" }; },\n"
         "};\n";
}

const char* kGuard =
    "export const Guard = async () => ({\n"
    "  \"tool.execute.before\": async (input, output) => {\n"
    "    if (String(output.args.command || \"\").includes(\"rm -rf\")) throw new Error(\"no\");\n"
    "  },\n"
    "});\n";

long ServerRss(const std::string& plugline) {
  std::string out;
  FILE* pipe = popen(("PLUGLINE_HOME='" + g_home + "' '" + plugline + "' server status --json").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  pclose(pipe);
  const size_t at = out.find("\"rss_bytes\":");
  return at == std::string::npos ? -1 : std::atol(out.c_str() + at + 12);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string plugline = argc > 1 ? argv[1] : PLUGLINE_BENCH_CLI;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 60;
  char home[] = "/tmp/plugline-server-bench-XXXXXX";
  if (mkdtemp(home) == nullptr) return 1;
  g_home = home;
  const std::string plugins = g_home + "/plugins";
  Sh("mkdir -p '" + plugins + "'");
  const std::string payload = g_home + "/payload.json";
  Write(payload, "{\"tool\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}");
  const std::vector<std::string> in_process = {"PLUGLINE_SERVER=0"};
  std::printf("server_benchmark: %d samples each, PLUGLINE_HOME=%s\n", runs, home);

  // The client's own start: shared libraries it maps.
  FILE* ldd = popen(("ldd '" + plugline + "' | wc -l").c_str(), "r");
  int libs = -1;
  if (ldd != nullptr && std::fscanf(ldd, "%d", &libs) != 1) libs = -1;
  if (ldd != nullptr) pclose(ldd);
  std::printf("%-58s %d\n", "shared libraries the plugline client maps (ldd)", libs);
  Report("plugline version", Compare({plugline, "version"}, {}, runs));

  // No JS plugin.
  const std::vector<std::string> run_true = {plugline, "run", "--", "true"};
  Report("run -- true, no JS plugin, in-process", Compare(run_true, in_process, runs));
  Write(g_home + "/config.yaml", "server: always\n");
  StartServer(plugline);
  Report("run -- true, no JS plugin, server warm", Compare(run_true, {}, runs));
  // A user's steady state: the outputs store at its bound (500 files), so every output stored
  // means pruning one.
  Sh("mkdir -p '" + g_home + "/outputs' && cd '" + g_home +
     "/outputs' && for i in $(seq 1 520); do echo output > 20200101T000000.000Z-1-$i.log; done");
  Report("run -- true, no JS plugin, server warm, outputs store full",
         Compare(run_true, {}, runs));
  StopServer(plugline);
  Sh("rm -f '" + g_home + "/config.yaml'");

  // 20 JS shapers.
  for (int i = 0; i < 20; ++i) Write(plugins + "/p" + std::to_string(i) + ".js", Shaper(i));
  Report("run -- true, 20 JS shapers, in-process", Compare(run_true, in_process, runs / 3 + 1));
  StartServer(plugline);
  Report("run -- true, 20 JS shapers, server warm", Compare(run_true, {}, runs));
  StopServer(plugline);
  Sh("rm -f '" + plugins + "'/p*.js");

  // One OpenCode plugin, a hook.
  Write(plugins + "/guard.js", kGuard);
  const std::vector<std::string> hook = {plugline, "hook", "pre_tool_call"};
  Report("hook pre_tool_call, 1 OpenCode plugin, in-process",
         Compare(hook, in_process, runs / 3 + 1, payload));
  StartServer(plugline);
  Report("hook pre_tool_call, 1 OpenCode plugin, server warm", Compare(hook, {}, runs, payload));

  // An agent's hook command: Claude Code's PreToolUse, whole-process (p50, p99).
  {
    const std::string claude = g_home + "/claude-pre.json";
    Write(claude,
          "{\"session_id\":\"s1\",\"cwd\":\"/tmp\",\"hook_event_name\":\"PreToolUse\","
          "\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls -la\"},"
          "\"tool_use_id\":\"toolu_01\"}");
    const std::vector<std::string> agent_hook = {plugline, "hook", "--agent", "claude-code"};
    auto report = [&](const std::string& name, const Pair& p) {
      std::printf("%-58s p50 %7.3f ms  p99 %7.3f ms  (true %6.3f)\n", name.c_str(),
                  p.command.median, p.command.p99, p.bare.median);
    };
    report("hook --agent claude-code, 1 OpenCode plugin, server warm",
           Compare(agent_hook, {}, runs, claude));
    StopServer(plugline);
    Sh("rm -f '" + plugins + "/guard.js'");
    report("hook --agent claude-code, no plugin (in-process)", Compare(agent_hook, {}, runs, claude));
    Sh("mkdir -p '" + plugins + "/no-rm'");
    Write(plugins + "/no-rm/plugin.yaml", "name: no-rm\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
    Write(plugins + "/no-rm/run.sh",
          "#!/bin/sh\ncase \"$(cat)\" in\n  *'rm -rf'*) echo '{\"deny\":true}' ;;\n  *) echo '{}' ;;\nesac\n");
    Sh("chmod +x '" + plugins + "/no-rm/run.sh'");
    // The plugin must really run: a denied call proves it.
    Write(g_home + "/claude-rm.json",
          "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s1\",\"tool_name\":\"Bash\","
          "\"tool_input\":{\"command\":\"rm -rf build\"}}");
    {
      std::string out;
      FILE* pipe = popen(("PLUGLINE_HOME='" + g_home + "' '" + plugline +
                          "' hook --agent claude-code < '" + g_home + "/claude-rm.json'").c_str(), "r");
      char buf[4096];
      size_t n;
      while (pipe != nullptr && (n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
      if (pipe != nullptr) pclose(pipe);
      if (out.find("\"deny\"") == std::string::npos) {
        std::fprintf(stderr, "the exec plugin did not deny: %s\n", out.c_str());
        return 1;
      }
    }
    report("hook --agent claude-code, 1 exec plugin: sh script (in-process)",
           Compare(agent_hook, {}, runs, claude));
    Sh("rm -rf '" + plugins + "/no-rm'");
    // The floor of an exec plugin: a C program (hook_echo_plugin, beside plugline).
    const std::string bin_dir = plugline.substr(0, plugline.rfind('/') + 1);
    Sh("mkdir -p '" + plugins + "/echo'");
    Write(plugins + "/echo/plugin.yaml", "name: echo\ncommand: " + bin_dir +
                                             "hook_echo_plugin\nhooks: [pre_tool_call]\n");
    report("hook --agent claude-code, 1 exec plugin: C program (in-process)",
           Compare(agent_hook, {}, runs, claude));
    Sh("rm -rf '" + plugins + "/echo'");
    Write(plugins + "/guard.js", kGuard);
  }

  // The first call, which starts the server, against the same call in-process.
  {
    std::vector<double> first, local;
    for (int i = 0; i < 10; ++i) {
      StopServer(plugline);
      first.push_back(Spawn(hook, {}, payload));
      local.push_back(Spawn(hook, in_process, payload));
    }
    auto f = plugline::bench::Summarize(first);
    auto l = plugline::bench::Summarize(local);
    std::printf("%-58s median %7.3f ms  in-process %7.3f ms  ratio %6.2f\n",
                "first hook call (starts the server), 1 OpenCode plugin", f.median, l.median,
                f.median / l.median);
  }

  // 16 clients at once, 200 hook commands each, and bare `true` under the same load: with 16
  // processes on a small machine the scheduler, not plugline, sets much of the tail.
  {
    StartServer(plugline);
    Spawn(hook, {}, payload);
    const int per_client = argc > 3 ? std::atoi(argv[3]) : 200;
    const Parallel bare = RunParallel({"true"}, per_client, payload);
    const Parallel hooks = RunParallel(hook, per_client, payload);
    std::printf("%-58s p50 %7.3f ms  p99 %7.3f ms  (%d calls in %.1f s)\n",
                "16 clients x true (the machine's floor)", bare.p50, bare.p99, bare.calls,
                bare.seconds);
    std::printf("%-58s p50 %7.3f ms  p99 %7.3f ms  (%d calls in %.1f s)\n",
                "16 clients x hook pre_tool_call, server warm", hooks.p50, hooks.p99, hooks.calls,
                hooks.seconds);
  }
  // The same load over the protocol: 16 connections, 200 hook requests each, at once (what
  // the server itself adds, without a process per call).
  {
    constexpr int kClients = 16;
    const int per_client = argc > 3 ? std::atoi(argv[3]) : 200;
    std::string request;
    {
      plugline::core::JsonWriter w;
      w.BeginObject().Key("type").String("command").Key("cwd").String(g_home);
      w.Key("name").String("hook").Key("args").BeginArray().String("pre_tool_call").EndArray();
      w.Key("stdin").String(absl::Base64Escape(
          "{\"tool\":\"bash\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}"));
      w.EndObject();
      request = w.Take();
    }
    std::vector<std::vector<double>> samples(kClients);
    std::atomic<int> failed{0};
    std::vector<std::thread> threads;
    const double start = plugline::bench::NowMs();
    for (int t = 0; t < kClients; ++t) {
      threads.emplace_back([&, t] {
        auto client = plugline::server::Client::Connect(g_home, absl::Seconds(10));
        if (!client.ok()) {
          failed += per_client;
          return;
        }
        for (int i = 0; i < per_client; ++i) {
          const double at = plugline::bench::NowMs();
          auto reply = client->Call(request, absl::Seconds(60));
          samples[t].push_back(plugline::bench::NowMs() - at);
          if (!reply.ok() || reply->find("\"ok\":true") == std::string::npos) ++failed;
        }
      });
    }
    for (auto& t : threads) t.join();
    const double wall = plugline::bench::NowMs() - start;
    std::vector<double> all;
    for (auto& s : samples) all.insert(all.end(), s.begin(), s.end());
    std::sort(all.begin(), all.end());
    std::printf("%-58s p50 %7.3f ms  p99 %7.3f ms  (%zu requests in %.2f s, %d failed)\n",
                "16 connections x hook request over the socket", all[all.size() / 2],
                all[std::min(all.size() - 1, all.size() * 99 / 100)], all.size(), wall / 1000,
                failed.load());
  }
  StopServer(plugline);
  Sh("rm -f '" + plugins + "'/*.js");

  // Resident memory with 50 JS plugins loaded (25 shapers, 25 OpenCode plugins).
  for (int i = 0; i < 25; ++i) {
    Write(plugins + "/p" + std::to_string(i) + ".js", Shaper(i));
    std::string guard = kGuard;
    guard.replace(guard.find("Guard"), 5, "Guard" + std::to_string(i));
    Write(plugins + "/g" + std::to_string(i) + ".js", guard);
  }
  StartServer(plugline);
  Spawn(hook, {}, payload);
  Spawn(run_true, {});
  const long rss = ServerRss(plugline);
  std::printf("%-58s %.1f MiB\n", "server resident memory, 50 JS plugins loaded",
              static_cast<double>(rss) / (1 << 20));
  StopServer(plugline);
  Sh("rm -rf '" + g_home + "'");
  return 0;
}
