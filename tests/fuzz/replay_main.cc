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
#include <memory>
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
    // A heap block of exactly the input's size (never NULL, even when
    // empty), as libFuzzer passes it, so a sanitizer sees any read past it.
    std::error_code ec;
    const auto size = static_cast<size_t>(fs::file_size(file, ec));
    std::unique_ptr<uint8_t[]> data(new uint8_t[size]);
    std::ifstream in(file, std::ios::binary);
    in.read(reinterpret_cast<char*>(data.get()), static_cast<std::streamsize>(size));
    if (ec || !in || static_cast<size_t>(in.gcount()) != size) {
      std::cerr << "cannot read " << file << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(data.get(), size);
  }
  if (files.empty()) {
    std::cerr << "no inputs found; usage: " << argv[0] << " FILE_OR_DIR...\n";
    return 1;
  }
  std::cout << "replayed " << files.size() << " input(s)\n";
  return 0;
}
