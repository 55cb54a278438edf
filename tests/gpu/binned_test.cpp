// cuda-tile-binned's binned frames against cpu-ref: chunks under a pair budget, the row groups'
// walks (each circle's alpha, every blend counted, boxes of rows on tall frames), half colour's
// bound, tiny circles, pair counts past 32 bits and a million circles in bounded memory. Without
// a GPU these tests skip; with CIRCLES_REQUIRE_GPU=1 set they fail instead.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu/gpu_test_util.h"
#include "render/compare.h"
#include "render/inspect.h"
#include "render/interrupt.h"
#include "test_util.h"

namespace circles {
namespace {

// cuda-tile-binned bins in chunks when a chunk's pairs exceed its budget: a budget of one pair
// (raised to the tile count, one circle's worst case) splits rand10k and snow into many chunks,
// in both modes, at every tile size and with CUB's scan (the default is the lab's); the pictures stay
// cpu-ref's (exact frames, snow's among them: its floats to the bit; early exit: one 8-bit step).
TEST(GpuRenderer, BinnedChunksAreExact) {
  const RendererInfo& info = *find_renderer("cuda-tile-binned");
  REQUIRE_RENDERER(info);
  std::vector<RendererSettings> settings;
  for (int tile : info.tile_sizes) settings.push_back({tile, 0});
  settings.push_back({0, 0, "scan-cub"});
  for (std::size_t k = 0, n = settings.size(); k < n; ++k) {
    RendererSettings e = settings[k];
    e.early_exit = true;
    settings.push_back(e);
  }
  // By counting, by CUB's sort, and by counting into the tiny-circle kernel (exact frames), with
  // a pair budget of one.
  for (const char* binning : {"binned", "sort", "tiny"}) {
  for (const char* name : {"rand10k", "snow"}) {
    const Scene& scene = cached_scene(name);
    for (RendererSettings s : settings) {
      s = forced(binning, s);
      s.binned.max_pairs = 1;
      const std::string knobs = describe_settings(info, s);
      auto gpu = make_renderer("cuda-tile-binned", s);
      ASSERT_TRUE(gpu->count_work(true));
      render_beside_cpu_ref(gpu.get(), scene, 257, 193, 3, [&](int f, const Image& a, const Image& b) {
        Workload w;
        ASSERT_TRUE(gpu->work(&w));
        EXPECT_GT(w.chunks, 2u) << name << " " << knobs << ": " << gpu->plan();
        // Early exit where the frame took it, by its bound; every frame that did not (snow's, which
        // do not settle; exact settings) is cpu-ref's floats to the bit.
        EXPECT_EQ(frame_broken(allowed_modes("cuda-tile-binned", scene, s), gpu->mode(), a, b), "")
            << name << " " << knobs << " frame " << f << ": " << gpu->plan();
        if (!s.early_exit || std::string(name) == "snow") {
          EXPECT_EQ(gpu->mode(), Mode::Exact) << gpu->plan();
        }
      });
    }
  }
  }
}

// An interrupt asked for stops a chunked frame between chunks (Interrupted); once cleared, the
// frame drawn again is cpu-ref's, exact and early exit.
TEST(GpuRenderer, BinnedChunksStopForAnInterruptAndDrawWholeAfter) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  const Scene& scene = cached_scene("rand10k");
  for (bool early : {false, true}) {
    RendererSettings s = forced("binned", {32, 0});  // binned in chunks: never the direct walk
    s.early_exit = early;
    s.binned.max_pairs = 1;
    auto gpu = make_renderer("cuda-tile-binned", s);
    ASSERT_TRUE(gpu->count_work(true));
    gpu->load(scene, 257, 193);
    request_interrupt();
    EXPECT_THROW(gpu->render(), Interrupted) << (early ? "early exit" : "exact");
    clear_interrupt();
    gpu->render();
    Workload w;
    ASSERT_TRUE(gpu->work(&w));
    EXPECT_GT(w.chunks, 2u) << gpu->plan();
    Image a, b;
    gpu->read_image(&a);
    auto ref = make_renderer("cpu-ref");
    ref->load(scene, 257, 193);
    ref->render();
    ref->read_image(&b);
    EXPECT_EQ(frame_broken(allowed_modes("cuda-tile-binned", scene, s), gpu->mode(), a, b), "")
        << (early ? "early exit" : "exact") << ": " << gpu->plan();
  }
}

// The row groups' walk of binned exact frames reads each circle's own keep factor and alpha
// (staged apart from its position and premultiplied colour): rand10k, whose circles all have
// alpha .5, as it is, with its alphas varied (0.2 .. 0.95), and with one circle's alpha a float's
// ulp off the rest, binned at tile 32 by counting and by sorting, frames 0-2 at a size that is not
// a tile multiple, each frame taking the row groups' walk: cpu-ref's pictures.
TEST(GpuRenderer, BinnedRowWalkTakesEachCirclesAlpha) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  const Scene& same = cached_scene("rand10k");
  Scene varied = same, nearly = same;
  for (std::size_t k = 0; k < varied.circles.size(); ++k)
    varied.circles.edit()[k].a = 0.2f + 0.75f * static_cast<float>(k % 13) / 12.f;
  nearly.circles.edit()[nearly.circles.size() / 2].a = std::nextafter(0.5f, 1.f);
  const std::pair<const Scene*, const char*> scenes[] = {
      {&same, "alpha .5"}, {&varied, "alphas varied"}, {&nearly, "one alpha an ulp off"}};
  for (const auto& scene_and_name : scenes) {
    const Scene* scene = scene_and_name.first;  // (not a structured binding: the lambda below uses both)
    const char* what = scene_and_name.second;
    for (const char* binning : {"binned", "sort"}) {
      auto gpu = make_renderer("cuda-tile-binned", forced(binning, {32, 0}));
      render_beside_cpu_ref(gpu.get(), *scene, 257, 193, 3, [&](int f, const Image& a, const Image& b) {
        const std::string plan = gpu->plan();
        EXPECT_NE(plan.find("eight pixels a lane"), std::string::npos) << plan;
        EXPECT_EQ(plan.find("composed"), std::string::npos) << plan;
        expect_exact_matches(a, b, std::string(binning) + " " + what + " frame " + std::to_string(f) + ": " + plan);
      });
    }
  }
}

