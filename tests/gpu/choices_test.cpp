// cuda-tile-binned's choices and what they promise: early exit where it pays and exact frames
// where it would not, binning by counting where it fits, chunks that go ahead of their count
// (checked on the device, done again when they did not fit), and animation steps fused into the
// frame's kernels. Without a GPU these tests skip; with CIRCLES_REQUIRE_GPU=1 set they fail
// instead.
#include <gtest/gtest.h>

#include "gpu/gpu_test_util.h"
#include "test_util.h"

namespace circles {
namespace {

// Early exit on a scene where it pays: the last circles settle most tiles, so most circles are
// never binned, and the 8-bit picture still matches cpu-ref's within one step.
TEST(GpuRenderer, EarlyExitSkipsCirclesUnderSettledTiles) {
  const RendererInfo& info = *find_renderer("cuda-tile-binned");
  REQUIRE_RENDERER(info);
  RendererSettings s;
  s.early_exit = true;
  const Scene& scene = cached_scene("rand1M");
  auto r = make_renderer("cuda-tile-binned", s);
  r->load(scene, 512, 512);
  r->count_work(true);
  r->render();
  Workload w;
  ASSERT_TRUE(r->work(&w));
  EXPECT_LT(w.circles_binned, w.circles / 2) << r->plan();
  Image b;
  r->read_image(&b);
  const Image a = test::render_frame("cpu-ref", scene, 512, 512, 0);
  EXPECT_EQ(r->mode(), Mode::EarlyExit) << r->plan();
  EXPECT_EQ(frame_broken(allowed_modes("cuda-tile-binned", scene, s), r->mode(), a, b), "") << r->plan();
  // The same frame exact: every circle binned, many more blends.
  auto exact = make_renderer("cuda-tile-binned");
  exact->load(scene, 512, 512);
  exact->count_work(true);
  exact->render();
  Workload we;
  ASSERT_TRUE(exact->work(&we));
  EXPECT_EQ(we.circles_binned, we.circles);
  EXPECT_GT(we.blends, 4 * w.blends);
  // Where tiles would not settle (snow's fading flakes), early exit draws the frame exactly and
  // says so: it reports exact, and its floats are cpu-ref's to the bit.
  auto snow = make_renderer("cuda-tile-binned", s);
  snow->load(cached_scene("snow"), 300, 200);
  snow->render();
  EXPECT_NE(snow->plan().find("early exit not taken (snow shading"), std::string::npos) << snow->plan();
  EXPECT_EQ(snow->mode(), Mode::Exact) << snow->plan();
  Image sb;
  snow->read_image(&sb);
  expect_exact_matches(reference_frames("snow", {300, 200}, {0}).front(), sb, "snow, early exit asked: " + snow->plan());
}

// Early exit on shallow scenes (a pixel under fewer than 16 circles on average) draws exact
// frames, says so, and still keeps its promise; deep ones take it.
TEST(GpuRenderer, EarlyExitDrawsShallowScenesExact) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  RendererSettings s;
  s.early_exit = true;
  for (const std::string name : {"pattern", "hypnosis", "rgb"}) {
    auto r = make_renderer("cuda-tile-binned", s);
    r->load(cached_scene(name), 300, 200);
    r->render();
    EXPECT_NE(r->plan().find("early exit not taken (a pixel lies under"), std::string::npos) << name << ": " << r->plan();
    // Not taken: drawn exact, reported exact, cpu-ref's floats to the bit.
    EXPECT_EQ(r->mode(), Mode::Exact) << name << ": " << r->plan();
    Image b;
    r->read_image(&b);
    expect_exact_matches(reference_frames(name, {300, 200}, {0}).front(), b, name + ": " + r->plan());
  }
  auto deep = make_renderer("cuda-tile-binned", s);
  deep->load(cached_scene("rand10k"), 300, 200);
  deep->render();
  EXPECT_EQ(deep->plan().find("early exit not taken"), std::string::npos) << deep->plan();
}

// Binned frames bin by counting where the matrix of tiles x blocks of circles fits, and say so;
// the sort where it does not (tile 16 at 1024x1024: 4096 tiles x 1954 blocks of rand1M), and
// for a chunk whose worst block of circles has more pairs than the scatter takes (blocks of
// 1024 rand10k circles, about 10 tiles each at tile 16). Every picture is cpu-ref's.
TEST(GpuRenderer, BinningByCountingWhereItFits) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  struct Case {
    std::string scene, forced;
    int tile, size;
    std::string plan;
  };
  const std::vector<Case> cases = {
      // micro2M's blocks of 1,024 circles have about 1,100 pairs: the scatter's smaller sort.
      {"rand1M", "", 32, 1024, "binned by counting (blocks of "},
      {"micro2M", "", 32, 1024, "binned by counting (blocks of 1024 circles, a block's pairs sorted in 1280 slots)"},
      {"rand1M", "", 16, 1024, "sorted by tile (CUB radix sort)"},
      {"rand1M", "sort", 32, 300, "sorted by tile (CUB radix sort)"},
      {"rand10k", "block1024", 16, 1024, "a block of 1024 circles had "},
  };
  for (const Case& c : cases) {
    auto r = make_renderer("cuda-tile-binned", forced(c.forced, {c.tile, 0}));
    r->load(cached_scene(c.scene), c.size, c.size);
    r->render();
    EXPECT_NE(r->plan().find(c.plan), std::string::npos) << c.scene << " /" << c.tile << ": " << r->plan();
    Image b;
    r->read_image(&b);
    expect_exact_matches(reference_frames(c.scene, {c.size, c.size}, {0}).front(), b,
                         c.scene + " /" + std::to_string(c.tile) + ": " + r->plan());
  }
}

