// The command line, called in-process through run_cli: its arguments (sizes, frames, output
// patterns), usage errors and exit codes, outputs checked and written (atomically, in place for
// FIFOs and devices), and the memory limits, all refused before the work. The commands' own
// behaviour is in commands_test.cpp, the process-level side in cli_process_test.cpp.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/lab_cli.h"
#include "app/common/lab_registry.h"
#include "app/common/registry.h"
#include "render/builtin_scenes.h"
#include "render/output_file.h"
#include "render/units.h"
#include "cli_test_util.h"
#include "scoped_env.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using test::cli;
using test::CliTest;
using test::slurp;

TEST(CliParse, Sizes) {
  int w = 0, h = 0;
  parse_size("1023x257", &w, &h);
  EXPECT_EQ(w, 1023);
  EXPECT_EQ(h, 257);
  for (const char* bad : {"", "x", "10", "0x10", "10x0", "-5x10", "20000x10", "10x10x10", "axb", "1e3x10"})
    EXPECT_THROW(parse_size(bad, &w, &h), std::invalid_argument) << bad;
}

TEST(CliParse, Frames) {
  std::int64_t a = 0, b = 0;
  parse_frames("3:7", &a, &b);
  EXPECT_EQ(a, 3);
  EXPECT_EQ(b, 7);
  parse_frames("5", &a, &b);
  EXPECT_EQ(a, 5);
  EXPECT_EQ(b, 6);
  for (const char* bad : {"", ":", "3:", ":4", "4:4", "5:2", "-1:2", "a:b", "1:2:3"})
    EXPECT_THROW(parse_frames(bad, &a, &b), std::invalid_argument) << bad;
  // Frames go up to the scene format's 2^62, in --frames as in a scene file's `frame`.
  parse_frames("4611686018427387904", &a, &b);
  EXPECT_EQ(a, kMaxFrame);
  EXPECT_EQ(b, kMaxFrame + 1);
  parse_frames("4611686018427387903:4611686018427387905", &a, &b);
  EXPECT_EQ(b, kMaxFrame + 1);
  for (const char* bad : {"4611686018427387905", "0:4611686018427387906", "99999999999999999999999"}) {
    try {
      parse_frames(bad, &a, &b);
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("frames go up to 4611686018427387904"), std::string::npos) << e.what();
    }
  }
}

// scene save --frame takes a frame (not a seed's rule or message), up to what a scene file holds,
// so that every file it writes reads back.
TEST_F(CliTest, SceneSaveFramesAreFramesUpToTheFormatsLimit) {
  for (const char* bad : {"-1", "abc", "0:3", "4611686018427387905", "18446744073709551615"}) {
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(cli({"scene", "save", "rgb", path("x.scene"), "--frame", bad}), 2) << bad;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("a frame is a whole number 0..4611686018427387904"), std::string::npos) << bad << ": " << err;
  }
  EXPECT_FALSE(fs::exists(path("x.scene")));
  ASSERT_EQ(cli({"scene", "save", "rgb", path("x.scene"), "--frame", "4611686018427387904"}), 0);
  EXPECT_EQ(load_scene(path("x.scene")).frame, kMaxFrame);
}

TEST(CliParse, FramePaths) {
  EXPECT_EQ(frame_path("out.png", 3, false), "out.png");
  EXPECT_EQ(frame_path("out.png", 3, true), "out-0003.png");
  EXPECT_EQ(frame_path("dir.d/out", 12, true), "dir.d/out-0012");
  EXPECT_EQ(frame_path("f%05d.png", 42, true), "f00042.png");
  EXPECT_EQ(frame_path("f%d.png", 7, false), "f7.png");
  EXPECT_EQ(frame_path("100%%-%3d.png", 7, true), "100%-  7.png");
  EXPECT_EQ(frame_path("100%%.png", 7, true), "100%-0007.png");
  EXPECT_EQ(frame_path("f%d.png", 12345678901LL, true), "f12345678901.png");
  for (const char* bad : {"%s.png", "100%.png", "h%d%d.png", "x%", "%5x"})
    EXPECT_THROW(frame_path(bad, 1, true), std::invalid_argument) << bad;
}