// Binned exact frames of small flat circles take the eight-pixel walk; with --half-colour its
// colour is in half precision (rand1M at 257x193, about 300 circles a pixel, frames 0-1; in one
// chunk and in many): R, G and B within 2^-10 of cpu-ref's and not its floats (so the half walk
// ran), the alpha sums cpu-ref's; without it, cpu-ref's floats to the bit.
TEST(GpuRenderer, HalfColourStaysWithinItsBound) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  const Scene& scene = cached_scene("rand1M");
  for (const char* pairs : {"", "20000"}) {
    for (bool half : {true, false}) {
      RendererSettings settings{32, 0};
      settings.half_colour = half;
      settings.binned.max_pairs = std::strtoull(pairs, nullptr, 10);
      auto gpu = make_renderer("cuda-tile-binned", settings);
      render_beside_cpu_ref(gpu.get(), scene, 257, 193, 2, [&](int f, const Image& a, const Image& b) {
        const std::string plan = gpu->plan();
        const std::string what = std::string(half ? "half" : "default") + " pairs " + pairs + " frame " +
                                 std::to_string(f) + ": " + plan;
        EXPECT_EQ(plan.find(kHalfColourPlan) != std::string::npos, half) << what;
        if (*pairs) {
          EXPECT_EQ(plan.find(" 1 chunk,"), std::string::npos) << what;
        }
        EXPECT_EQ(promise_broken(half ? Mode::HalfColour : Mode::Exact, a, b), "") << what;
        const Comparison c = compare_images(a, b, 0.f);
        if (half) {
          for (int ch = 0; ch < 3; ++ch) EXPECT_GT(c.max_abs[ch], 0.f) << what;
          EXPECT_EQ(c.max_abs[3], 0.f) << what;
        }
      });
    }
  }
}

