// The command line, called in-process through run_cli.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/lab_cli.h"
#include "app/common/lab_registry.h"
#include "app/common/registry.h"
#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/modes.h"
#include "render/output_file.h"
#include "render/png.h"
#include "render/units.h"
#include "scoped_env.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using test::slurp;

int cli(std::vector<std::string> args) {
  args.insert(args.begin(), "circles");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run_cli(static_cast<int>(argv.size()), argv.data());
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("circles_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

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

TEST_F(CliTest, ListNamesEveryRendererAndScene) {
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(cli({"list"}), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  for (const RendererInfo& r : renderer_registry())
    EXPECT_NE(out.find("  " + r.name + " "), std::string::npos) << r.name << "\n" << out;
  for (const char* scene : {"rgb", "rand10k", "rand1M", "micro2M", "snow", "stress10M"})
    EXPECT_NE(out.find(scene), std::string::npos) << scene;
}

TEST_F(CliTest, HelpAndUsageErrors) {
  EXPECT_EQ(cli({"--help"}), 0);
  EXPECT_EQ(cli({"render", "--help"}), 0);
#if !CIRCLES_HAVE_GUI
  EXPECT_EQ(cli({}), 2);  // with the GUI, no arguments opens the viewer (tests/test_viewer.cpp)
#endif
  EXPECT_EQ(cli({"frobnicate"}), 2);
  EXPECT_EQ(cli({"render", "rgb", "--bogus"}), 2);
  // A missing or unknown command, or an option in its place, is named at every level.
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"frobnicate"}, "unknown command 'frobnicate' (commands: list, render"},
           {{"--bogus"}, "unknown option '--bogus' where a command goes"},
           {{"scene", "load", "x"}, "unknown command 'load' (commands: save); circles scene --help"},
           {{"scene"}, "circles scene needs a command: save"},
           {{"scene", "-x"}, "unknown option '-x' where a command goes (commands: save)"},
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
  // A renderer unavailable here, named after one that is: nothing is timed.
  const RendererInfo& binned = *find_renderer("cuda-tile-binned");
  if (!unavailable_reason(binned).empty()) {
    ::testing::internal::CaptureStdout();
    EXPECT_EQ(cli({"bench", "--scenes", "rgb", "-s", "8x8", "--renderers", "cpu-mt,cuda-tile-binned", "--repeat", "1",
                   "--warmup", "0"}),
              2);
    out = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(out.find("cpu-mt"), std::string::npos) << out;
  }
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

// Without -o a frame goes to SCENE.png in the current folder: a built-in's name, or a scene
// file's name without its folder and extension.
TEST_F(CliTest, DefaultOutputIsNamedAfterTheScene) {
  ASSERT_EQ(cli({"scene", "save", "rgb", path("my sky.scene")}), 0);
  const fs::path was = fs::current_path();
  fs::current_path(dir_);
  const int file_rc = cli({"render", path("my sky.scene"), "-s", "8x8"});
  const int builtin_rc = cli({"render", "rgb", "-s", "8x8"});
  fs::current_path(was);
  EXPECT_EQ(file_rc, 0);
  EXPECT_EQ(builtin_rc, 0);
  EXPECT_TRUE(fs::exists(path("my sky.png")));
  EXPECT_TRUE(fs::exists(path("rgb.png")));
  EXPECT_FALSE(fs::exists(path("out.png")));
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
  if (why.empty()) GTEST_SKIP() << "a usable GPU here: nothing to explain (the GPU suites run instead)";
  EXPECT_EQ(why.find("insufficient for CUDA runtime"), std::string::npos) << why;
  void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (libcuda) {
    dlclose(libcuda);
  } else if (CIRCLES_HAVE_CUDA) {
    EXPECT_EQ(why, "no NVIDIA driver found (libcuda.so.1 is not installed)");
  }
  EXPECT_EQ(lab_unavailable_reason(), why);
}

TEST_F(CliTest, KernelsListPrintsTheRegistry) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"kernels", "--list"}), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  for (const lab::Variant& v : lab_registry()) EXPECT_NE(out.find(v.name), std::string::npos) << v.name;
  EXPECT_EQ(cli({"kernels", "--help"}), 0);
}

