// A main() for a fuzz target built without libFuzzer: runs
// LLVMFuzzerTestOneInput once on every file under the paths given (the
// committed corpus), so ordinary builds and the sanitizer stages keep every
// input a fuzzer ever crashed on fixed. An input that breaks a target
// aborts the process, which fails the test.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.push_back(arg);
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << file << "\n";
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A heap copy of exactly the input's size (never NULL, even when
    // empty), as libFuzzer passes it, so a sanitizer sees any read past it.
    std::unique_ptr<uint8_t[]> data(new uint8_t[bytes.size()]);
    std::copy(bytes.begin(), bytes.end(), data.get());
    LLVMFuzzerTestOneInput(data.get(), bytes.size());
  }
  if (files.empty()) {
    std::cerr << "no inputs found; usage: " << argv[0] << " FILE_OR_DIR...\n";
    return 1;
  }
  std::cout << "replayed " << files.size() << " input(s)\n";
  return 0;
}