// The row groups' walk of binned frames (eight pixels a lane, two columns of a box) counts its
// work as it blends: on rand10k at 257x193 (not a tile multiple: partial boxes and lanes whose
// second column lies outside the image), binned at tile 32, the frame's blends are exactly the
// (circle, pixel) pairs that cpu-ref's coverage test covers, counted here on the CPU, and its
// picture is cpu-ref's.
TEST(GpuRenderer, BinnedRowWalkCountsEveryBlend) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  const Scene& scene = cached_scene("rand10k");
  const int w = 257, h = 193;
  const View v = make_view(w, h);
  std::uint64_t covered = 0;
  for (const Circle& c : scene.circles) {
    const float rr = c.radius * c.radius;
    const int i0 = std::max(0, static_cast<int>(std::floor((c.x - c.radius) * v.scale + v.off_x)) - 2);
    const int i1 = std::min(w - 1, static_cast<int>(std::ceil((c.x + c.radius) * v.scale + v.off_x)) + 2);
    const int j0 = std::max(0, static_cast<int>(std::floor((c.y - c.radius) * v.scale + v.off_y)) - 2);
    const int j1 = std::min(h - 1, static_cast<int>(std::ceil((c.y + c.radius) * v.scale + v.off_y)) + 2);
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i) covered += covers_point(v.pixel_x(i) - c.x, v.pixel_y(j) - c.y, rr);
  }
  const Image ref = test::render_frame("cpu-ref", scene, w, h, 0);
  auto gpu = make_renderer("cuda-tile-binned", forced("binned", {32, 0}));
  gpu->load(scene, w, h);
  gpu->count_work(true);
  gpu->render();
  const std::string plan = gpu->plan();
  EXPECT_NE(plan.find("eight pixels a lane"), std::string::npos) << plan;
  Workload work;
  ASSERT_TRUE(gpu->work(&work));
  EXPECT_GT(covered, 100000u);  // the scene overlaps: several circles a pixel
  EXPECT_EQ(work.blends, covered) << plan;
  EXPECT_GE(work.pixel_tests, work.blends);
  Image b;
  gpu->read_image(&b);
  expect_exact_matches(ref, b, plan);
}

// Exact frames of small circles cull per row group of 8 lanes against boxes of rows computed
// from the row spacing (kSubBoxes), not View's own centres: each box must still hold every centre
// of its rows. A frame 273 times taller than wide (15x4096: y runs to 136, where an ulp is 1.5e-5,
// more than the culling radius's slack; 15 pixels, so that 1 / scale is not exact) with circles
// of 2.5 pixels that reach a row group's first or last row from the next group, by a distance
// equal to the radius to within a rounding: each pixel is cpu-ref's (a circle culled from a row group it covers would leave a pixel half a blend
// off), direct and binned, and the frame takes the four-pixel walk without runs.
TEST(GpuRenderer, RowGroupBoxesHoldTheirRowsOnTallFrames) {
  REQUIRE_RENDERER(*find_renderer("cuda-tile-binned"));
  Scene scene = make_builtin_scene("rgb");  // flat, still, a white background
  scene.circles.clear();
  const int w = 15, h = 4096;
  const View v = make_view(w, h);
  int k = 0;
  for (int j = 0; j < h; ++j) {
    if (j % 4 != 0 && j % 4 != 3) continue;  // a row group's first and last rows
    Circle c;
    c.radius = (2.5f + 0.01f * static_cast<float>(k % 7)) / v.scale;
    c.x = v.pixel_x((j / 4) % w);
    // From below a first row, from above a last one: the centre a radius away, in y.
    c.y = j % 4 == 0 ? v.pixel_y(j) - c.radius : v.pixel_y(j) + c.radius;
    c.r = static_cast<float>(k % 5) / 5.f;
    c.g = static_cast<float>(k % 3) / 3.f;
    c.b = 1.f;
    c.a = .5f;
    scene.circles.push_back(c);
    ++k;
  }
  const Image ref = test::render_frame("cpu-ref", scene, w, h, 0);
  for (const char* strategy : {"direct", "binned"}) {
    auto gpu = make_renderer("cuda-tile-binned", forced(strategy, {32, 0}));
    gpu->load(scene, w, h);
    gpu->render();
    const std::string plan = gpu->plan();
    // Direct frames walk at four pixels a lane, binned ones at eight (shade_rows8_kernel).
    EXPECT_NE(plan.find(std::string(strategy) == "direct" ? "four pixels a lane" : "eight pixels a lane"),
              std::string::npos)
        << plan;
    EXPECT_EQ(plan.find("composed"), std::string::npos) << plan;
    Image b;
    gpu->read_image(&b);
    expect_exact_matches(ref, b, std::string(strategy) + ": " + plan);
  }
}