// A binned frame's first chunk goes ahead of its count (scan, scatter and shade queued without
// the host reading the pair total) once earlier frames have sized the buffers; the scatter
// checks the count on the device and the host redoes the chunk when it did not fit. Loading a
// scene with many more pairs into a renderer sized by a smaller one makes the first frame's
// chunk not fit; that frame and the next (which goes ahead) are cpu-ref's, in both modes.
TEST(GpuRenderer, ChunksAheadOfTheirCountAreCheckedOnTheDevice) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  for (bool early : {false, true}) {
    RendererSettings s = forced("binned");
    s.early_exit = early;
    auto r = make_renderer("cuda-tile-binned", s);
    r->load(cached_scene("rand10k"), 300, 200);
    r->render();
    r->render();
    EXPECT_NE(r->plan().find("without waiting for its count"), std::string::npos) << r->plan();
    r->load(cached_scene("rand1M"), 300, 200);
    const Image ref = reference_frames("rand1M", {300, 200}, {0}).front();
    for (int frame = 0; frame < 2; ++frame) {
      r->render();
      const std::string plan = r->plan();
      // The first frame's chunk did not fit and was done again, waiting; the second went ahead.
      EXPECT_EQ(plan.find("without waiting for its count") != std::string::npos, frame == 1) << frame << ": " << plan;
      Image b;
      r->read_image(&b);
      // Early exit where the frame took it (rand1M allows it), exact otherwise, by the mode's check.
      EXPECT_EQ(frame_broken(allowed_modes("cuda-tile-binned", cached_scene("rand1M"), s), r->mode(), ref, b), "")
          << frame << ": " << plan;
      if (!early) {
        EXPECT_EQ(r->mode(), Mode::Exact) << plan;
      }
    }
  }
}

// A chunk that goes ahead of its count with the scatter's smaller sort (1,280 pairs a block,
// forced by BinnedChoices::few_scatter) where its blocks have more (rand1M at 1024x1024 from its
// second frame on: blocks of 512 circles, about 1,400 pairs) bins nothing; the host sees the
// worst block and does the chunk again, waiting, with the full sort. The picture is cpu-ref's.
TEST(GpuRenderer, ChunksAheadWithTooSmallASortAreDoneAgain) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  auto r = make_renderer("cuda-tile-binned", {32, 0});
  r->load(cached_scene("rand1M"), 1024, 1024);
  r->render();  // waits for its count, in blocks sized by the circles' bounding boxes
  r->render();  // goes ahead, in blocks sized by the first frame's worst
  ASSERT_NE(r->plan().find("a block's pairs sorted in 2048 slots); the first chunk shaded without waiting"),
            std::string::npos)
      << r->plan();
  RendererSettings few{32, 0};
  few.binned.few_scatter = true;
  std::unique_ptr<Renderer> forced_few = make_renderer("cuda-tile-binned", few);
  forced_few->load(cached_scene("rand1M"), 1024, 1024);
  const Image ref = reference_frames("rand1M", {1024, 1024}, {0}).front();
  for (int frame = 0; frame < 2; ++frame) {
    forced_few->render();
    const std::string plan = forced_few->plan();
    // Neither frame's chunk went ahead: the first waits anyway, the second did not fit.
    EXPECT_EQ(plan.find("without waiting for its count"), std::string::npos) << frame << ": " << plan;
    if (frame == 1) {
      EXPECT_NE(plan.find("a block's pairs sorted in 2048 slots"), std::string::npos) << plan;
    }
    Image b;
    forced_few->read_image(&b);
    expect_exact_matches(ref, b, std::to_string(frame) + ": " + plan);
  }
}

