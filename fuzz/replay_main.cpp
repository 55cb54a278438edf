// Replays inputs through LLVMFuzzerTestOneInput without libFuzzer: a fuzz corpus as a
// regression test in every build, with any compiler. Linked with either target: scene_fuzz.cpp
// (circles_scene_fuzz_replay, ctest `scene_fuzz_corpus`) or npz_fuzz.cpp
// (circles_npz_fuzz_replay, ctest `npz_fuzz_corpus`).
//
//   circles_scene_fuzz_replay FILE_OR_DIR...   (a directory: every regular file in it, sorted)
//   circles_npz_fuzz_replay FILE_OR_DIR...
//
// An input whose file name says what the reader must answer is held to it: `bad-*` must be
// refused, `valid-*` accepted, as the target reports in circles::fuzz::last_verdict
// (fuzz/fuzz_target.h); other names only run through the target.
//
// Exit 0 when every input ran and every named one got its answer; 1 when an input escaped with an
// exception (the target lets only unexpected ones out), got the wrong answer, could not be read,
// or when there was no input at all. A crash or an abort() from the target ends the process with
// that signal, after naming the input.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry& e : fs::directory_iterator(arg))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs found\n");
    return 1;
  }
  std::size_t named = 0;
  for (const fs::path& p : inputs) {
    std::ifstream f(p, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // An exactly sized heap copy, as libFuzzer passes it: a read past the end is caught by ASan.
    const std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[bytes.size()]);
    std::copy(bytes.begin(), bytes.end(), data.get());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
    try {
      LLVMFuzzerTestOneInput(data.get(), bytes.size());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "replay: FAILED: %s: unexpected exception: %s\n", p.c_str(), e.what());
      return 1;
    } catch (...) {
      std::fprintf(stderr, "replay: FAILED: %s: unexpected exception of unknown type\n", p.c_str());
      return 1;
    }
    const std::string name = p.filename().string();
    const bool must_refuse = name.rfind("bad-", 0) == 0, must_accept = name.rfind("valid-", 0) == 0;
    if (must_refuse || must_accept) {
      const circles::fuzz::Verdict& v = circles::fuzz::last_verdict;
      if (must_refuse && !v.refused) {
        std::fprintf(stderr, "replay: FAILED: %s: named bad-* but the reader accepted it\n", p.c_str());
        return 1;
      }
      if (must_accept && v.refused) {
        std::fprintf(stderr, "replay: FAILED: %s: named valid-* but the reader refused it: %s\n", p.c_str(),
                     v.message.c_str());
        return 1;
      }
      ++named;
    }
  }
  std::fprintf(stderr, "replay: %zu inputs OK (%zu held to the answer their name says)\n", inputs.size(), named);
  return 0;
}