TEST_F(CliTest, KernelsRefusesBadSelectionsBeforeAnyWork) {
  const std::string json = path("k.json");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"kernels", "sort"},                                             // unknown family
           {"kernels", "--variant", "reduce-magic"},                        // unknown variant
           {"kernels", "scan", "--variant", "reduce-cub"},                  // variant of another family
           {"kernels", "reduce", "--size", "0"},                            // bad size
           {"kernels", "reduce", "--size", "64x64"},                        // 2D size for a 1D task
           {"kernels", "transpose", "--size", "1000"},                      // 1D size for transpose
           {"kernels", "reduce", "--type", "f64"},                          // bad type
           {"kernels", "transpose", "--type", "i32"},                       // no variant runs on it
           {"kernels", "scan", "--type", "f32", "--variant", "scan-cub,compact-cub"},  // compact is i32 only
           {"kernels", "conv", "--param", "8", "--type", "i32"},            // the type, not the knob, is wrong
           {"kernels", "--variant", "reduce-shuffle", "--param", "48"},     // knob value not listed
           {"kernels", "--param", "999"},                                   // no variant takes it
           {"kernels", "bogus", "--list"},                                  // --list checks the family
           {"kernels", "reduce", "--repeat", "0"},                          // bad count
           {"kernels", "reduce", "--json", path("no/such/dir/k.json")},     // unwritable JSON path
       }) {
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_EQ(cli(args), 2) << joined;
  }
  EXPECT_FALSE(fs::exists(path("no/such/dir/k.json")));
  // --param narrows: banks-broadcast lists only stride 0, yet `banks --param 4` is a valid run of
  // the other widths (it runs, or says there is no GPU: exit 0 or 1, never 2).
  const int rc = cli({"kernels", "banks", "--param", "4", "--size", "64", "--repeat", "1", "--warmup", "0"});
  EXPECT_EQ(rc, lab_unavailable_reason().empty() ? 0 : 1);
}

TEST_F(CliTest, KernelsRunsOrSaysWhyNot) {
  // With a GPU a tiny run succeeds and writes its JSON; without one the lab says why and exits 1,
  // leaving no JSON behind.
  const std::string json = path("k.json");
  const int rc = cli({"kernels", "reduce", "--variant", "reduce-cub,reduce-shuffle", "--param", "256", "--size",
                      "1025", "--repeat", "2", "--warmup", "0", "--json", json});
  if (lab_unavailable_reason().empty()) {
    EXPECT_EQ(rc, 0);
    const std::string text = slurp(json);
    EXPECT_NE(text.find("\"variant\": \"reduce-shuffle\""), std::string::npos) << text;
    EXPECT_NE(text.find("\"check\": \"ok\""), std::string::npos);
  } else {
    EXPECT_EQ(rc, 1);
    EXPECT_FALSE(fs::exists(json));
  }
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
  // An unavailable renderer is a command-line mistake too; with a GPU the same call succeeds.
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) {
    usage({"render", "rgb", "-r", "cuda-naive", "-s", "8x8", "-o", path("a.png")}, "is unavailable");
  } else {
    EXPECT_EQ(cli({"render", "rgb", "-r", "cuda-naive", "-s", "8x8", "-o", path("a.png")}), 0);
  }
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

TEST_F(CliTest, RenderWritesAPngOfTheRequestedSize) {
  ASSERT_EQ(cli({"render", "rgb", "-r", "cpu-ref", "-s", "70x33", "-o", path("rgb.png")}), 0);
  const Image img = read_png(path("rgb.png"));
  EXPECT_EQ(img.width, 70);
  EXPECT_EQ(img.height, 33);
}

