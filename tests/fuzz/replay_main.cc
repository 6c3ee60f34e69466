// The driver of a fuzz target in builds without libFuzzer (PLUGLINE_BUILD_FUZZERS=OFF, any
// compiler): runs LLVMFuzzerTestOneInput once on each file named on the command line, and on
// each file of each directory named, in name order. Arguments starting with '-' are libFuzzer
// flags and are ignored, so the regression test runs either kind of binary the same way:
//   <target> -runs=0 tests/fuzz/regressions/<target>
// An input that breaks an invariant aborts, as under libFuzzer, naming the file first.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.starts_with("-")) continue;
    std::error_code error;
    if (std::filesystem::is_directory(arg, error)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (std::filesystem::is_regular_file(arg, error)) {
      inputs.emplace_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory: %s\n", argv[0], arg.c_str());
      return 2;
    }
  }
  for (const std::filesystem::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: %zu inputs replayed, no crash\n", argv[0], inputs.size());
  return 0;
}