TEST_F(CliTest, HelpAndUsageErrors) {
  EXPECT_EQ(cli({"--help"}), 0);
  EXPECT_EQ(cli({"render", "--help"}), 0);
#if !CIRCLES_HAVE_GUI
  EXPECT_EQ(cli({}), 2);  // with the GUI, no arguments opens the viewer (tests/viewer/)
#endif
  EXPECT_EQ(cli({"frobnicate"}), 2);
  EXPECT_EQ(cli({"render", "rgb", "--bogus"}), 2);
  // A missing or unknown command, or an option in its place, is named at every level.
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"frobnicate"}, "unknown command 'frobnicate' (commands: list, render"},
           {{"--bogus"}, "unknown option '--bogus' where a command goes"},
           {{"scene", "load", "x"}, "unknown command 'load' (commands: save, info); circles scene --help"},
           {{"scene"}, "circles scene needs a command: save"},
           {{"scene", "-x"}, "unknown option '-x' where a command goes (commands: save, info)"},
       }) {
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(cli(args), 2) << says;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(says), std::string::npos) << err;
  }
  EXPECT_EQ(cli({"scene", "--help"}), 0);
  EXPECT_EQ(cli({"--version"}), 0);
}

// An empty value is refused (exit 2) for every option, never taken as its default.
TEST_F(CliTest, EmptyValuesAreRefused) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"render", "rgb", "-s", "", "-o", path("a.png")},
           {"render", "rgb", "-s", "8x8", "--frames", "", "-o", path("a.png")},
           {"check", "rgb", "-s", "8x8", "--diff", ""},
           {"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt", "--repeat", "1", "--json", ""},
           {"bench", "--scenes", "", "-s", "8x8", "--renderers", "cpu-mt", "--repeat", "1"},
           {"scene", "save", "rgb", ""},
           {"kernels", "--list", "--json", ""},
       }) {
    std::string joined;
    for (const std::string& a : args) joined += "'" + a + "' ";
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(cli(args), 2) << joined;
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(" is empty: give a value (circles "), std::string::npos) << joined << ": " << err;
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST(CliParse, MemoryIsSaidInUnitsThatShowIt) {
  const double mib = 1024.0 * 1024;
  EXPECT_EQ(memory_text(0), "1 MiB");
  EXPECT_EQ(memory_text(0.3 * mib), "1 MiB");
  EXPECT_EQ(memory_text(40.2 * mib), "41 MiB");
  EXPECT_EQ(memory_text(1023 * mib), "1023 MiB");
  EXPECT_EQ(memory_text(1536 * mib), "1.5 GiB");
}