TEST_F(CliTest, RenderSeveralFramesNumbersTheFiles) {
  ASSERT_EQ(cli({"render", "hypnosis", "-r", "cpu-mt", "-s", "32x32", "--frames", "2:5", "-o",
                 path("h.png")}),
            0);
  for (const char* f : {"h-0002.png", "h-0003.png", "h-0004.png"}) EXPECT_TRUE(fs::exists(path(f))) << f;
  EXPECT_FALSE(fs::exists(path("h-0005.png")));
  EXPECT_NE(slurp(path("h-0002.png")), slurp(path("h-0003.png")));  // the rings grew
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

TEST_F(CliTest, StillScenesSeekToAnyFrameAtOnce) {
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(cli({"render", "rgb", "-s", "16x16", "--frames", "999999999999", "-o", path("far.png")}), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_TRUE(fs::exists(path("far.png")));
}

TEST_F(CliTest, SceneSaveDefaultsToTheScenesOwnFrame) {
  ASSERT_EQ(cli({"scene", "save", "hypnosis", path("h5.scene"), "--frame", "5"}), 0);
  ASSERT_EQ(cli({"scene", "save", path("h5.scene"), path("again.scene")}), 0);
  EXPECT_EQ(slurp(path("h5.scene")), slurp(path("again.scene")));
}

// The renderers' scans: names from the registry, the default first, resolved and described like
// the other settings; a renderer without them refuses one.
TEST(RendererScans, ResolvedDescribedAndRefused) {
  const RendererInfo& scan = *find_renderer("cuda-tile-scan");
  const RendererInfo& binned = *find_renderer("cuda-tile-binned");
  ASSERT_FALSE(scan.scans.empty());
  ASSERT_FALSE(binned.scans.empty());
  EXPECT_EQ(scan.scans.front(), "ballot");
  EXPECT_EQ(binned.scans.front(), "scan-lookback");
  EXPECT_EQ(resolve_settings(scan, {}).scan, "ballot");
  EXPECT_EQ(resolve_settings(binned, {}).scan, "scan-lookback");
  EXPECT_EQ(resolve_settings(binned, {0, 0, "scan-cub"}).scan, "scan-cub");
  EXPECT_EQ(resolve_settings(scan, {32, 0, "scan-cub"}).scan, "scan-cub");
  EXPECT_EQ(describe_settings(scan, {32, 64, "scan-warp-shuffle"}),
            "tile 32, batch 64, scan scan-warp-shuffle");
  EXPECT_EQ(describe_settings(scan, {}), "tile 16, batch 256, scan ballot");
  EXPECT_EQ(describe_settings(binned, {}), "tile 32, scan scan-lookback");
  try {
    resolve_settings(scan, {0, 0, "bogus"});
    ADD_FAILURE() << "a bogus scan was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("supports scans ballot, scan-hillis-steele, scan-blelloch-shared"), std::string::npos)
        << what;
    EXPECT_NE(what.find("not 'bogus'"), std::string::npos) << what;
  }
  EXPECT_THROW(resolve_settings(scan, {0, 0, "scan-lookback"}), std::invalid_argument);  // device-wide only
  EXPECT_THROW(resolve_settings(binned, {0, 0, "ballot"}), std::invalid_argument);       // block-level only
  for (const char* name : {"cpu-ref", "cpu-mt", "cuda-naive"}) {
    const RendererInfo& info = *find_renderer(name);
    EXPECT_TRUE(info.scans.empty()) << name;
    EXPECT_EQ(resolve_settings(info, {}).scan, "") << name;
    EXPECT_THROW(resolve_settings(info, {0, 0, "scan-cub"}), std::invalid_argument) << name;
  }
  // Each choice has its line; every name but the ballot is the lab's exclusive scan it comes from
  // (cuda-tile-binned runs that very launcher on 32-bit ints).
  for (const RendererInfo* info : {&scan, &binned}) {
    ASSERT_EQ(info->scan_notes.size(), info->scans.size()) << info->name;
    for (std::size_t k = 0; k < info->scans.size(); ++k) {
      EXPECT_FALSE(info->scan_notes[k].empty()) << info->scans[k];
      if (info->scans[k] == "ballot") continue;
      const lab::Variant* v = find_lab_variant(info->scans[k]);
      ASSERT_NE(v, nullptr) << info->scans[k];
      EXPECT_EQ(v->task, lab::Task::exclusive_scan) << info->scans[k];
      EXPECT_NE(std::find(v->types.begin(), v->types.end(), lab::Elem::i32), v->types.end())
          << info->scans[k];
    }
  }
  EXPECT_EQ(binned.scans.size(), 7u);  // every device-wide exclusive scan of the lab
}

TEST_F(CliTest, ScanFlagIsCheckedAgainstTheRenderer) {
  auto run = [&](std::vector<std::string> args, std::string* err) {
    ::testing::internal::CaptureStderr();
    const int rc = cli(args);
    *err = ::testing::internal::GetCapturedStderr();
    return rc;
  };
  std::string err;
  // A bad name is a usage error on any machine (settings are checked before availability).
  const std::string png = path("a.png");
  EXPECT_EQ(run({"render", "rgb", "-r", "cuda-tile-scan", "--scan", "bogus", "-s", "8x8", "-o", png}, &err),
            2);
  EXPECT_NE(err.find("renderer 'cuda-tile-scan' supports scans ballot, "), std::string::npos) << err;
  EXPECT_EQ(run({"check", "rgb", "-r", "cuda-tile-binned", "--scan", "ballot", "-s", "8x8"}, &err), 2);
  EXPECT_NE(err.find("supports scans scan-lookback, scan-cub"), std::string::npos) << err;
  EXPECT_EQ(run({"render", "rgb", "-r", "cpu-ref", "--scan", "scan-cub", "-s", "8x8", "-o", png}, &err), 2);
  EXPECT_NE(err.find("renderer 'cpu-ref' has no scan setting"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(png));
  // A good name parses; it renders where there is a GPU, and otherwise only the GPU is missing.
  const int rc = run({"render", "rgb", "-r", "cuda-tile-binned", "--scan", "scan-lookback", "-s", "8x8", "-o",
                      path("b.png")},
                     &err);
  if (gpu_unavailable_reason().empty()) {
    EXPECT_EQ(rc, 0) << err;
  } else {
    EXPECT_EQ(rc, 2);
    EXPECT_NE(err.find("is unavailable"), std::string::npos) << err;
  }
  // `circles list` and --help name them.
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"list"}), 0);
  const std::string list = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(list.find("--scan ballot|scan-hillis-steele|"), std::string::npos) << list;
  EXPECT_NE(list.find("--scan scan-lookback|scan-cub|"), std::string::npos) << list;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"render", "--help"}), 0);
  const std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(help.find("--scan"), std::string::npos) << help;
}

