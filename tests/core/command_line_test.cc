// How a command line is read: the tool through wrappers, and the key statistics use.
#include "core/command_line.h"

#include <doctest/doctest.h>

namespace plugline::core {
namespace {

TEST_CASE("ToolName sees through wrappers and interpreters") {
  CHECK(ToolName("python3 -m pytest -q") == "pytest");
  CHECK(ToolName("FOO=1 sudo /usr/bin/make -j8") == "make");
  // An assignment's value may be a path; a path with '=' in it is no assignment.
  CHECK(ToolName("XDG_CACHE_HOME=/tmp/c/cache guile -s warn.scm") == "guile");
  CHECK(ToolName("A_1=x B=/a=b make") == "make");
  CHECK(ToolName("./out/a=b/run.sh") == "run.sh");
  // A wrapper's flag that takes a value: the value is not the tool.
  CHECK(ToolName("npx --prefix web eslint src") == "eslint");
  CHECK(ToolName("sudo -u app make test") == "make");
  CHECK(ToolName("nice -n 10 make") == "make");
  CHECK(ToolName("env -u HOME -i pytest") == "pytest");
  CHECK(ToolName("npx jest") == "jest");
  CHECK(ToolName("bundle exec rspec spec") == "rspec");
  CHECK(ToolName("bundle install") == "bundle");
  // php running a tool's script is that tool; php running a .php file or a flag is php.
  CHECK(ToolName("php vendor/bin/phpunit tests") == "phpunit");
  CHECK(ToolName("php build.php") == "php");
  CHECK(ToolName("php -r 'echo 1;'") == "php");
  CHECK(ToolName("") == "");
  // timeout's options and duration; xargs's options, at the end of a pipeline too.
  CHECK(ToolName("timeout -s KILL 2 python3 slow.py") == "python");
  CHECK(ToolName("timeout --preserve-status -k 5 30 make test") == "make");
  CHECK(ToolName("timeout 3 python3 slow.py") == "python");
  CHECK(ToolName("find . -name '*.py' -print0 | xargs -0 -n 1 python3 -m py_compile") ==
        "py_compile");
  CHECK(ToolName("ls | xargs -I {} gzip {}") == "gzip");
  CHECK(ToolName("ls | grep x") == "ls");
  CHECK(ToolName("ls | xargs -0") == "xargs");  // xargs alone runs echo
  // A word glued to the list's separator.
  CHECK(ToolName("./segv; exit $?") == "segv");
}

TEST_CASE("ToolName sees past commands that only set up the next: the one that prints") {
  CHECK(ToolName("cd app && npm test") == "npm");
  CHECK(ToolName("cd /w/py && python3 -m pytest -q") == "pytest");
  CHECK(ToolName("source .venv/bin/activate; pytest tests") == "pytest");
  CHECK(ToolName(". venv/bin/activate && cd src; make -j2") == "make");
  CHECK(ToolName("export CI=1 && cargo test") == "cargo");
  CHECK(ToolName("set -e; cd build&& ctest") == "ctest");
  // Commands that prepare quietly, or print a label: the next one's status is reported.
  CHECK(ToolName("rm -rf builddir; meson setup builddir") == "meson");
  CHECK(ToolName("mkdir -p build && cd build && cmake ..") == "cmake");
  CHECK(ToolName("echo '== tests'; pytest -q") == "pytest");
  CHECK(ToolName("rm -f out.txt") == "rm");
  CHECK(ToolName("echo x | grep y") == "echo");
  CHECK(ToolName("echo short; exit 3") == "echo");  // what follows only sets the status
  CHECK(ToolArgs("cd app && go test ./...") == std::vector<std::string>{"test", "./..."});
  CHECK(CommandKey("cd app && git status") == "git status");
  // The script a shell is given: "bash -lc '…'" is how some agents run every command.
  CHECK(ToolName("bash -lc 'cd app && pytest -q'") == "pytest");
  CHECK(ToolName("/bin/sh -c \"make -j2 check\"") == "make");
  CHECK(ToolArgs("bash -c 'go test ./...'") == std::vector<std::string>{"test", "./..."});
  CHECK(ToolName("bash -lc 'pytest -q | tail -40'") == "pytest");
  // A script of several commands is the shell's.
  CHECK(ToolName("sh -c 'seq 1 9; echo done; exit 1'") == "sh");
  CHECK(ToolName("bash -c 'cd app && make && make test'") == "bash");
  CHECK(ToolName("bash -x build.sh") == "bash");  // a script file, not a script
  CHECK(ToolName("bash --norc") == "bash");
  CHECK(ToolName("cd app") == "cd");  // nothing after it: it is the command
  CHECK(ToolName("cd app &&") == "cd");
}

TEST_CASE("ToolName sees into a shell loop or conditional: the command it runs") {
  CHECK(ToolName("rc=0; for f in *.po; do msgfmt -c -o /dev/null $f || rc=1; done; exit $rc") == "msgfmt");
  CHECK(ToolName("for f in $(find src -name '*.php'); do php -l $f; done") == "php");
  CHECK(ToolName("while read f; do perl -c \"$f\"; done < list") == "perl");
  CHECK(ToolName("if make check; then echo ok; fi") == "make");
  CHECK(ToolName("for") == "for");  // not a loop: a program of that name
}

TEST_CASE("CommandKey keeps the tool and a subcommand, never an argument's value") {
  CHECK(CommandKey("git diff --stat HEAD~3") == "git diff");
  CHECK(CommandKey("python3 -m pytest tests/test_x.py") == "pytest");
  CHECK(CommandKey("npm run build") == "npm run");
  CHECK(CommandKey("cargo test -- --nocapture") == "cargo test");
  CHECK(CommandKey("make") == "make");
  CHECK(CommandKey("git --no-pager log") == "git");
  // Data, not a subcommand: a search pattern, a file name, a token.
  CHECK(CommandKey("grep secret-token app.log") == "grep");
  CHECK(CommandKey("echo hunter2") == "echo");
  CHECK(CommandKey("git Secret123") == "git");
  CHECK(CommandKey("git /etc/passwd") == "git");
  CHECK(CommandKey("") == "");
}

TEST_CASE("FailureText: a non-zero exit is a failure, but for the tools whose exit 1 answers") {
  CHECK(FailureText("python3 app.py", 1) == "FAILED (exit 1)");
  CHECK(FailureText("./server", 139) == "FAILED (exit 139: SIGSEGV)");
  CHECK(FailureText("grep -r TODO src", 1) == "exit 1");  // nothing found
  CHECK(FailureText("git grep -n doesNotExist", 1) == "exit 1");  // nothing found
  CHECK(FailureText("git status --short", 1) == "FAILED (exit 1)");
  CHECK(FailureText("sudo diff a.txt b.txt", 1) == "exit 1");  // the files differ
  CHECK(FailureText("grep -r TODO missing/", 2) == "FAILED (exit 2)");  // grep's own error
  CHECK(FailureText("cd src && rg foo", 1) == "exit 1");
  // Subcommands whose exit 1 says what they found.
  CHECK(FailureText("npm outdated", 1) == "exit 1");  // packages out of date
  CHECK(FailureText("pnpm outdated --long", 1) == "exit 1");
  CHECK(FailureText("npm outdated", 2) == "FAILED (exit 2)");
  CHECK(FailureText("npm install", 1) == "FAILED (exit 1)");
  CHECK(FailureText("git diff --exit-code", 1) == "exit 1");  // the trees differ
  CHECK(FailureText("git diff --quiet HEAD", 1) == "exit 1");
  CHECK(FailureText("git diff HEAD", 1) == "FAILED (exit 1)");
  // timeout's own status: the command timed out.
  CHECK(FailureText("timeout 3 python3 slow.py", 124) == "FAILED (exit 124: timed out)");
  CHECK(FailureText("python3 slow.py", 124) == "FAILED (exit 124)");
}

TEST_CASE("FetchesData: queries, the environment, one-liners, data files") {
  for (const char* command :
       {"sqlite3 -header app.db 'select * from orders'", "psql -c 'select 1' app",
        "jq '.packages | keys' package-lock.json", "printenv | sort", "env", "env -0",
        "python3 -c 'print(list(range(9)))'", "node -e 'console.log(1)'", "node -p 1+1",
        "ruby -e 'p 1'", "cat sales.csv", "head -50 data/events.jsonl", "cd app && cat a.tsv"}) {
    CHECK_MESSAGE(FetchesData(command), command);
  }
  for (const char* command :
       {"pytest", "cat build.log", "cat a.py", "env CI=1 make", "curl -s http://x/api",
        "python3 -m pytest -c setup.cfg", "python3 app.py", "node --test", "tail -f events.csv",
        "make test | tee out.csv"}) {
    CHECK_FALSE_MESSAGE(FetchesData(command), command);
  }
}

}  // namespace
}  // namespace plugline::core