// Everything that can be refused is refused before the slow part: the output's folder before a
// scene file is read, and in bench every renderer and scene before the first pair is timed.
TEST_F(CliTest, MistakesAreFoundBeforeTheWork) {
  std::ofstream(path("bad.scene")) << "circles-scene 1\ncount 1\n0.5 0.5 0 nan 1 1 1 1\n";
  // The unwritable output is found first (2), not the bad file (1).
  EXPECT_EQ(cli({"render", path("bad.scene"), "-o", path("no/such/dir/x.png")}), 2);
  EXPECT_EQ(cli({"check", path("bad.scene"), "--diff", path("no/such/dir/d.png")}), 2);
  EXPECT_EQ(cli({"render", path("bad.scene"), "-o", path("x.png")}), 1);
  // A bad scene file after a good scene: nothing is timed.
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"bench", "--scenes", "rgb," + path("bad.scene"), "-s", "8x8", "--renderers", "cpu-mt",
                 "--repeat", "1", "--warmup", "0"}),
            1);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("cpu-mt"), std::string::npos) << out;
  // Options that contradict each other are refused, not one of them ignored.
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt", "--repeat", "2", "--min-repeat",
                 "5"}),
            2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt", "--early-exit", "--modes",
                 "exact"}),
            2);
  // A scene, renderer or mode named twice is timed once.
  ASSERT_EQ(cli({"bench", "--scenes", "rgb,rgb", "-s", "8x8", "--renderers", "cpu-ref,cpu-ref", "--modes",
                 "exact,exact", "--repeat", "1", "--warmup", "0", "--json", path("twice.json")}),
            0);
  EXPECT_EQ(nlohmann::json::parse(slurp(path("twice.json"))).size(), 1u);
  fs::remove(path("twice.json"));
  // Tile and batch sizes are positive (0 stands for "not given").
  for (const char* opt : {"--tile-size", "--batch-size"})
    EXPECT_EQ(cli({"render", "rgb", "-s", "8x8", "-r", "cpu-mt", opt, "0", "-o", path("x.png")}), 2) << opt;
  EXPECT_FALSE(fs::exists(path("x.png")));
  EXPECT_FALSE(fs::exists(path("no")));
}

// Without the GPU, a renderer unavailable here named after one that is stops bench before any
// pair is timed: a command-line mistake (2), with the reason.
TEST_F(CliTest, BenchRefusesAnUnavailableRendererBeforeAnyPair) {
  const std::string why = unavailable_reason(*find_renderer("cuda-tile-binned"));
  if (why.empty()) SKIP_EXPECTED("a GPU is here: cuda-tile-binned is available, nothing to refuse");
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = cli({"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt,cuda-tile-binned", "--repeat",
                      "1", "--warmup", "0", "--json", path("b.json")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("renderer 'cuda-tile-binned' is unavailable: " + why), std::string::npos) << err;
  EXPECT_EQ(out.find("cpu-mt"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(path("b.json")));
}

TEST(CliParse, LabSizes) {
  EXPECT_EQ(parse_lab_size("1025").n, 1025u);
  EXPECT_EQ(parse_lab_size("2^26").n, std::size_t{1} << 26);
  const lab::Shape t = parse_lab_size("2049x4000");
  EXPECT_EQ(t.width, 2049);
  EXPECT_EQ(t.height, 4000);
  EXPECT_EQ(t.n, 2049u * 4000u);
  for (const char* bad : {"", "0", "-5", "2^31", "2^", "1e6", "x7", "7x", "0x5", "65536x65536", "1073741825", "abc"})
    EXPECT_THROW(parse_lab_size(bad), std::invalid_argument) << bad;
}

TEST(MachineMessages, NoGpuIsExplainedInPlainWords) {
  // Without a GPU the reason names the cause (no driver, old driver, no device, busy device, or a
  // build without CUDA), never the runtime's "driver version is insufficient" for a missing driver.
  const std::string why = gpu_unavailable_reason();
  if (why.empty()) SKIP_EXPECTED("a usable GPU here: nothing to explain (the GPU suites run instead)");
  EXPECT_EQ(why.find("insufficient for CUDA runtime"), std::string::npos) << why;
  if (!CIRCLES_HAVE_CUDA) {
    EXPECT_NE(why.find("this build has no CUDA support"), std::string::npos) << why;
  } else if (void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(libcuda);  // a driver, and no usable device: the reason is the device's
    EXPECT_EQ(why.find("no NVIDIA driver found"), std::string::npos) << why;
  } else {
    EXPECT_EQ(why, "no NVIDIA driver found (libcuda.so.1 is not installed)");
  }
  EXPECT_EQ(lab_unavailable_reason(), why);
}

TEST_F(CliTest, ExitCodesMeanOneThingEverywhere) {
  // 2: every command-line mistake, in every command.
  auto usage = [&](std::vector<std::string> args, const char* message) {
    ::testing::internal::CaptureStderr();
    const int rc = cli(args);
    const std::string err = ::testing::internal::GetCapturedStderr();
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(rc, 2) << joined << "\n" << err;
    EXPECT_NE(err.find(message), std::string::npos) << joined << "\n" << err;
  };
  usage({"frobnicate"}, "unknown command 'frobnicate'");
  usage({"render", "no-such-scene"}, "unknown scene 'no-such-scene'");
  usage({"check", "no-such-scene"}, "unknown scene");
  usage({"scene", "save", "no-such-scene", path("x.scene")}, "unknown scene");
  usage({"bench", "--scenes", "no-such-scene"}, "unknown scene");
  usage({"render", "rgb", "-r", "no-such-renderer"}, "unknown renderer");
  usage({"bench", "--renderers", "no-such-renderer"}, "unknown renderer");
  usage({"render", "rgb", "--seed", "18446744073709551616"}, "a seed is at most 18446744073709551615");
  usage({"render", "rgb", "--seed", "-1"}, "a seed is a whole number");
  usage({"bench", "--seed", "1e3"}, "a seed is a whole number");
  usage({"kernels", "--seed", "x"}, "a seed is a whole number");
  usage({"check", "rgb", "--tolerance", "nan"}, "finite");
  usage({"bench", "--max-seconds", "nan"}, "finite");
  usage({"render", "rgb", "-s", "0x10"}, "bad size");
  // An unavailable renderer is one too: UnavailableRendererIsAUsageError.
  // 1: the work itself failed (here: a scene file that cannot be read).
  std::ofstream(path("bad.scene")) << "circles-scene 1\ncount 2\n";
  EXPECT_EQ(cli({"render", path("bad.scene"), "-o", path("b.png")}), 1);
  // Every --help says so.
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"--help"}, {"render", "--help"}, {"check", "--help"}, {"scene", "save", "--help"}, {"bench", "--help"},
           {"kernels", "--help"}, {"list", "--help"}}) {
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(cli(args), 0);
    const std::string out = ::testing::internal::GetCapturedStdout();
    EXPECT_NE(out.find("Exit codes: 0 success; 1 the work failed"), std::string::npos) << args[0];
  }
}

