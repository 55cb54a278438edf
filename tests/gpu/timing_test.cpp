// What the GPU renderers report beside their pictures: a load refused beyond the GPU's memory,
// the pixel inspector's walk, the heat map's counts, tile cycles (chunked frames too), and frames
// timed whole or stage by stage. Without a GPU these tests skip; with CIRCLES_REQUIRE_GPU=1 set
// they fail instead.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <optional>

#include "gpu/gpu_test_util.h"
#include "render/cpu_renderers.h"
#include "render/inspect.h"
#include "scoped_env.h"
#include "test_util.h"

namespace circles {
namespace {

// A load that cannot fit in the GPU's memory is refused before anything is allocated, with what
// it needs and what is free (the limit stands in for a smaller GPU); within the limit it loads.
TEST(GpuRenderer, LoadBeyondGpuMemoryIsRefusedClearly) {
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    const Scene& scene = cached_scene("rand10k");
    std::optional<test::ScopedEnv> limit;
    limit.emplace("CIRCLES_GPU_MEMORY_LIMIT_MB", "32");
    auto r = make_renderer(name);
    try {
      r->load(scene, 2048, 2048);  // the float image alone is 64 MiB
      ADD_FAILURE() << name << ": a 2048x2048 load fitted in 32 MiB";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("2048x2048 with 10000 circles needs about"), std::string::npos) << what;
      EXPECT_NE(what.find(" MiB of GPU memory"), std::string::npos) << what;  // not "0.06 GiB"
      EXPECT_NE(what.find("; the GPU has 32 MiB free (CIRCLES_GPU_MEMORY_LIMIT_MB=32)"), std::string::npos) << what;
    }
    EXPECT_NO_THROW(r->load(scene, 257, 193)) << name;  // about 3 MiB
    limit.reset();
    r->render();
    Image img;
    r->read_image(&img);
    EXPECT_EQ(img.width, 257);
  }
}

// The pixel inspector against every GPU renderer: one pixel read back is the image's pixel, and
// the CPU walk over the scene (cpu-ref's blend, circle by circle) ends at that colour to the bit,
// on a flat and a shaded animated scene.
TEST(GpuRenderer, InspectorWalkMatchesEveryRendererPixel) {
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    for (const char* scene_name : {"rand10k", "snow"}) {
      SCOPED_TRACE(name + " " + scene_name);
      Scene scene = cached_scene(scene_name);
      auto r = make_renderer(name);
      Image img;
      run_frames(*r, scene, 257, 193, scene.frame, scene.frame + 3, [&](std::int64_t) {});
      r->read_image(&img);
      advance_scene(&scene, 2);
      for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {256, 192}, {128, 96}, {17, 150}, {200, 3}}) {
        const Float4 p = r->read_pixel(i, j), q = img.at(i, j);
        EXPECT_TRUE(p.x == q.x && p.y == q.y && p.z == q.z && p.w == q.w) << "pixel " << i << "," << j;
        // The walk ends at cpu-ref's colour, and every renderer's default frame is cpu-ref's: the
        // same floats, to the bit.
        const PixelReport rep = inspect_pixel(scene, 257, 193, i, j, 16);
        EXPECT_EQ(std::memcmp(&rep.final_colour, &p, sizeof p), 0)
            << "pixel " << i << "," << j << " after " << rep.covering << " circles: the walk ends at "
            << rep.final_colour.x << " " << rep.final_colour.y << " " << rep.final_colour.z << " " << rep.final_colour.w
            << ", the renderer has " << p.x << " " << p.y << " " << p.z << " " << p.w;
      }
    }
  }
}