// The tiny-circle kernel's windows: each thread tests its circle only at the pixel centres
// within its radius plus a few roundings, so a covered centre just inside the radius must not
// fall outside the window. Circles centred on pixel centres, on pixel edges and between, with
// radii of whole, half and sqrt(2) pixels (centres exactly on the circle), some hanging off the
// image's edges, on a frame that is not square (off_x != 0) nor a tile multiple: cpu-ref's
// picture, to the FMA blend's rounding, in one binned frame and in chunks, at both tiles; and
// the frame takes the kernel by default (median radius under 2 pixels).
TEST(GpuRenderer, TinyCirclesCoverExactlyCpuRefsPixels) {
  const RendererInfo& info = *find_renderer("cuda-tile-binned");
  REQUIRE_RENDERER(info);
  Scene scene = make_builtin_scene("rgb");  // flat, still, a white background
  scene.circles.clear();
  const int w = 301, h = 203;
  const View v = make_view(w, h);
  const float radii[] = {0.5f, 1.f, 1.41421356f, 1.5f, 2.f, 0.999999f, 1.000001f};
  const float offsets[] = {0.f, 0.5f, 0.25f, 1e-6f, -1e-6f};
  int k = 0;
  for (int j = -2; j < h + 2; j += 3) {
    for (int i = -2; i < w + 2; i += 3, ++k) {
      Circle c;
      const float o = offsets[k % 5];
      c.x = v.pixel_x(i) + o / v.scale;
      c.y = v.pixel_y(j) + offsets[(k / 5) % 5] / v.scale;
      c.radius = radii[k % 7] / v.scale;
      c.r = static_cast<float>(k % 7) / 7.f;
      c.g = static_cast<float>(k % 11) / 11.f;
      c.b = static_cast<float>(k % 13) / 13.f;
      c.a = k % 3 == 0 ? .5f : .3f;
      scene.circles.push_back(c);
    }
  }
  // Thousands of pixels under several circles: a second layer shifted by a third of a pixel.
  const std::size_t first_layer = scene.circles.size();
  for (std::size_t q = 0; q < first_layer; q += 2) {
    Circle c = scene.circles[q];
    c.x += 1.f / (3.f * v.scale);
    c.y -= 1.f / (3.f * v.scale);
    scene.circles.push_back(c);
  }
  const Image ref = test::render_frame("cpu-ref", scene, w, h, 0);
  for (const char* pairs : {"", "64"}) {  // one chunk, then a chunk per few circles
    for (int tile : info.tile_sizes) {
      RendererSettings s = forced("binned", {tile, 0});  // (10k circles would be walked directly)
      s.binned.max_pairs = std::strtoull(pairs, nullptr, 10);
      auto gpu = make_renderer("cuda-tile-binned", s);
      gpu->load(scene, w, h);
      gpu->count_work(true);
      gpu->render();
      Image b;
      gpu->read_image(&b);
      const std::string plan = gpu->plan();
      EXPECT_NE(plan.find("tiny circles"), std::string::npos) << plan;
      expect_exact_matches(ref, b, "tile " + std::to_string(tile) + ": " + plan);
      Workload work;
      ASSERT_TRUE(gpu->work(&work));
      EXPECT_GT(work.chunks, *pairs ? 2u : 0u) << plan;
      EXPECT_GT(work.blends, 0u);
      EXPECT_GE(work.pixel_tests, work.blends);
    }
  }
}

