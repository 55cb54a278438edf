// The command line, called in-process through run_cli: what its commands do (list, render,
// scene save, kernels, bench, check), the renderers' settings and modes on the command line,
// and compare_images behind check. Arguments, usage errors, exit codes, outputs and memory
// limits are in arguments_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/lab_cli.h"
#include "app/common/ladder.h"
#include "app/common/lab_registry.h"
#include "app/common/registry.h"
#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/modes.h"
#include "render/png.h"
#include "render/renderer.h"
#include "cli_test_util.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using test::cli;
using test::CliTest;
using test::slurp;

TEST_F(CliTest, ListNamesEveryRendererAndScene) {
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(cli({"list"}), 0);
  const std::string out = ::testing::internal::GetCapturedStdout();
  for (const RendererInfo& r : renderer_registry())
    EXPECT_NE(out.find("  " + r.name + " "), std::string::npos) << r.name << "\n" << out;
  for (const char* scene : {"rgb", "rand10k", "rand1M", "micro2M", "snow", "stress10M"})
    EXPECT_NE(out.find(scene), std::string::npos) << scene;
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
}

// `circles ARGS... --json JSON`, which must succeed: the records of the variants it ran (the
// device copy's left out), or none where it failed.
std::vector<nlohmann::json> lab_runs(std::vector<std::string> args, const std::string& json) {
  args.insert(args.end(), {"--json", json});
  const int rc = cli(args);
  EXPECT_EQ(rc, 0);
  std::vector<nlohmann::json> runs;
  if (rc != 0) return runs;
  for (const nlohmann::json& r : nlohmann::json::parse(slurp(json)))
    if (r["kind"] != "copy") runs.push_back(r);
  return runs;
}

// --param narrows a family to the variants that list the value: banks-broadcast lists only
// stride 0, yet `banks --param 4` is a valid selection, the other widths at stride 4.
const std::vector<std::string> kBanksParam4 = {"kernels", "banks", "--param", "4", "--size", "64", "--repeat", "1",
                                               "--warmup", "0"};

// With the GPU: every banks variant that lists stride 4 runs at it, checked, and no other.
TEST_F(CliTest, KernelsParamNarrowsTheFamily) {
  NEED_GPU(lab_unavailable_reason());
  std::set<std::string> want;
  for (const lab::Variant& v : lab_registry())
    if (v.family == lab::Family::banks && std::find(v.params.begin(), v.params.end(), 4) != v.params.end())
      want.insert(v.name);
  ASSERT_TRUE(want.count("banks-32bit")) << "stride 4 is not among banks-32bit's";
  ASSERT_FALSE(want.count("banks-broadcast"));
  std::set<std::string> ran;
  for (const nlohmann::json& r : lab_runs(kBanksParam4, path("k.json"))) {
    ran.insert(r["variant"].get<std::string>());
    EXPECT_EQ(r["param"], 4) << r;
    EXPECT_EQ(r["check"], "ok") << r;
  }
  EXPECT_EQ(ran, want);
}

// Without the GPU: the selection is accepted (not a usage error, 2) and only the GPU is missing
// (exit 1, with the reason).
TEST_F(CliTest, KernelsParamNarrowsTheFamilyWithoutAGpuToo) {
  const std::string why = lab_unavailable_reason();
  if (why.empty()) SKIP_EXPECTED("a GPU is here: KernelsParamNarrowsTheFamily runs instead");
  ::testing::internal::CaptureStderr();
  const int rc = cli(kBanksParam4);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find("the kernel lab needs a CUDA GPU: " + why), std::string::npos) << err;
}

// A tiny lab run: two reduce variants on 1025 elements, twice each.
const std::vector<std::string> kTinyReduce = {"kernels", "reduce", "--variant", "reduce-cub,reduce-shuffle",
                                              "--param", "256", "--size", "1025", "--repeat", "2", "--warmup", "0"};

// With the GPU a tiny run succeeds and writes its JSON: both variants, each run twice and checked.
TEST_F(CliTest, KernelsRunsAndWritesItsJson) {
  NEED_GPU(lab_unavailable_reason());
  std::set<std::string> ran;
  for (const nlohmann::json& r : lab_runs(kTinyReduce, path("k.json"))) {
    ran.insert(r["variant"].get<std::string>());
    EXPECT_EQ(r["check"], "ok") << r;
    EXPECT_EQ(r["runs"], 2) << r;
    EXPECT_EQ(r["n"], 1025) << r;
    if (r["variant"] == "reduce-shuffle") {
      EXPECT_EQ(r["param"], 256) << r;
    }
  }
  EXPECT_EQ(ran, (std::set<std::string>{"reduce-cub", "reduce-shuffle"}));
}