TEST_F(CliTest, BenchChecksScenesAndSettingsBeforeTiming) {
  EXPECT_EQ(cli({"bench", "--scenes", "rgb,nosuch", "--renderers", "cpu-mt", "--repeat", "1"}), 2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-ref", "--tile-size", "32"}), 2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "-s", "16x16", "--renderers", "cpu-ref,cpu-mt", "--tile-size", "16",
                 "--repeat", "1", "--warmup", "0", "--json", path("b.json")}),
            0);  // cpu-ref cannot take a tile size: skipped with a note
  EXPECT_NE(slurp(path("b.json")).find("cpu-mt"), std::string::npos);
  EXPECT_EQ(slurp(path("b.json")).find("\"cpu-ref\""), std::string::npos);
  EXPECT_EQ(cli({"bench", "--max-seconds", "-1"}), 2);
}

// --early-exit: only for renderers that have it (a usage error elsewhere, on any machine); bench
// times the modes side by side, skipping early exit where a renderer has none, and writes the
// mode and the workload into its JSON; `circles list` says which strategy cuda-tile-binned takes.
TEST_F(CliTest, EarlyExitAndModes) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"render", "rgb", "-r", "cpu-ref", "--early-exit", "-s", "8x8", "-o", path("e.png")}), 2);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("renderer 'cpu-ref' has no early-exit mode"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("e.png")));
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-mt", "--modes", "exact,fast"}), 2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-ref", "--early-exit"}), 2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "-s", "16x16", "--renderers", "cpu-ref,cpu-mt", "--modes",
                 "exact,early-exit", "--repeat", "1", "--warmup", "0", "--json", path("m.json")}),
            0);
  const std::string json = slurp(path("m.json"));
  EXPECT_NE(json.find("\"mode\": \"exact\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"mode\": \"early-exit\""), std::string::npos) << json;  // neither CPU renderer has it
  EXPECT_NE(json.find("\"peak_device_bytes\": 0"), std::string::npos) << json;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"list"}), 0);
  const std::string list = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(list.find("--early-exit"), std::string::npos) << list;
  EXPECT_NE(list.find("rgb            direct  3 circles x 1024 tiles"), std::string::npos) << list;
  EXPECT_NE(list.find("rand1M         binned  1000000 circles x 1024 tiles"), std::string::npos) << list;
}

