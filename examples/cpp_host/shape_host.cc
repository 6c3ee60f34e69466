// shape_host: the smallest useful plugline host, in C++, through the C++ API.
//
//   some-command 2>&1 | shape_host_cpp [--exit-code N] COMMAND [ARG...]
//
// Reads a command's output from standard input, asks plugline to shape it as if COMMAND (with
// exit code N, if given) had printed it, and prints what the model would be shown. The full
// output is stored under $PLUGLINE_HOME/outputs (default ~/.plugline/outputs); which shaper
// ran, the token counts and the stored file are reported on standard error.
//
// The C++ API (<plugline/host.h>) is for programs that build plugline into their own CMake
// project (add_subdirectory, target plugline::core). Programs that use an installed plugline
// use the C ABI instead: see examples/c_host/shape_host.c.
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

#include "plugline/host.h"

int main(int argc, char** argv) {
  std::optional<int> exit_code;  // unknown unless given
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--exit-code") {
    exit_code = std::atoi(argv[2]);
    first = 3;
  }
  if (first >= argc) {
    std::cerr << "usage: some-command 2>&1 | " << argv[0] << " [--exit-code N] COMMAND [ARG...]\n";
    return 2;
  }
  std::string command;
  for (int i = first; i < argc; ++i) {
    if (i > first) command += ' ';
    command += argv[i];
  }
  std::cin >> std::noskipws;
  const std::string output{std::istreambuf_iterator<char>(std::cin),
                           std::istreambuf_iterator<char>()};

  // Default options: home from $PLUGLINE_HOME (else ~/.plugline), raw outputs stored,
  // plugline's token estimate.
  auto host = plugline::Host::Create(plugline::HostOptions{});
  if (!host.ok()) {
    std::cerr << "shape_host: " << host.status() << "\n";
    return 1;
  }
  for (const std::string& problem : (*host)->diagnostics()) {
    std::cerr << "shape_host: configuration: " << problem << "\n";
  }

  plugline::ShapeRequest request;
  request.command = command;
  request.output = output;
  request.exit_code = exit_code;
  auto result = (*host)->Shape(request);
  if (!result.ok()) {
    std::cerr << "shape_host: " << result.status() << "\n";
    return 1;
  }

  std::cout << result->summary;
  if (!result->summary.empty() && result->summary.back() != '\n') std::cout << '\n';
  std::cerr << "[plugline " << plugline::VersionString() << ": shaper "
            << (result->shaper.empty() ? "(none)" : result->shaper) << ", "
            << result->tokens_raw << " -> " << result->tokens_summary << " tokens, raw output: "
            << (result->raw_path.empty() ? "(not stored)" : result->raw_path) << "]";
  if (result->fallback) std::cerr << " (fallback: " << *result->fallback << ")";
  std::cerr << "\n";
  return 0;
}