// Without the GPU the lab says why and exits 1, leaving no JSON behind.
TEST_F(CliTest, KernelsSaysWhyNotWithoutAGpu) {
  const std::string why = lab_unavailable_reason();
  if (why.empty()) SKIP_EXPECTED("a GPU is here: KernelsRunsAndWritesItsJson runs instead");
  std::vector<std::string> args = kTinyReduce;
  args.insert(args.end(), {"--json", path("k.json")});
  ::testing::internal::CaptureStderr();
  const int rc = cli(args);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find("the kernel lab needs a CUDA GPU: " + why), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("k.json")));
}

// `circles ladder`: an unknown rung is a command-line mistake, named with the rungs there are.
// An SVG drawing renders as a scene of its circles; one circles cannot draw fails the render with
// its file:line (exit 1), nothing written.
TEST_F(CliTest, RendersAnSvgDrawingAndNamesWhatItCannotDraw) {
  std::ofstream(path("d.svg")) << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"30\">\n"
                                  "<circle cx=\"20\" cy=\"15\" r=\"10\" fill=\"red\"/>\n</svg>\n";
  EXPECT_EQ(cli({"render", path("d.svg"), "-r", "cpu-ref", "-o", path("d.png")}), 0);
  const Image img = read_png(path("d.png"));
  EXPECT_EQ(img.width, 40);
  EXPECT_EQ(img.height, 30);
  std::ofstream(path("bad.svg")) << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"30\">\n"
                                    "<circle r=\"1\"/>\n  <rect width=\"1\" height=\"1\"/>\n</svg>\n";
  ::testing::internal::CaptureStderr();
  const int rc = cli({"render", path("bad.svg"), "-o", path("bad.png")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find("bad.svg:3:3: error: <rect> is not supported"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("bad.png")));
}

TEST_F(CliTest, LadderRefusesAnUnknownRung) {
  ::testing::internal::CaptureStderr();
  const int rc = cli({"ladder", "rgb", "--rungs", "naive,eight-row", "--json", path("l.json")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("ladder: no rung 'eight-row' (rungs: naive, tile-scan,"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("l.json")));
}

// Without a GPU the ladder says why and exits 1 (as the lab does), leaving no file behind.
TEST_F(CliTest, LadderSaysWhyNotWithoutAGpu) {
  const std::string why = gpu_unavailable_reason();
  if (why.empty()) SKIP_EXPECTED("a GPU is here: LadderTimesAndChecksEveryRung runs instead");
  ::testing::internal::CaptureStderr();
  const int rc = cli({"ladder", "rand10k", "-s", "64x64", "--json", path("l.json"), "--plot", path("l.svg")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find("the renderer ladder needs a CUDA GPU (rung naive is cuda-naive): " + why), std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(path("l.json")));
  EXPECT_FALSE(fs::exists(path("l.svg")));
}

// With the GPU every rung runs, keeps its promise (the exact ones cpu-ref's bytes) and lands in
// the JSON in ladder order, with its speed-up over its base and the plot beside it.
TEST_F(CliTest, LadderTimesAndChecksEveryRung) {
  NEED_GPU(gpu_unavailable_reason());
  for (const char* scene : {"rand10k", "micro2M"}) {
    SCOPED_TRACE(scene);
    testing::internal::CaptureStdout();
    const int rc = cli({"ladder", scene, "-s", "160x96", "--repeat", "2", "--warmup", "1", "--json", path("l.json"),
                        "--plot", path("l.svg")});
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(rc, 0) << out;
    const nlohmann::json doc = nlohmann::json::parse(slurp(path("l.json")));
    EXPECT_EQ(doc["width"], 160);
    EXPECT_EQ(doc["height"], 96);
    const nlohmann::json& rungs = doc["rungs"];
    ASSERT_EQ(rungs.size(), renderer_ladder().size());
    for (std::size_t k = 0; k < rungs.size(); ++k) {
      const nlohmann::json& r = rungs[k];
      EXPECT_EQ(r["rung"], renderer_ladder()[k].name);
      EXPECT_TRUE(r["ok"].get<bool>()) << r;
      EXPECT_GT(r["median_ms"].get<double>(), 0.0) << r;
      EXPECT_EQ(r["frames"], 2) << r;
      if (r["mode"] == "exact") {
        EXPECT_EQ(r["bytes_differ"], 0) << r;
      }
      EXPECT_EQ(k == 0, r["speedup_over_base"].is_null()) << r;
      EXPECT_NE(out.find(r["rung"].get<std::string>()), std::string::npos);
    }
    // cuda-tile-binned counts its work: the rungs that bin have pairs; micro2M's tiny rung marks masks.
    auto rung = [&](const std::string& name) {
      for (const nlohmann::json& r : rungs)
        if (r["rung"] == name) return r;
      return nlohmann::json();
    };
    EXPECT_GT(rung("sorted")["work"]["pairs"].get<std::uint64_t>(), 0u) << rung("sorted");
    EXPECT_GT(rung("sorted")["work"]["blends"].get<std::uint64_t>(), 0u) << rung("sorted");
    EXPECT_NE(rung("sorted")["plan"].get<std::string>().find("sorted by tile"), std::string::npos) << rung("sorted");
    if (std::string(scene) == "micro2M") {
      EXPECT_NE(rung("tiny")["plan"].get<std::string>().find("tiny circles"), std::string::npos) << rung("tiny");
    }
    EXPECT_NE(slurp(path("l.svg")).find("<svg"), std::string::npos);
  }
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

// cpu-ref, counting the seeks and advances it is asked for.
class CountingRenderer : public Renderer {
 public:
  void load(const Scene& scene, int width, int height) override { inner_->load(scene, width, height); }
  void advance() override {
    ++advances;
    inner_->advance();
  }
  void seek(std::int64_t frame) override {
    ++seeks;
    inner_->seek(frame);
  }
  void render() override { inner_->render(); }
  void read_image(Image* out) override { inner_->read_image(out); }
  std::vector<StageTiming> timings(bool wait) const override { return inner_->timings(wait); }
  std::int64_t frame() const override { return inner_->frame(); }
  int seeks = 0, advances = 0;

 private:
  std::unique_ptr<Renderer> inner_ = make_renderer("cpu-ref");
};

// A still scene takes any frame number at once: the frame loop seeks once, straight to it, where
// an animation is stepped 64 frames a seek (and shown on the progress line); the far frame is the
// scene's first picture.
TEST_F(CliTest, StillScenesSeekToAnyFrameAtOnce) {
  const auto seeks_to = [](const char* name, std::int64_t frame) {
    CountingRenderer r;
    Progress progress("render " + std::string(name), 1);
    std::int64_t drawn = -1, at = -1;
    run_frames(r, make_builtin_scene(name), 16, 16, frame, frame + 1,
               [&](std::int64_t f) { drawn = f, at = r.frame(); }, &progress, "render");
    EXPECT_EQ(drawn, frame) << name;
    EXPECT_EQ(at, frame) << name;
    EXPECT_EQ(r.advances, 0) << name;
    return r.seeks;
  };
  EXPECT_EQ(seeks_to("rgb", 999999999999), 1);
  EXPECT_EQ(seeks_to("hypnosis", 200), 4);  // 64, 128, 192, 200: the count sees the steps
  ASSERT_EQ(cli({"render", "rgb", "-s", "16x16", "--frames", "999999999999", "-o", path("far.png")}), 0);
  ASSERT_EQ(cli({"render", "rgb", "-s", "16x16", "-o", path("first.png")}), 0);
  EXPECT_EQ(slurp(path("far.png")), slurp(path("first.png")));
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

// A good --scan name parses: with the GPU it renders, cpu-ref's picture (the exact default).
TEST_F(CliTest, ScanFlagRendersWithAGpu) {
  NEED_GPU(unavailable_reason(*find_renderer("cuda-tile-binned")));
  ASSERT_EQ(cli({"render", "rgb", "-r", "cuda-tile-binned", "--scan", "scan-lookback", "-s", "8x8", "-o",
                 path("b.png")}),
            0);
  ASSERT_EQ(cli({"render", "rgb", "-r", "cpu-ref", "-s", "8x8", "-o", path("ref.png")}), 0);
  EXPECT_EQ(slurp(path("b.png")), slurp(path("ref.png")));
}

// Without the GPU only the GPU is missing: the name is accepted, and the renderer is unavailable
// (a command-line mistake, exit 2), with the reason and nothing written.
TEST_F(CliTest, ScanFlagWithoutAGpuOnlyTheGpuIsMissing) {
  const std::string why = unavailable_reason(*find_renderer("cuda-tile-binned"));
  if (why.empty()) SKIP_EXPECTED("a GPU is here: ScanFlagRendersWithAGpu runs instead");
  ::testing::internal::CaptureStderr();
  const int rc = cli({"render", "rgb", "-r", "cuda-tile-binned", "--scan", "scan-lookback", "-s", "8x8", "-o",
                      path("b.png")});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2) << err;
  EXPECT_NE(err.find("renderer 'cuda-tile-binned' is unavailable: " + why), std::string::npos) << err;
  EXPECT_EQ(err.find("supports scans"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("b.png")));
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
  EXPECT_NE(err.find("--binned-rows takes 2, 4 or 8, not 3"), std::string::npos) << err;
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
