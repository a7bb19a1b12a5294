// The fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once on every file named (or in
// every directory named, in name order). Built by every compiler, so the seed corpus and the inputs
// of past bugs (fuzz/regressions/) are replayed in every test run, sanitizers or not.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; i++) {
    std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      std::vector<std::filesystem::path> inside;
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        // Dot files (.keep, which holds an empty folder in git; editors' droppings) are not inputs.
        if (entry.is_regular_file() && entry.path().filename().string().rfind('.', 0) != 0) inside.push_back(entry.path());
      }
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    } else if (std::filesystem::exists(path)) {
      files.push_back(path);
    } else {
      std::cerr << argv[0] << ": no such file or directory: " << path.string() << "\n";
      return 2;
    }
  }
  for (const std::filesystem::path& file : files) {
    // Named before it runs, so that a crash or a sanitizer report says which input made it.
    std::cout << file.string() << std::endl;
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << files.size() << " inputs\n";
  return files.empty() ? 1 : 0;
}