// cuda-tile-binned's forced choices (--binned-*): typed settings, refused by any other renderer
// and out of range as command-line mistakes (exit 2), before availability (so here, without a GPU),
// and named by describe_settings.
TEST_F(CliTest, BinnedChoicesAreTypedOptions) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"render", "rgb", "-r", "cpu-ref", "--binned-compose", "0", "-s", "8x8", "-o", path("c.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "-r", "cuda-tile-binned", "--binned-rows", "3", "-s", "8x8", "-o", path("r.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "-r", "cuda-tile-binned", "--binned-strategy", "sideways", "-o", path("s.png")}), 2);
  EXPECT_EQ(cli({"render", "rgb", "-r", "cuda-tile-binned", "--binned-block", "16", "-o", path("b.png")}), 2);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("renderer 'cpu-ref' takes no --binned-* option"), std::string::npos) << err;
  EXPECT_NE(err.find("--binned-rows takes 2 or 4, not 3"), std::string::npos) << err;
  EXPECT_NE(err.find("sideways"), std::string::npos) << err;
  EXPECT_NE(err.find("--binned-block takes 32 to 1024 circles, not 16"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("c.png")));
  RendererSettings s;
  s.binned.strategy = BinnedChoices::Strategy::Direct;
  s.binned.max_pairs = 64;
  s.binned.compose = 0;
  EXPECT_EQ(describe_settings(*find_renderer("cuda-tile-binned"), s),
            "tile 32, scan " + find_renderer("cuda-tile-binned")->scans.front() +
                ", strategy direct, max pairs 64, compose 0");
  EXPECT_THROW(describe_settings(*find_renderer("cuda-tile-scan"), s), std::invalid_argument);
}