// The heat map's counts against the inspector's CPU walk (the same conservative tile test, the
// same coverage test as the blends): circles per 16x16 tile and circles covering each pixel, on
// every pixel of a row and a column and a few corners; and the shade cycles of the tile renderers,
// one positive count per tile once timing is on.
TEST(GpuRenderer, HeatCountsMatchTheCpuWalkAndTilesAreTimed) {
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    for (const char* scene_name : {"rand10k", "snow"}) {
      SCOPED_TRACE(name + " " + scene_name);
      Scene scene = cached_scene(scene_name);
      auto r = make_renderer(name);
      run_frames(*r, scene, 257, 193, scene.frame, scene.frame + 3, [&](std::int64_t) {});
      advance_scene(&scene, 2);
      Renderer::HeatCounts heat;
      ASSERT_TRUE(r->heat_counts(16, &heat));
      ASSERT_EQ(heat.tiles_x, 17);
      ASSERT_EQ(heat.tiles_y, 13);
      std::vector<std::pair<int, int>> pixels = {{0, 0}, {256, 192}, {17, 150}, {200, 3}};
      for (int i = 0; i < 257; i += 3) pixels.push_back({i, 96});
      for (int j = 0; j < 193; j += 3) pixels.push_back({128, j});
      std::size_t most = 0;
      for (const auto& [i, j] : pixels) {
        const PixelReport rep = inspect_pixel(scene, 257, 193, i, j, 16, 0);
        EXPECT_EQ(static_cast<std::size_t>(heat.blends_per_pixel[static_cast<std::size_t>(j) * 257 + i]), rep.covering)
            << "pixel " << i << "," << j;
        EXPECT_EQ(static_cast<std::size_t>(heat.circles_per_tile[static_cast<std::size_t>(j / 16) * 17 + i / 16]),
                  rep.tile_circles)
            << "tile of pixel " << i << "," << j;
        most = std::max(most, rep.covering);
      }
      EXPECT_GT(most, 3u);  // the scene really overlaps there
      const bool timed = r->time_tiles(true);
      EXPECT_EQ(timed, name != "cuda-naive");  // only the tile renderers have tiles to time
      r->render();
      int tile = 0, tx = 0, ty = 0;
      const std::vector<double> cycles = r->tile_cycles(&tile, &tx, &ty);
      if (!timed) continue;
      ASSERT_EQ(cycles.size(), static_cast<std::size_t>(tx) * ty);
      EXPECT_EQ(tx, (257 + tile - 1) / tile);
      for (double c : cycles) EXPECT_GT(c, 0.0);
      // Each frame starts from zero: after six more frames of the same picture the map holds one
      // frame's cycles, not seven frames' sum. (A count of frames, not a speed: the bound, 3.5
      // times the first frame's, sits halfway between one frame's and seven frames'.)
      for (int k = 0; k < 6; ++k) r->render();
      const std::vector<double> again = r->tile_cycles(&tile, &tx, &ty);
      ASSERT_EQ(again.size(), cycles.size());
      const double first_sum = std::accumulate(cycles.begin(), cycles.end(), 0.0);
      const double again_sum = std::accumulate(again.begin(), again.end(), 0.0);
      EXPECT_LT(again_sum, 3.5 * first_sum) << name;
      // Without a wait (the viewer's heat map): the newest finished copy, or nothing yet; never a
      // partial map. After frames with no read between them, the one in flight is the only copy.
      for (int k = 0; k < 3; ++k) r->render();
      const std::vector<double> polled = r->tile_cycles(&tile, &tx, &ty, false);
      EXPECT_TRUE(polled.empty() || polled.size() == cycles.size()) << name;
      const std::vector<double> waited = r->tile_cycles(&tile, &tx, &ty, true);
      ASSERT_EQ(waited.size(), cycles.size()) << name;
      for (double c : waited) EXPECT_GT(c, 0.0);
      r->time_tiles(false);
    }
  }
}

