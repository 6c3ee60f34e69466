// Wrapping an agent's shell command in `plugline run --` (src/agents/wrap.h): which commands
// may be wrapped (the rule of docs/agents.md), the round trip to the original, and Claude Code's
// permission rules, which decide whether a wrapped (so approved) call keeps the agent's say.
#include "agents/wrap.h"

#include <doctest/doctest.h>

#include <set>

namespace plugline::agents {
namespace {

bool OnPath(std::string_view program) {
  static const std::set<std::string_view> kPrograms = {
      "pytest", "python3", "make", "grep", "git", "npm", "cargo", "ls", "wc", "sort", "sed", "rm",
      "/usr/bin/env", "env", "vim", "less", "ssh", "node", "bash", "tee", "head"};
  return kPrograms.count(program) > 0;
}

TEST_CASE("wrap: simple commands, pipelines and lists of programs are wrapped") {
  for (const char* command :
       {"pytest -x tests/", "make -j2 && make test", "git log --oneline | head -n 5",
        "npm test || true", "cargo build; cargo test", "CI=1 pytest -q",
        "grep -rn 'a;b' src | wc -l", "python3 -c 'print(1); print(2)'", "ls \"a && b\"",
        "pytest 2>&1 | tee out.txt", "echo $(git rev-parse HEAD); ls", "bash -c 'echo hi'",
        "node build.js", "make >&2", "cargo test &> log.txt"}) {
    INFO(std::string(command));
    const WrapCheck check = CheckWrappable(command, OnPath);
    CHECK_MESSAGE(check.ok, check.why_not);
  }
  const WrapCheck list = CheckWrappable("make -j2 && make test | tee x; git status", OnPath);
  REQUIRE(list.ok);
  CHECK(list.segments == std::vector<std::string>{"make -j2", "make test", "tee x", "git status"});
}

TEST_CASE("wrap: what would change the command's meaning is left as it is, and says why") {
  const std::pair<const char*, const char*> kept[] = {
      {"cd build", "changes the agent's shell"},
      {"cd build || exit 1; make", "changes the agent's shell"},
      {"make && cd build", "changes the agent's shell"},
      {"cd a b && make", "changes the agent's shell"},  // not a plain `cd DIR`
      {"export PATH=/opt/bin:$PATH", "changes the agent's shell"},
      {"source .venv/bin/activate && pytest", "changes the agent's shell"},
      {". ./env.sh", "changes the agent's shell"},
      {"FOO=bar", "sets a shell variable"},
      {"npm run dev &", "background"},
      {"cat <<EOF > x\nhi\nEOF", "more than one line"},
      {"python3 - <<'EOF'", "heredoc"},
      {"vim notes.txt", "interactive"},
      {"git log | less", "interactive"},
      {"ssh host uptime", "interactive"},
      {"python3", "without arguments is interactive"},
      {"ll -a", "not a program on PATH"},
      {"plugline run -- pytest", "plugline"},
      {"   ", "empty"},
  };
  for (const auto& [command, why] : kept) {
    INFO(std::string(command));
    const WrapCheck check = CheckWrappable(command, OnPath);
    CHECK_FALSE(check.ok);
    CHECK_MESSAGE(check.why_not.find(why) != std::string::npos, check.why_not);
  }
}

TEST_CASE("wrap: a wrapped command runs the original through the agent's shell, and unwraps to it") {
  const std::string original = "grep -rn 'it''s' src | wc -l && echo \"done $HOME\"";
  const std::string wrapped = Wrap(original, "/usr/local/bin/plugline");
  CHECK(wrapped.rfind("/usr/local/bin/plugline run -- \"${SHELL:-/bin/sh}\" -c '", 0) == 0);
  CHECK(Unwrap(wrapped) == original);
  CHECK(CheckWrappable(wrapped, [](std::string_view) { return true; }).why_not == "already wrapped");
  CHECK_FALSE(Unwrap("pytest -x").has_value());
  CHECK_FALSE(Unwrap("other run -- \"${SHELL:-/bin/sh}\" -c 'x'").has_value());
  CHECK_FALSE(Unwrap("plugline run -- \"${SHELL:-/bin/sh}\" -c 'x' 'y'").has_value());
}

TEST_CASE("wrap: leading cd, pushd and export stay in the agent's shell, the rest is wrapped") {
  const WrapCheck check = CheckWrappable("cd build && export CI=1 V=2; make -j2 && make test", OnPath);
  REQUIRE_MESSAGE(check.ok, check.why_not);
  CHECK(check.segments ==
        std::vector<std::string>{"cd build", "export CI=1 V=2", "make -j2", "make test"});
  const std::string command = "cd build && export CI=1 V=2; make -j2 && make test";
  CHECK(command.substr(0, check.kept_in_shell) == "cd build && export CI=1 V=2;");
  const std::string wrapped = Wrap(command, "/usr/local/bin/plugline", check.kept_in_shell);
  CHECK(wrapped == "cd build && export CI=1 V=2; /usr/local/bin/plugline run -- "
                   "\"${SHELL:-/bin/sh}\" -c 'make -j2 && make test'");
  CHECK(Unwrap(wrapped) == command);
  CHECK(CheckWrappable(wrapped, [](std::string_view) { return true; }).why_not == "already wrapped");
  // A quoted path to plugline, a directory with a slash, plugline found on PATH.
  CHECK(Unwrap(Wrap("cd /w/app && pytest -q", "'/opt/my tools/plugline'", 12)) ==
        "cd /w/app && pytest -q");
  CHECK(Unwrap(Wrap("pushd /w/app; pytest", "plugline", 14)) == "pushd /w/app; pytest");
  // Not one of ours: something else before it.
  CHECK_FALSE(Unwrap("echo x | plugline run -- \"${SHELL:-/bin/sh}\" -c 'y'").has_value());
  // `export` of a name without a value, or with a flag, is not a leading set-up.
  CHECK_FALSE(CheckWrappable("export PATH && make", OnPath).ok);
  CHECK(CheckWrappable("make", OnPath).kept_in_shell == 0);
}

TEST_CASE("wrap: Claude Code's rules must let every part of the command run without asking") {
  const std::vector<std::string> none;
  CHECK(ClaudeRulesAllow({"pytest -x"}, {"Bash"}, none, none));
  CHECK(ClaudeRulesAllow({"pytest -x"}, {"Bash(*)"}, none, none));
  CHECK(ClaudeRulesAllow({"pytest -x"}, {"Bash(pytest:*)"}, none, none));
  CHECK(ClaudeRulesAllow({"pytest"}, {"Bash(pytest:*)"}, none, none));
  CHECK_FALSE(ClaudeRulesAllow({"pytestx"}, {"Bash(pytest:*)"}, none, none));
  CHECK(ClaudeRulesAllow({"npm test"}, {"Bash(npm test)"}, none, none));
  CHECK_FALSE(ClaudeRulesAllow({"npm test -- -u"}, {"Bash(npm test)"}, none, none));
  CHECK(ClaudeRulesAllow({"git log --oneline"}, {"Bash(git log *)"}, none, none));
  // Every part: an allowed first command does not carry what follows it.
  CHECK_FALSE(ClaudeRulesAllow({"pytest", "rm -rf /"}, {"Bash(pytest:*)"}, none, none));
  // Deny and ask rules win.
  CHECK_FALSE(ClaudeRulesAllow({"rm -rf build"}, {"Bash"}, {"Bash(rm:*)"}, none));
  CHECK_FALSE(ClaudeRulesAllow({"git push"}, {"Bash"}, none, {"Bash(git push:*)"}));
  CHECK_FALSE(ClaudeRulesAllow({"pytest"}, none, none, none));
  CHECK_FALSE(ClaudeRulesAllow({"pytest"}, {"Read", "Edit(*)"}, none, none));
}

}  // namespace
}  // namespace plugline::agents