// Pair counts past 32 bits: 2^18 circles that cover all 128x128 16-pixel tiles of a 2048x2048 frame, and a
// small one in the first tile, make 2^32 + 1 pairs. The 32-bit counts' scan would wrap; the count
// kernel's 64-bit total does not, and the frame is binned in chunks that fit the pair budget
// (2^26 pairs: 65 chunks). Every pixel lies under the same 2^18 circles, so cpu-ref's picture is
// one colour, walked once on the CPU (inspect_pixel: cpu-ref's blend, circle by circle), except
// where the last circle covers; the frame must be those floats to the bit (about 10^12 blends on
// the GPU, a second or so on an H100; cpu-ref's whole frame would take hours).
TEST(GpuRenderer, BinnedPairCountsPast32BitsAreChunked) {
  const RendererInfo& info = *find_renderer("cuda-tile-binned");
  REQUIRE_RENDERER(info);
  Scene scene = make_builtin_scene("rgb");  // flat, still, a white background
  scene.circles.clear();
  for (int k = 0; k < (1 << 18); ++k) {
    Circle c;
    c.x = c.y = .5f;
    c.radius = .75f;  // the corners are .71 away: every pixel, every tile
    c.r = static_cast<float>(k % 7) / 7.f;
    c.g = static_cast<float>(k % 11) / 11.f;
    c.b = static_cast<float>(k % 13) / 13.f;
    c.a = 1.f / 64;
    scene.circles.push_back(c);
  }
  Circle last;
  last.x = last.y = 1.f / 1024;  // pixel (2, 2), radius 2 pixels: one tile
  last.radius = 1.f / 1024;
  last.r = last.a = 1.f;
  scene.circles.push_back(last);
  auto r = make_renderer("cuda-tile-binned", {16, 0});  // 128x128 tiles
  Image binned;
  r->load(scene, 2048, 2048);
  r->count_work(true);
  r->render();
  r->read_image(&binned);
  Workload w;
  ASSERT_TRUE(r->work(&w));
  EXPECT_EQ(w.pairs, (1ull << 32) + 1);
  ASSERT_GE(w.pair_budget, 1ull << 26);  // 2^26, or up to 2^28 where half the free memory holds them
  EXPECT_LE(w.pair_budget, 1ull << 28);
  EXPECT_GE(w.chunks, (w.pairs + w.pair_budget - 1) / w.pair_budget) << r->plan();
  EXPECT_LE(r->device_memory_peak(), (3ull << 30) + 20 * (w.pair_budget - (1ull << 26)))
      << "the pair budget bounds the scratch";
  r.reset();
  const Float4 under = inspect_pixel(scene, 2048, 2048, 1024, 1024, 16, 0).final_colour;
  const View v = make_view(2048, 2048);
  std::int64_t wrong = 0, covered_last = 0;
  for (int j = 0; j < 2048; ++j) {
    for (int i = 0; i < 2048; ++i) {
      Float4 want = under;
      if (covers_point(v.pixel_x(i) - last.x, v.pixel_y(j) - last.y, last.radius * last.radius)) {
        want = inspect_pixel(scene, 2048, 2048, i, j, 16, 0).final_colour;
        ++covered_last;
      }
      const Float4 got = binned.at(i, j);
      if (std::memcmp(&got, &want, sizeof got) != 0 && wrong++ < 5)
        ADD_FAILURE() << "pixel " << i << "," << j << ": " << got.x << " " << got.y << " " << got.z << " " << got.w
                      << " where cpu-ref has " << want.x << " " << want.y << " " << want.z << " " << want.w;
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(covered_last, 4);
  const Float4 p = binned.at(2, 2);  // the last circle, opaque red, over everything
  EXPECT_TRUE(p.x == 1.f && p.y == 0.f && p.z == 0.f) << p.x << " " << p.y << " " << p.z;
}

// A million circles of radius .25 at 1024x1024: about 290M circle-tile pairs, far past the pair
// budget, render in chunks within bounded scratch memory, in both modes; 1,100 pixels (a row, a
// column, the corners and a scatter) are cpu-ref's, by the CPU walk over every circle (the
// inspector's: cpu-ref's blend), to the bit in exact mode and within an 8-bit step in early exit.
TEST(GpuRenderer, BinnedRendersAMillionQuarterRadiusCirclesInBoundedMemory) {
  const RendererInfo& info = *find_renderer("cuda-tile-binned");
  REQUIRE_RENDERER(info);
  Scene scene = make_builtin_scene("rgb");  // flat, still, a white background
  scene.circles.clear();
  std::uint32_t state = 12345;
  auto next = [&state] {  // a small LCG: the test needs no particular distribution
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.f;
  };
  for (int k = 0; k < 1000000; ++k) {
    Circle c;
    c.x = next();
    c.y = next();
    c.radius = .25f;
    c.r = next();
    c.g = next();
    c.b = next();
    c.a = .05f + .5f * next();
    scene.circles.push_back(c);
  }
  for (bool early : {false, true}) {
    RendererSettings s;
    s.early_exit = early;
    auto r = make_renderer("cuda-tile-binned", s);
    r->load(scene, 1024, 1024);
    r->count_work(true);
    r->render();
    Workload w;
    ASSERT_TRUE(r->work(&w));
    SCOPED_TRACE(r->plan());
    // The budget is 2^26 pairs, or up to 2^28 where half the GPU's free memory holds them; the
    // scratch grows by ~20 bytes a pair of budget.
    EXPECT_GE(w.pair_budget, 1ull << 26);
    EXPECT_LE(w.pair_budget, 1ull << 28);
    if (!early) {
      EXPECT_GT(w.pairs, 1ull << 27);
      EXPECT_GE(w.chunks, (w.pairs + w.pair_budget - 1) / w.pair_budget);
    }
    EXPECT_LE(r->device_memory_peak(), (2ull << 30) + 20 * (w.pair_budget - (1ull << 26)))
        << "the pair budget bounds the scratch";
    Image img;
    r->read_image(&img);
    std::vector<std::pair<int, int>> pixels = {{0, 0}, {1023, 0}, {0, 1023}, {1023, 1023}};
    for (int k = 0; k < 1024; k += 2) pixels.push_back({k, 517}), pixels.push_back({333, k});
    for (int k = 0; k < 64; ++k) pixels.push_back({(k * 397) % 1024, (k * 613 + 11) % 1024});
    int wrong = 0;
    for (const auto& [i, j] : pixels) {
      const PixelReport rep = inspect_pixel(scene, 1024, 1024, i, j, 32, 0);
      const Float4 p = img.at(i, j), q = rep.final_colour;
      bool ok = true;
      if (early) {
        for (auto [x, y] : {std::pair{p.x, q.x}, {p.y, q.y}, {p.z, q.z}, {p.w, q.w}})
          ok = ok && std::abs(int(to_byte(x)) - int(to_byte(y))) <= 1;
      } else {
        ok = std::memcmp(&p, &q, sizeof p) == 0;
      }
      if (!ok && wrong++ < 5)
        ADD_FAILURE() << (early ? "early exit" : "exact") << " pixel " << i << "," << j << " under " << rep.covering
                      << " circles: " << p.x << " " << p.y << " " << p.z << " " << p.w << " where cpu-ref has " << q.x
                      << " " << q.y << " " << q.z << " " << q.w;
    }
    EXPECT_EQ(wrong, 0);
  }
}

}  // namespace
}  // namespace circles