// cuda-tile-binned does each frame's animation step inside the frame's own kernels (the direct
// shade kernel, or the first count of a binned frame) instead of a kernel of its own. Each
// circle must move exactly once a frame however advance(), render() and the heat map's counts
// are interleaved: a render without an advance moves nothing, several advances before a render
// move several frames, and where the step cannot be fused (chunked frames, early exit) it runs
// on its own. Every image is cpu-ref's at the same frame.
TEST(GpuRenderer, FusedAnimationStepsMoveEachCircleOncePerFrame) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  struct Case {
    std::string scene, strategy, fused;  // fused: the plan's words, "" when the step runs alone
    bool early;
  };
  const std::vector<Case> cases = {
      {"hypnosis", "", "the animation step done in the shade kernel", false},
      {"fireworks", "", "the animation step done in the shade kernel", false},
      {"bouncingballs", "", "the animation step done in the shade kernel", false},
      {"snow", "binned", "the animation step done in the first count", false},  // direct at this size
      {"fireworks", "binned", "the animation step done in the first count", false},
      {"fireworks", "direct", "", true},  // early exit (forced on): its own kernel
      {"snow", "direct", "", false},      // snow's step stays out of the shade kernel
  };
  const int w = 257, h = 193;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.scene + " " + c.strategy + (c.early ? " early" : ""));
    RendererSettings s = forced(c.strategy);
    s.early_exit = c.early;
    s.binned.force_early = c.early;
    const Scene& scene = cached_scene(c.scene);
    auto gpu = make_renderer("cuda-tile-binned", s);
    auto ref = make_renderer("cpu-ref");
    gpu->load(scene, w, h);
    ref->load(scene, w, h);
    Image a, b;
    auto expect_same = [&](const std::string& when) {
      ref->render();
      ref->read_image(&a);
      gpu->read_image(&b);
      ASSERT_EQ(gpu->frame(), ref->frame()) << when;
      // Early exit (forced on fireworks, which allows it) by its bound, every other frame exact.
      EXPECT_EQ(frame_broken(allowed_modes("cuda-tile-binned", scene, s), gpu->mode(), a, b), "")
          << when << " (" << gpu->plan() << ")";
      if (!c.early) {
        EXPECT_EQ(gpu->mode(), Mode::Exact) << when << " (" << gpu->plan() << ")";
      }
    };
    // advance + render, frame by frame; a second render of the same frame moves nothing.
    for (int k = 0; k < 3; ++k) {
      gpu->advance();
      ref->advance();
      gpu->render();
      if (c.fused.empty()) EXPECT_EQ(gpu->plan().find("the animation step done"), std::string::npos) << gpu->plan();
      else EXPECT_NE(gpu->plan().find(c.fused), std::string::npos) << gpu->plan();
      expect_same("frame " + std::to_string(gpu->frame()));
      gpu->render();
      expect_same("frame " + std::to_string(gpu->frame()) + " drawn again");
    }
    // Three advances, then the heat map's counts (which need the circles where they are now),
    // then a render.
    for (int k = 0; k < 3; ++k) {
      gpu->advance();
      ref->advance();
    }
    Renderer::HeatCounts heat;
    ASSERT_TRUE(gpu->heat_counts(16, &heat));
    gpu->render();
    expect_same("three advances, heat counts, render: frame " + std::to_string(gpu->frame()));
    // A seek far ahead.
    gpu->seek(gpu->frame() + 40);
    ref->seek(ref->frame() + 40);
    gpu->render();
    expect_same("after a seek: frame " + std::to_string(gpu->frame()));
  }
  // Chunked exact frames (a pair budget of one tile's worth) cannot fuse the step into a count
  // that walks only part of the circles: it runs alone, and the frames stay exact.
  {
    RendererSettings s = forced("binned");
    s.binned.max_pairs = 1;
    auto gpu = make_renderer("cuda-tile-binned", s);
    gpu->load(cached_scene("snow"), w, h);
    Image a, b;
    for (int k = 0; k < 3; ++k) {
      gpu->advance();
      gpu->render();
    }
    EXPECT_EQ(gpu->plan().find("the animation step done"), std::string::npos) << gpu->plan();
    gpu->read_image(&b);
    a = test::render_frame("cpu-ref", cached_scene("snow"), w, h, gpu->frame());
    expect_exact_matches(a, b, "snow, steps deferred");
  }
}

}  // namespace
}  // namespace circles