// --half-colour: a mode of the renderers that have one (cuda-tile-binned); any other refuses it as
// a command-line mistake, as --early-exit. In bench's --modes list, a renderer without half colour
// is timed in the other modes only, and the JSON says whether half colour was asked for.
TEST_F(CliTest, HalfColour) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"render", "rgb", "-r", "cpu-ref", "--half-colour", "-s", "8x8", "-o", path("h.png")}), 2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-ref", "--half-colour"}), 2);
  // exact-float is no mode (any more than an unknown word is).
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-mt", "--modes", "exact,exact-float"}), 2);
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-mt", "--modes", "exact,floats"}), 2);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("renderer 'cpu-ref' has no half-colour mode (renderers with one: cuda-tile-binned)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("not 'exact-float'"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("h.png")));
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "-s", "16x16", "--renderers", "cpu-ref", "--modes", "exact,half-colour",
                 "--repeat", "1", "--warmup", "0", "--json", path("h.json")}),
            0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  const nlohmann::json j = nlohmann::json::parse(slurp(path("h.json")));
  ASSERT_EQ(j.size(), 1u) << j;  // cpu-ref in exact mode only
  EXPECT_EQ(j[0]["mode"], "exact") << j;
  EXPECT_EQ(j[0]["half_colour"], false) << j;
  EXPECT_FALSE(j[0].contains("float_colour")) << j;
  EXPECT_EQ(out.find("/half"), std::string::npos) << out;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"list"}), 0);
  const std::string list = ::testing::internal::GetCapturedStdout();
  const std::size_t binned = list.find("\n  cuda-tile-binned ");
  ASSERT_NE(binned, std::string::npos) << list;
  // The option's own line (the description names it too), under cuda-tile-binned and no other.
  const std::string option_line = "\n" + std::string(19, ' ') + "--half-colour\n";
  EXPECT_NE(list.find(option_line, binned), std::string::npos) << list;
  EXPECT_EQ(list.find(option_line), list.find(option_line, binned)) << list;
  EXPECT_EQ(list.find("--float-colour"), std::string::npos) << list;
  // Each mode with what it promises.
  for (Mode m : {Mode::Exact, Mode::HalfColour, Mode::EarlyExit})
    EXPECT_NE(list.find(std::string(mode_name(m)) + " "), std::string::npos) << list;
  EXPECT_NE(list.find("exact        (default)      cpu-ref's floats to the bit, so its PNG bytes"), std::string::npos)
      << list;
  EXPECT_NE(list.find("--early-exit   every 8-bit value within one step of cpu-ref's"), std::string::npos) << list;
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(cli({"render", "--help"}), 0);
  const std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(help.find("--half-colour"), std::string::npos) << help;
  EXPECT_NE(help.find("within 2^-10 of cpu-ref"), std::string::npos) << help;
  EXPECT_EQ(help.find("--float-colour"), std::string::npos) << help;
}

// --frames names animation frames wherever it appears; bench's count of timed frames is --repeat,
// and bench says so to whoever types --frames there.
TEST_F(CliTest, BenchFramesIsCalledRepeat) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"bench", "--scenes", "rgb", "--frames", "3"}), 2);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("--repeat"), std::string::npos);
}

// The budget is the whole pair's: once a frame is longer than half of it, one warm-up and one
// timed frame are all a pair gets (it took 1 + 3 before, whatever the budget). The run says
// up front how many pairs there are and how long they may take.
TEST_F(CliTest, BenchKeepsToItsBudgetAndSaysSoFirst) {
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(cli({"bench", "--scenes", "rand10k,rgb", "--renderers", "cpu-ref", "-s", "64x64", "--max-seconds",
                 "0.0001", "--repeat", "50", "--warmup", "5", "--json", path("b.json")}),
            0);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("2 scenes x 1 renderer variants = 2 pairs"), std::string::npos) << err;
  EXPECT_NE(err.find("at most"), std::string::npos) << err;
  const nlohmann::json j = nlohmann::json::parse(slurp(path("b.json")));
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["frames"], 1) << j[0]["scene"];
  // A generous budget takes every --repeat frame.
  ASSERT_EQ(cli({"bench", "--scenes", "rgb", "--renderers", "cpu-ref", "-s", "8x8", "--max-seconds", "60",
                 "--repeat", "7", "--json", path("c.json")}),
            0);
  EXPECT_EQ(nlohmann::json::parse(slurp(path("c.json")))[0]["frames"], 7);
}