// Without the GPU a CUDA renderer is unavailable, and asking for it is a command-line mistake (2),
// with the reason and nothing written.
TEST_F(CliTest, UnavailableRendererIsAUsageError) {
  const std::string why = unavailable_reason(*find_renderer("cuda-naive"));
  if (why.empty()) SKIP_EXPECTED("a GPU is here: CudaRendererRendersWhereTheGpuIs runs instead");
  ::testing::internal::CaptureStderr();
  const int rc = cli({"render", "rgb", "-r", "cuda-naive", "-s", "8x8", "-o", path("a.png")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("renderer 'cuda-naive' is unavailable: " + why), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("a.png")));
}

// With the GPU the same call succeeds, and draws cpu-ref's picture (the exact default).
TEST_F(CliTest, CudaRendererRendersWhereTheGpuIs) {
  NEED_GPU(unavailable_reason(*find_renderer("cuda-naive")));
  ASSERT_EQ(cli({"render", "rgb", "-r", "cuda-naive", "-s", "8x8", "-o", path("a.png")}), 0);
  ASSERT_EQ(cli({"render", "rgb", "-r", "cpu-ref", "-s", "8x8", "-o", path("ref.png")}), 0);
  EXPECT_EQ(slurp(path("a.png")), slurp(path("ref.png")));
}

