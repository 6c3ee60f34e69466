// plugline-node-worker: Node.js for plugins that need it (the `node` runtime).
//
//   plugline-node-worker --plugline-worker [--memory-limit-bytes=N] [--heap-limit-bytes=N]
//
// This is libnode's Node.js (Node 18) started through Node's embedder entry point,
// node::Start(), with plugline's worker program (node_worker.mjs, embedded at build time) as
// its main module. src/js/process_runtime.cc starts one per loaded plugin and speaks the same
// newline-delimited JSON with it as with plugline-js-worker. Before Node starts, the worker
// applies its limits (RLIMIT_DATA, RLIMIT_CORE, V8's old-space limit) and moves the protocol
// to private descriptors: fd 0 becomes /dev/null and fd 1 the worker's stderr, so that a
// plugin that reads stdin or prints cannot disturb the protocol.
//
// Started without --plugline-worker it is a plain Node.js (`node` with the same arguments):
// a plugin that runs process.execPath gets Node, as it would in Node.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <node.h>

#include "js/v8/sucrase_bundle.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::embedded {
extern const std::string_view kNodeWorkerProgram;
}  // namespace plugline::embedded

namespace {

using plugline::js::v8backend::kSucraseBundle;
using plugline::js::v8backend::kSucraseBundleSize;

constexpr std::string_view kWorkerFlag = "--plugline-worker";

// The value of `--name=N`, or 0.
uint64_t FlagValue(std::string_view arg, std::string_view name) {
  if (arg.size() <= name.size() + 1 || arg.substr(0, name.size()) != name ||
      arg[name.size()] != '=') {
    return 0;
  }
  return std::strtoull(std::string(arg.substr(name.size() + 1)).c_str(), nullptr, 10);
}

// `text` as a JS string literal.
std::string JsString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16 + 2);
  out.push_back('"');
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || c == '\x7f') {
      static const char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    } else {
      out.push_back(c);  // UTF-8 passes through; U+2028/9 are valid in string literals
    }
  }
  out.push_back('"');
  return out;
}

// A duplicate of `fd` above 2, closed on exec (a plugin's child processes never hold the
// protocol's pipes, so the parent sees the worker's end when the worker ends).
int Keep(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != kWorkerFlag) return node::Start(argc, argv);

  uint64_t memory_limit = 0;
  uint64_t heap_limit = 0;
  for (int i = 2; i < argc; ++i) {
    if (uint64_t v = FlagValue(argv[i], "--memory-limit-bytes"); v != 0) memory_limit = v;
    if (uint64_t v = FlagValue(argv[i], "--heap-limit-bytes"); v != 0) heap_limit = v;
  }
  struct rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (memory_limit != 0) {
    struct rlimit data = {memory_limit, memory_limit};
    ::setrlimit(RLIMIT_DATA, &data);
  }

  int input = Keep(0);
  int output = Keep(1);
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (input < 0 || output < 0 || null_fd < 0) return 70;
  ::dup2(null_fd, 0);
  ::close(null_fd);
  ::dup2(2, 1);
  std::string fds = std::to_string(input) + "," + std::to_string(output);
  ::setenv("PLUGLINE_NODE_WORKER_FDS", fds.c_str(), 1);
  // The user's NODE_OPTIONS must not configure the worker (a --require that prints, an
  // inspector); the program puts them back into process.env for the plugin.
  if (const char* options = std::getenv("NODE_OPTIONS"); options != nullptr) {
    ::setenv("PLUGLINE_NODE_WORKER_NODE_OPTIONS", options, 1);
    ::unsetenv("NODE_OPTIONS");
  }

  std::vector<std::string> args = {argv[0]};
  if (heap_limit != 0) {
    args.push_back("--max-old-space-size=" + std::to_string(std::max<uint64_t>(heap_limit >> 20, 8)));
  }
  args.push_back("--input-type=module");
  args.push_back("--eval");
  // The program, after the sucrase bundle it hands to its module loader for TypeScript.
  args.push_back("globalThis.__plugline_sucrase_bundle = " +
                 JsString(std::string_view(kSucraseBundle, kSucraseBundleSize)) + ";\n" +
                 std::string(plugline::embedded::kNodeWorkerProgram));
  // node::Start expects argv's strings one after another in one block (libuv reuses it for
  // the process title).
  std::string block;
  for (const std::string& arg : args) block.append(arg).push_back('\0');
  std::vector<char*> node_argv;
  for (size_t offset = 0; offset < block.size(); offset += std::strlen(&block[offset]) + 1) {
    node_argv.push_back(&block[offset]);
  }
  node_argv.push_back(nullptr);
  return node::Start(static_cast<int>(node_argv.size() - 1), node_argv.data());
}