// A frame shaded in chunks shows each tile's time summed over its chunks' shade launches, not
// the last chunk's: with a one-pair budget, snow at 300x200 takes hundreds of chunks, and each
// launch costs a block at least its prologue, so the sums far exceed a one-chunk frame's.
TEST(GpuRenderer, ChunkedFramesTimeEveryChunk) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  auto total_cycles = [](bool chunked, std::uint64_t* chunks) {
    RendererSettings s = forced("binned");
    s.binned.max_pairs = chunked ? 1 : 0;
    std::unique_ptr<Renderer> r = make_renderer("cuda-tile-binned", s);
    r->load(cached_scene("snow"), 300, 200);
    EXPECT_TRUE(r->time_tiles(true));
    r->count_work(true);
    r->render();
    Workload w;
    EXPECT_TRUE(r->work(&w));
    *chunks = w.chunks;
    int tile = 0, tx = 0, ty = 0;
    const std::vector<double> cycles = r->tile_cycles(&tile, &tx, &ty);
    EXPECT_EQ(cycles.size(), static_cast<std::size_t>(tx) * ty);
    return std::accumulate(cycles.begin(), cycles.end(), 0.0);
  };
  std::uint64_t one = 0, many = 0;
  const double single = total_cycles(false, &one), chunked = total_cycles(true, &many);
  EXPECT_EQ(one, 1u);
  EXPECT_GT(many, 100u);
  EXPECT_GT(chunked, 2.0 * single) << many << " chunks";
}

// A GPU frame is timed whole by default (one entry, "frame": its kernels follow one another
// with no event between them, the scatter and shade launched dependent) or stage by stage when
// asked (the viewer, the benchmark's stage frames): both draw the same picture, cpu-ref's, on
// every path (direct; binned by counting, waiting for the count and going ahead of it; sorted;
// early exit; the tiny-circle kernel), and the stages are the frame's own. CPU renderers always
// time their stages.
TEST(GpuRenderer, FramesTimedWholeOrByStageDrawTheSame) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  struct Case {
    std::string scene, forced;
    int tile;
    bool early;
    std::vector<std::string> stages;  // in a frame timed by stage (the second frame)
  };
  const std::vector<Case> cases = {
      {"pattern", "", 32, false, {"clear+shade"}},
      {"rand1M", "", 32, false, {"count", "scan", "scatter", "clear+shade"}},
      {"rand1M", "sort", 16, false, {"count", "scan", "duplicate", "sort", "ranges", "clear+shade"}},
      {"rand1M", "", 32, true, {"count", "scan", "scatter", "clear+shade"}},
      {"micro2M", "", 32, false, {"count", "scan", "scatter", "clear+shade"}},
  };
  for (const Case& c : cases) {
    const std::string what = c.scene + " /" + std::to_string(c.tile) + (c.early ? " early exit" : "");
    const Image ref = reference_frames(c.scene, {777, 555}, {0}).front();
    Image img[2];
    for (int staged = 0; staged < 2; ++staged) {
      RendererSettings s = forced(c.forced, {c.tile, 0});
      s.early_exit = c.early;
      auto r = make_renderer("cuda-tile-binned", s);
      EXPECT_TRUE(r->time_stages(staged == 1));
      r->load(cached_scene(c.scene), 777, 555);
      for (int frame = 0; frame < 2; ++frame) {  // the second goes ahead of its count where it bins by counting
        r->render();
        const std::vector<StageTiming> t = r->timings();
        std::vector<std::string> names;
        for (const StageTiming& st : t) {
          names.push_back(st.stage);
          EXPECT_GT(st.ms, 0.0) << what << ": " << st.stage;
        }
        if (staged == 0) {
          EXPECT_EQ(names, std::vector<std::string>{"frame"}) << what;
        } else if (frame == 1) {
          EXPECT_EQ(names, c.stages) << what << ": " << r->plan();
        }
      }
      r->read_image(&img[staged]);
      EXPECT_EQ(frame_broken(allowed_modes("cuda-tile-binned", cached_scene(c.scene), s), r->mode(), ref, img[staged]),
                "")
          << what << (staged ? " by stage: " : " whole: ") << r->plan();
      EXPECT_EQ(r->mode(), c.early ? Mode::EarlyExit : Mode::Exact) << what << ": " << r->plan();
    }
    ASSERT_EQ(img[0].pixels.size(), img[1].pixels.size());
    EXPECT_EQ(0, std::memcmp(img[0].pixels.data(), img[1].pixels.data(), img[0].pixels.size() * sizeof(Float4)))
        << what;
  }
  auto cpu = make_renderer("cpu-mt");
  EXPECT_FALSE(cpu->time_stages(false));
}

}  // namespace
}  // namespace circles