TEST_F(CliTest, OutputsAreCheckedBeforeAnyWork) {
  const std::string missing = path("no/such/dir/");
  fs::create_directories(path("adir"));
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"render", "rgb", "-s", "8x8", "-o", ""},
           {"render", "rgb", "-s", "8x8", "-r", "", "-o", path("x.png")},
           {"render", "rgb", "-s", "8x8", "-o", missing + "x.png"},
           {"render", "rgb", "-s", "8x8", "-o", path("adir")},
           {"render", "hypnosis", "-s", "8x8", "--frames", "0:3", "-o", missing + "f%d.png"},
           {"check", "rgb", "-s", "8x8", "--diff", missing + "d.png"},
           {"scene", "save", "rgb", missing + "x.scene"},
           {"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt", "--json", missing + "b.json"},
           {"kernels", "reduce", "--json", missing + "k.json"},
       }) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(cli(args), 2) << joined;
  }
  EXPECT_FALSE(fs::exists(path("no")));
  EXPECT_FALSE(fs::exists(path("x.png")));
  // A file where a folder should be is called what it is.
  std::ofstream(path("f.png")) << "a file";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"render", "rgb", "-s", "8x8", "-o", path("f.png/x.png")}), 2);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("f.png' is not a directory"), std::string::npos) << err;
}

TEST_F(CliTest, WritesAreAtomicAndFollowSymlinks) {
  // An unrelated file with the old fixed temporary name is left alone.
  std::ofstream(path("out.png.tmp")) << "keep me";
  ASSERT_EQ(cli({"render", "rgb", "-s", "8x8", "-o", path("out.png")}), 0);
  EXPECT_EQ(slurp(path("out.png.tmp")), "keep me");
  // Writing through a symlink writes its target and keeps the link.
  fs::create_symlink("target.png", path("link.png"));
  ASSERT_EQ(cli({"render", "rgb", "-s", "8x8", "-o", path("link.png")}), 0);
  EXPECT_TRUE(fs::is_symlink(path("link.png")));
  EXPECT_EQ(slurp(path("target.png")), slurp(path("out.png")));
  // Nothing else is left behind (no temporary files).
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"out.png", "out.png.tmp", "link.png", "target.png"}));
  // A scene file and a JSON file go the same way.
  ASSERT_EQ(cli({"scene", "save", "rgb", path("s.scene")}), 0);
  ASSERT_EQ(cli({"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt", "--repeat", "1", "--warmup", "0",
                 "--json", path("b.json")}),
            0);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".XXXXXX"), std::string::npos);
}