TEST_F(CliTest, CheckPassesForCpuMt) {
  EXPECT_EQ(cli({"check", "rand10k", "-r", "cpu-mt", "-s", "99x61", "--diff", path("d.png")}), 0);
  EXPECT_FALSE(fs::exists(path("d.png")));
  EXPECT_EQ(cli({"check", "snow", "-r", "cpu-mt", "-s", "64x64", "--frames", "0:3", "--diff",
                 path("d.png")}),
            0);
}

// The failing side of `circles check` (its renderers agree with cpu-ref, so only a frame that
// differs on purpose reaches it): FAIL printed, false returned, and the difference image written,
// bright where the frames differ and black elsewhere; a size mismatch fails too.
TEST_F(CliTest, CheckFrameFailsAndWritesTheDifference) {
  Image ref(6, 4), test(6, 4);
  for (Image* img : {&ref, &test})
    for (Float4& p : img->pixels) p = Float4{.25f, .5f, .75f, 1.f};
  test.at(4, 1).y += .1f;
  ::testing::internal::CaptureStdout();
  EXPECT_TRUE(check_frame(ref, ref, 0.f, "same", path("same.png")));
  EXPECT_FALSE(check_frame(ref, test, 2e-3f, "one pixel", path("diff.png")));
  EXPECT_TRUE(check_frame(ref, test, .2f, "within tolerance", path("loose.png")));
  EXPECT_FALSE(check_frame(ref, Image(5, 4), 1.f, "smaller", path("size.png")));
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("same vs cpu-ref: PASS"), std::string::npos) << out;
  EXPECT_NE(out.find("one pixel vs cpu-ref: FAIL: max |diff| r 0 g 0.1"), std::string::npos) << out;
  EXPECT_NE(out.find("1 of 24 pixels over tolerance"), std::string::npos) << out;
  EXPECT_NE(out.find("smaller vs cpu-ref: FAIL: images differ in size"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(path("same.png")));
  EXPECT_FALSE(fs::exists(path("loose.png")));
  const Image diff = read_png(path("diff.png"));
  ASSERT_EQ(diff.width, 6);
  ASSERT_EQ(diff.height, 4);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 6; ++i) {
      const Float4 p = diff.at(i, j);
      const bool here = i == 4 && j == 1;
      EXPECT_EQ(p.x, 0.f) << i << "," << j;
      EXPECT_EQ(p.y, here ? 1.f : 0.f) << i << "," << j;  // 0.1 x16, clamped
      EXPECT_EQ(p.z, 0.f) << i << "," << j;
    }
  EXPECT_TRUE(fs::exists(path("size.png")));
}

// --exact-bytes: a frame within the tolerance whose 8-bit values differ passes without it and
// fails with it, the difference image written.
TEST_F(CliTest, CheckFrameExactBytesFailsOnAByteWithinTheTolerance) {
  Image ref(3, 2), test(3, 2);
  for (Image* img : {&ref, &test})
    for (Float4& p : img->pixels) p = Float4{100.f / 255.f, .5f, .75f, 1.f};
  test.at(1, 0).x = 101.f / 255.f;  // 0.0039 more: one 8-bit step, within a tolerance of 0.01
  ::testing::internal::CaptureStdout();
  const bool loose = check_frame(ref, test, .01f, "loose", path("loose.png"));
  const bool exact = check_frame(ref, test, .01f, "bytes", path("bytes.png"), true);
  const bool same = check_frame(ref, ref, 0.f, "same", path("same.png"), true);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(loose) << out;
  EXPECT_FALSE(exact) << out;
  EXPECT_TRUE(same) << out;
  EXPECT_NE(out.find("loose vs cpu-ref: PASS"), std::string::npos) << out;
  EXPECT_NE(out.find("bytes vs cpu-ref: FAIL"), std::string::npos) << out;
  EXPECT_NE(out.find("0 of 6 pixels over tolerance; floats: 1 of 24 values differ; "
                     "8-bit: 1 values differ, by up to 1 step;"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(path("loose.png")));
  EXPECT_FALSE(fs::exists(path("same.png")));
  ASSERT_TRUE(fs::exists(path("bytes.png")));
  const Image diff = read_png(path("bytes.png"));
  ASSERT_EQ(diff.width, 3);
  ASSERT_EQ(diff.height, 2);
  EXPECT_GT(diff.at(1, 0).x, 0.f);
  EXPECT_EQ(diff.at(0, 0).x, 0.f);
}

// compare_images on the floats as rendered, never clamped to [0, 1]: a colour above 1 that
// differs is a difference (relative to the reference's value) even where both show as 255, and
// the 8-bit counts are those of the values a PNG holds.
TEST(CompareImages, DifferencesAreOfTheFloatsUnclamped) {
  Image ref(2, 1), test(2, 1);
  ref.at(0, 0) = test.at(0, 0) = Float4{.25f, .5f, .75f, 1.f};
  ref.at(1, 0) = Float4{1.5f, .5f, .75f, 1.f};
  test.at(1, 0) = Float4{1.f, .5f, .75f, 1.f};
  Comparison c = compare_images(ref, test, 2e-3f);
  EXPECT_EQ(c.max_abs[0], .5f);
  EXPECT_EQ(c.max_scaled[0], .5f / 1.5f);  // relative above 1
  for (int ch = 1; ch < 4; ++ch) EXPECT_EQ(c.max_abs[ch], 0.f) << ch;
  EXPECT_EQ(c.over_tolerance, 1);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.floats_differ, 1);
  EXPECT_EQ(c.bytes_differ, 0);  // both 255 in a PNG
  EXPECT_EQ(c.max_steps, 0);
  EXPECT_TRUE(c.same_bytes());
  // A tolerance of a third lets it pass: the relative difference is what it bounds.
  EXPECT_TRUE(compare_images(ref, test, .34f).passed());
  // Alpha sums above 1 likewise: 3 against 2.5 is 1/6 relative.
  ref.at(1, 0) = test.at(1, 0) = Float4{.5f, .5f, .5f, 3.f};
  test.at(1, 0).w = 2.5f;
  c = compare_images(ref, test, 0.f);
  EXPECT_EQ(c.max_abs[3], .5f);
  EXPECT_EQ(c.max_scaled[3], .5f / 3.f);
  EXPECT_EQ(c.bytes_differ, 0);
  // One 8-bit step within [0, 1]: one value differs, by one step.
  ref.at(1, 0) = test.at(1, 0) = Float4{100.f / 255.f, .5f, .75f, 1.f};
  test.at(1, 0).x = 101.f / 255.f;
  c = compare_images(ref, test, 2e-3f);
  EXPECT_EQ(c.bytes_differ, 1);
  EXPECT_EQ(c.max_steps, 1);
  EXPECT_FALSE(c.same_bytes());
  EXPECT_EQ(c.over_tolerance, 1);  // 1/255 is over 2e-3
  EXPECT_NEAR(c.max_abs[0], 1.f / 255.f, 1e-7f);
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

TEST_F(CliTest, SavedSceneRendersLikeTheBuiltin) {
  ASSERT_EQ(cli({"scene", "save", "fireworks", path("fw.scene"), "--frame", "20"}), 0);
  ASSERT_EQ(cli({"render", path("fw.scene"), "-r", "cpu-ref", "-s", "80x60", "--frames", "25", "-o",
                 path("from_file.png")}),
            0);
  ASSERT_EQ(cli({"render", "fireworks", "-r", "cpu-ref", "-s", "80x60", "--frames", "25", "-o",
                 path("builtin.png")}),
            0);
  EXPECT_EQ(slurp(path("from_file.png")), slurp(path("builtin.png")));
  // A frame before the saved one cannot be rendered: animations only run forward.
  EXPECT_EQ(cli({"render", path("fw.scene"), "--frames", "3", "-o", path("x.png")}), 2);
}

}  // namespace
}  // namespace circles