// A FIFO or a device as the output is written in place, as `> path` would: renaming a temporary
// file over it replaced it with a plain file (as root, even /dev/null).
TEST_F(CliTest, FifosAndDevicesAreWrittenInPlace) {
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Held open for reading (and writing, so that nobody waits on anybody: Linux) while the render
  // writes; a PNG of 8x8 fits the pipe's buffer.
  const int keep = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(keep, 0);
  EXPECT_EQ(cli({"render", "rgb", "-s", "8x8", "-o", fifo}), 0);
  char buf[4096];
  const ssize_t n = ::read(keep, buf, sizeof buf);
  ::close(keep);
  const std::string got = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(got.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // A device is checked for itself, not for its directory's write permission (/dev).
  EXPECT_NO_THROW(check_output_path("/dev/null", "-o"));
}

TEST_F(CliTest, SeveralFramesSayWhatWasWrittenWhenOneFails) {
  fs::create_directories(path("f1.png"));  // frame 1's file cannot be written
  ::testing::internal::CaptureStderr();
  const int rc = cli({"render", "hypnosis", "-s", "8x8", "--frames", "0:3", "-o", path("f%d.png")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("3 frames -> 3 files"), std::string::npos) << err;
  EXPECT_NE(err.find("frame 1 failed, frames 0..0 were written"), std::string::npos) << err;
  EXPECT_NE(err.find("frames 1..2 were not written"), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(path("f0.png")));
  EXPECT_FALSE(fs::exists(path("f2.png")));
}

TEST_F(CliTest, ABuiltinNameThatIsAlsoAFileHereSaysWhichWasUsed) {
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  ASSERT_EQ(cli({"scene", "save", "rgby", "rgb"}), 0);  // a file named like another built-in
  ::testing::internal::CaptureStderr();
  const int rc = cli({"render", "rgb", "-s", "8x8", "-o", "a.png"});
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(cli({"render", "./rgb", "-s", "8x8", "-o", "b.png"}), 0);
  ASSERT_EQ(cli({"render", "rgby", "-s", "8x8", "-o", "c.png"}), 0);
  fs::current_path(before);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(err.find("'rgb' is both a built-in scene and a file here; using the built-in"), std::string::npos) << err;
  EXPECT_NE(slurp(path("a.png")), slurp(path("b.png")));  // the built-in rgb, not the file
  EXPECT_EQ(slurp(path("b.png")), slurp(path("c.png")));  // ./rgb is the saved rgby
  EXPECT_EQ(scene_source_note("rand10k"), "");
}

// load_scene_within_memory, what `view` calls at start and its Scene panel and dropped files call
// later: a built-in scene is refused by its registered count (rand1M, about 239 MiB by render's
// model, under a 100 MiB limit), a file once it is parsed (5,000 circles under a 1 MiB limit),
// each with a message that says what and how much; what fits loads.
TEST_F(CliTest, ScenesAreLoadedWithinTheHostsMemory) {
  test::save_first_circles("rand10k", 5000, path("big.scene"));
  test::save_first_circles("rand10k", 3000, path("small.scene"));
  const test::ScopedEnv limit("CIRCLES_MEMORY_LIMIT_MB", "100");
  std::string builtin_error;
  try {
    load_scene_within_memory("rand1M", 1, "view");
  } catch (const std::exception& e) {
    builtin_error = e.what();
  }
  const std::size_t rgb = load_scene_within_memory("rgb", 1, "view").circles.size();
  limit.set("1");
  std::string file_error;
  try {
    load_scene_within_memory(path("big.scene"), 1, "view");
  } catch (const std::exception& e) {
    file_error = e.what();
  }
  const std::size_t fits = load_scene_within_memory(path("small.scene"), 1, "view").circles.size();
  EXPECT_EQ(builtin_error, "scene rand1M (1000000 circles) needs about 239 MiB of memory; 100 MiB are available "
                           "(a run takes at most 90%)");
  EXPECT_EQ(rgb, make_builtin_scene("rgb").circles.size());
  EXPECT_EQ(file_error, "scene " + path("big.scene") + " (5000 circles) needs about 2 MiB of memory; 1 MiB are "
                        "available (a run takes at most 90%)");
  EXPECT_EQ(fits, 3000u);
}

TEST_F(CliTest, MemoryIsEstimatedAndRefusedBeforeTheWork) {
  EXPECT_DOUBLE_EQ(render_memory_bytes(1000, 10), 40 * 1000 + 250 * 10);
  EXPECT_GT(available_memory_bytes(), 0);
  const test::ScopedEnv limit("CIRCLES_MEMORY_LIMIT_MB", "100");
  EXPECT_NEAR(available_memory_bytes(), 100.0 * 1048576, 1.0);
  ::testing::internal::CaptureStderr();
  const int big = cli({"render", "rgb", "-s", "2048x2048", "-o", path("big.png")});  // ~160 MiB
  const int check = cli({"check", "rgb", "-s", "1400x1400", "--diff", path("d.png")});  // two images
  const int small = cli({"render", "rgb", "-s", "64x64", "-o", path("small.png")});
  const int lab = cli({"kernels", "reduce", "--size", "2^26", "--variant", "reduce-cub"});  // ~0.3 GiB on the CPU
  // bench checks every scene before it times any pair: rgb at 64x64 fits, rand1M's circles
  // (about 238 MiB by render's model) do not; nothing is timed, no JSON written.
  ::testing::internal::CaptureStdout();
  const int bench_big = cli({"bench", "--scenes", "rgb,rand1M", "--renderers", "cpu-ref", "-s", "64x64", "--repeat",
                             "1", "--warmup", "0", "--json", path("big.json")});
  const std::string bench_out = ::testing::internal::GetCapturedStdout();
  // A CPU renderer's images count: cpu-ref at 2048x2048 (160 MiB) is refused, rgb's 3 circles or not.
  const int bench_pixels =
      cli({"bench", "--scenes", "rgb", "--renderers", "cpu-ref", "-s", "2048x2048", "--repeat", "1", "--warmup", "0"});
  const int bench_small = cli({"bench", "--scenes", "rgb", "--renderers", "cpu-ref", "-s", "64x64", "--repeat", "1",
                               "--warmup", "0", "--json", path("small.json")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(big, 1);
  EXPECT_EQ(check, 1);
  EXPECT_EQ(small, 0);
  EXPECT_EQ(lab, 1);
  EXPECT_EQ(bench_big, 1);
  EXPECT_EQ(bench_pixels, 1);
  EXPECT_EQ(bench_small, 0);
  EXPECT_NE(err.find("rand1M at 64x64 (1000000 circles, CPU renderers' images) needs about 239 MiB of memory; "
                     "100 MiB are available"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("rgb at 2048x2048 (3 circles, CPU renderers' images) needs about"), std::string::npos) << err;
  EXPECT_EQ(bench_out.find("cpu-ref"), std::string::npos) << bench_out;  // no pair timed, not even rgb's
  EXPECT_FALSE(fs::exists(path("big.json")));
  EXPECT_TRUE(fs::exists(path("small.json")));
  EXPECT_NE(err.find("reduce-sum of 67108864 needs about 257 MiB of host memory"), std::string::npos) << err;
  EXPECT_NE(err.find("2048x2048 with 3 circles needs about 161 MiB of memory; 100 MiB are available"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(path("big.png")));
}

TEST_F(CliTest, BadInputFailsWithoutOutput) {
  EXPECT_EQ(cli({"render", "no-such-scene", "-o", path("a.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "-s", "0x10", "-o", path("a.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "--frames", "4:2", "-o", path("a.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "-r", "no-such-renderer", "-o", path("a.png")}), 2);
  std::ofstream(path("bad.scene")) << "circles-scene 1\ncount 2\n0.5 0.5 0 0.1 1 0 0 1\n";
  EXPECT_EQ(cli({"render", path("bad.scene"), "-o", path("a.png")}), 1);
  EXPECT_FALSE(fs::exists(path("a.png")));
}

TEST_F(CliTest, BadOutputPatternIsAUsageErrorBeforeAnyWork) {
  EXPECT_EQ(cli({"render", "rgb", "-s", "8x8", "-o", path("%s.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "-s", "8x8", "--frames", "0:2", "-o", path("h%d%d.png")}), 2);
  EXPECT_TRUE(fs::is_empty(dir_));
  EXPECT_EQ(cli({"render", "rgb", "--seed", "-1", "-o", path("a.png")}), 2);
}

// ScopedEnv puts back what was there, set or unset, however its scope is left.
TEST(ScopedEnv, RestoresTheVariableWhenTheScopeEnds) {
  const char* name = "CIRCLES_TEST_SCOPED_ENV";
  const auto value = [&]() -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "(unset)";
  };
  {
    const test::ScopedEnv unset(name);
    EXPECT_EQ(value(), "(unset)");
    {
      const test::ScopedEnv outer(name, "outer");
      EXPECT_EQ(value(), "outer");
      try {
        const test::ScopedEnv inner(name, "inner");
        inner.set("changed");
        EXPECT_EQ(value(), "changed");
        throw std::runtime_error("left early");
      } catch (const std::runtime_error&) {
      }
      EXPECT_EQ(value(), "outer");
      {
        const test::ScopedEnv removed(name);
        EXPECT_EQ(value(), "(unset)");
      }
      EXPECT_EQ(value(), "outer");
    }
    EXPECT_EQ(value(), "(unset)");
  }
}

}  // namespace
}  // namespace circles
