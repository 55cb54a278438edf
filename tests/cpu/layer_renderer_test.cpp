// Layers of circle ranges (render/layer_renderer.h) against cpu-ref: T, C and S on a hand-computed
// pair of circles; the bottom layer of all circles is cpu-ref's image to the bit (one thread and
// many); ranges of built-in and random valid scenes (tests/random_scene.h), still and animated,
// composited in order, keep docs/SCALE.md's float bound on every pixel and, where it promises it,
// every 8-bit channel within 1 of cpu-ref's (one range: cpu-ref's floats); one layer of all the
// circles composited over the background keeps the float bound too; a range of a mapped .npz scene
// is a view of the mapping, no circle copied.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/mpi_split.h"
#include "random_scene.h"
#include "render/animate.h"
#include "render/builtin_scenes.h"
#include "render/cpu_renderers.h"
#include "render/layer_renderer.h"
#include "render/raster.h"
#include "render/scene_io.h"
#include "render/scene_npz.h"
#include "test_util.h"

namespace circles {
namespace {

constexpr double kU = 1.0 / 16777216.0;  // unit roundoff, 2^-24

// `scene` split into `ranges` contiguous ranges (block_of, as the ranks take them), each drawn to a
// layer at `frame` (the first the bottom one).
std::vector<std::unique_ptr<LayerRenderer>> draw_layers(const Scene& scene, int w, int h, std::int64_t frame,
                                                        int ranges, unsigned threads) {
  std::vector<std::unique_ptr<LayerRenderer>> layers;
  const std::int64_t n = static_cast<std::int64_t>(scene.circles.size());
  for (int r = 0; r < ranges; ++r) {
    const Block b = block_of(0, n, r, ranges);
    auto layer = std::make_unique<LayerRenderer>(threads, r == 0);
    layer->load(take_circle_range(scene, b.begin, b.end), w, h);
    layer->seek(frame);
    layer->render();
    layers.push_back(std::move(layer));
  }
  return layers;
}

Image composite(const std::vector<std::unique_ptr<LayerRenderer>>& layers) {
  std::vector<const LayerRenderer*> ptrs;
  for (const auto& l : layers) ptrs.push_back(l.get());
  return composite_layers(ptrs);
}

// Per pixel, at the scene's frame: d, the circles that cover it (blend_circle's test), and m, the
// ranges after the first that hold one of them.
struct Depths {
  std::vector<int> d, m;
};
Depths depths(const Scene& scene, int w, int h, int ranges) {
  const View v = make_view(w, h);
  Depths out{std::vector<int>(static_cast<std::size_t>(w) * h), std::vector<int>(static_cast<std::size_t>(w) * h)};
  std::vector<int> last(out.d.size(), -1);
  const std::int64_t n = static_cast<std::int64_t>(scene.circles.size());
  for (int r = 0; r < ranges; ++r) {
    const Block b = block_of(0, n, r, ranges);
    for (std::int64_t k = b.begin; k < b.end; ++k) {
      const Circle& c = scene.circles[k];
      int i0, i1, j0, j1;
      pixel_span(c.x, c.radius, v.scale, v.off_x, w, &i0, &i1);
      pixel_span(c.y, c.radius, v.scale, v.off_y, h, &j0, &j1);
      for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
          Float4 dummy;
          if (!blend_circle(scene.shading, v.pixel_x(i), v.pixel_y(j), c.x, c.y, c.z, c.radius, c.r, c.g, c.b, c.a,
                            &dummy))
            continue;
          const std::size_t p = static_cast<std::size_t>(j) * w + i;
          ++out.d[p];
          if (r > 0 && last[p] != r) ++out.m[p], last[p] = r;
        }
    }
  }
  return out;
}

// The least power of two at or above every colour channel of the scene and 1 (docs/SCALE.md's W).
double colour_scale(const Scene& scene) {
  float most = 1.f;
  for (const Circle& c : scene.circles) most = std::max({most, c.r, c.g, c.b});
  return std::exp2(std::ceil(std::log2(static_cast<double>(most))));
}

// docs/SCALE.md's bounds on |layered - cpu-ref| at a pixel of depth d with m ranges after the first.
double colour_bound(int d, int m, double w) { return w * ((1.5 * d + m) * kU + 0.5 * d * d * kU * kU); }
double alpha_bound(int d, int m, double ref, double test) {
  const double most = std::max(ref, test);
  const double a = most > 0 ? std::exp2(std::floor(std::log2(most)) + 1) : 0;  // a power of two above both
  return (d + 0.5 * m) * kU * a;
}
// Whether the 8-bit promise holds at this depth: 1.5 d + m + d^2 u / 2 <= 65792.
bool promises_bytes(int d, int m) { return 1.5 * d + m + 0.5 * d * d * kU <= 65792.0; }

// Checks `test` (ranges composited) against cpu-ref's `ref`: the float bound everywhere, the 8-bit
// promise where the scene's colours lie in [0, 1] and the depth allows it. Returns the failures.
int check_within_bound(const Image& ref, const Image& test, const Depths& dm, double w, const std::string& what) {
  int failures = 0;
  for (std::size_t p = 0; p < ref.pixels.size() && failures < 5; ++p) {
    const int d = dm.d[p], m = dm.m[p];
    const float r[4] = {ref.pixels[p].x, ref.pixels[p].y, ref.pixels[p].z, ref.pixels[p].w};
    const float t[4] = {test.pixels[p].x, test.pixels[p].y, test.pixels[p].z, test.pixels[p].w};
    for (int ch = 0; ch < 4; ++ch) {
      const double diff = std::fabs(static_cast<double>(r[ch]) - t[ch]);
      const double bound = ch < 3 ? colour_bound(d, m, w) : alpha_bound(d, m, r[ch], t[ch]);
      const int steps = std::abs(int{to_byte(r[ch])} - int{to_byte(t[ch])});
      const bool bytes = w == 1.0 && promises_bytes(d, m);
      if (diff <= bound && (!bytes || steps <= 1)) continue;
      ADD_FAILURE() << what << ": pixel " << p % ref.width << "," << p / ref.width << " channel " << ch << ": cpu-ref "
                    << r[ch] << ", layers " << t[ch] << " (" << diff << " > " << bound << " or " << steps
                    << " steps), depth " << d << ", m " << m;
      ++failures;
    }
  }
  return failures;
}

// The scene advanced to `frame` as one process advances it (for the depths).
Scene at_frame(Scene scene, std::int64_t frame) {
  if (frame > scene.frame) advance_scene(&scene, frame - scene.frame);
  return scene;
}

// A random scene (tests/random_scene.h) as a file would hold it, its circles cut to those whose
// boxes at the frame drawn sum to at most 3e7 pixels (an animation may grow them: hypnosis).
test::RandomScene random_scene_to_draw(std::uint64_t seed) {
  test::RandomScene rs = test::random_scene(seed, 1e6);
  rs.scene = parse_scene(format_scene(rs.scene), rs.scene.name);
  const Scene now = at_frame(rs.scene, rs.frame);
  const View v = make_view(rs.width, rs.height);
  double pixels = 0;
  std::size_t keep = 0;
  for (; keep < now.circles.size(); ++keep) {
    const Circle& c = now.circles[keep];
    int i0, i1, j0, j1;
    pixel_span(c.x, c.radius, v.scale, v.off_x, rs.width, &i0, &i1);
    pixel_span(c.y, c.radius, v.scale, v.off_y, rs.height, &j0, &j1);
    pixels += std::max(0, i1 - i0 + 1) * static_cast<double>(std::max(0, j1 - j0 + 1));
    if (pixels > 3e7) break;
  }
  rs.scene.circles.resize(keep);
  return rs;
}

TEST(LayerRenderer, HandComputedTwoCircles) {
  Scene s;
  s.background.top = s.background.bottom = Float4{0.2f, 0.4f, 0.6f, 0.5f};
  s.circles.push_back(Circle{0.5f, 0.5f, 0.f, 1.f, 1.f, 0.f, 0.5f, 0.5f});
  s.circles.push_back(Circle{0.5f, 0.5f, 0.f, 1.f, 0.f, 1.f, 0.25f, 0.25f});
  LayerRenderer layer(1, false);
  layer.load(take_circle_range(s, 0, 2), 1, 1);
  layer.render();
  // After the first: C = .5 (1, 0, .5), T = .5, S = .5. After the second (keep .75):
  // C = .75 C + .25 (0, 1, .25) = (.375, .25, .25), T = .375, S = .75: every step exact in binary.
  const LayerPixel& p = layer.pixels()[0];
  EXPECT_EQ(p.c.x, 0.375f);
  EXPECT_EQ(p.c.y, 0.25f);
  EXPECT_EQ(p.c.z, 0.25f);
  EXPECT_EQ(p.c.w, 0.75f);
  EXPECT_EQ(p.t, 0.375f);
  // Over the background: C + T bg, alpha bg + S.
  Float4 acc = s.background.top;
  composite_onto(&acc, p);
  EXPECT_EQ(acc.x, std::fmaf(0.375f, 0.2f, 0.375f));
  EXPECT_EQ(acc.y, std::fmaf(0.375f, 0.4f, 0.25f));
  EXPECT_EQ(acc.z, std::fmaf(0.375f, 0.6f, 0.25f));
  EXPECT_EQ(acc.w, 1.25f);
  // The bottom layer starts at the background: cpu-ref's pixel, T as before.
  LayerRenderer bottom(1, true);
  bottom.load(take_circle_range(s, 0, 2), 1, 1);
  bottom.render();
  const Image ref = test::render_frame("cpu-ref", s, 1, 1, 0);
  EXPECT_EQ(std::memcmp(&bottom.pixels()[0].c, &ref.pixels[0], sizeof(Float4)), 0);
  EXPECT_EQ(bottom.pixels()[0].t, 0.375f);
}

// docs/SCALE.md's D: colours in [0, 1], any number of ranks, up to 1024 of them; colours up to 3
// (W = 4); one layer is exact at any depth.
TEST(LayerRenderer, DepthLimitIsTheDocumentedOne) {
  EXPECT_EQ(layered_depth_limit(1.f, std::int64_t{1} << 40), 26309);
  EXPECT_EQ(layered_depth_limit(1.f, 1024), 43143);
  EXPECT_EQ(layered_depth_limit(0.5f, 4), 43822);
  EXPECT_EQ(layered_depth_limit(3.f, std::int64_t{1} << 40), 6579);
  EXPECT_EQ(layered_depth_limit(1e6f, 4), 1);
  EXPECT_EQ(layered_depth_limit(1e6f, 1), std::numeric_limits<std::int64_t>::max());
  // The limit is the first depth where the per-pixel condition fails with m = min(d, R - 1).
  for (std::int64_t r : {2, 5, 1024}) {
    const std::int64_t d = layered_depth_limit(1.f, r);
    EXPECT_TRUE(promises_bytes(static_cast<int>(d - 1), static_cast<int>(std::min(d - 1, r - 1))));
    EXPECT_FALSE(promises_bytes(static_cast<int>(d), static_cast<int>(std::min(d, r - 1))));
  }
}

TEST(LayerRenderer, BottomLayerOfEveryCircleIsCpuRefToTheBit) {
  struct Case {
    const char* scene;
    int w, h;
    std::int64_t frame;
  };
  for (const Case& c : std::vector<Case>{{"rand10k", 200, 120, 0}, {"snow", 97, 61, 30}, {"fireworks", 160, 96, 45},
                                         {"bouncingballs", 128, 128, 40}, {"pattern", 64, 64, 0},
                                         {"biglittle", 61, 173, 0}}) {
    const Scene scene = make_builtin_scene(c.scene);
    const Image ref = test::render_frame("cpu-ref", scene, c.w, c.h, c.frame);
    for (unsigned threads : {1u, 0u, 3u}) {
      const auto layers = draw_layers(scene, c.w, c.h, c.frame, 1, threads);
      const Image img = composite(layers);
      ASSERT_EQ(std::memcmp(img.pixels.data(), ref.pixels.data(), sizeof(Float4) * ref.pixels.size()), 0)
          << c.scene << " threads " << threads;
    }
  }
}

TEST(LayerRenderer, RangesOfBuiltInScenesKeepTheBound) {
  struct Case {
    const char* scene;
    int w, h;
    std::int64_t first, last;
  };
  for (const Case& c : std::vector<Case>{{"rand10k", 200, 120, 0, 1}, {"snow", 97, 61, 28, 31},
                                         {"fireworks", 160, 96, 10, 13}, {"hypnosis", 33, 33, 5, 7},
                                         {"biglittle", 90, 37, 0, 1}, {"micro2M", 64, 64, 0, 1}}) {
    const Scene scene = make_builtin_scene(c.scene);
    for (int ranges : {2, 3, 5}) {
      for (std::int64_t f = c.first; f < c.last; ++f) {
        const Image ref = test::render_frame("cpu-mt", scene, c.w, c.h, f);
        const Scene now = at_frame(scene, f);
        const std::string what = std::string(c.scene) + " frame " + std::to_string(f) + ", " +
                                 std::to_string(ranges) + " ranges";
        EXPECT_EQ(check_within_bound(ref, composite(draw_layers(scene, c.w, c.h, f, ranges, 0)),
                                     depths(now, c.w, c.h, ranges), colour_scale(now), what),
                  0);
      }
    }
  }
}

// The layered images of random valid scenes (every one a scene a file could hold) keep the bound,
// over 1 to 4 ranges; one range is cpu-ref's floats. Fresh seeds each run (printed);
// CIRCLES_PROPERTY_SCENES sets the count (default 40 here), CIRCLES_PROPERTY_SEED replays one.
TEST(LayerRenderer, RangesOfRandomScenesKeepTheBound) {
  for (const std::uint64_t seed : test::property_seeds(40)) {
    const test::RandomScene rs = random_scene_to_draw(seed);
    const Scene& scene = rs.scene;
    const Image ref = test::render_frame("cpu-ref", scene, rs.width, rs.height, rs.frame);
    const Scene now = at_frame(scene, rs.frame);
    for (int ranges = 1; ranges <= 4; ++ranges) {
      const Image img = composite(draw_layers(scene, rs.width, rs.height, rs.frame, ranges, ranges % 2 ? 1 : 0));
      const std::string what = "seed " + std::to_string(seed) + " (" + rs.about + "), " + std::to_string(ranges) +
                               " ranges; replay: CIRCLES_PROPERTY_SEED=" + std::to_string(seed);
      if (ranges == 1)
        EXPECT_EQ(std::memcmp(img.pixels.data(), ref.pixels.data(), sizeof(Float4) * ref.pixels.size()), 0) << what;
      else
        EXPECT_EQ(check_within_bound(ref, img, depths(now, rs.width, rs.height, ranges), colour_scale(now), what), 0);
    }
    std::printf("[ property ] seed %llu: %s\n", static_cast<unsigned long long>(seed), rs.about.c_str());
  }
}

// One layer (from nothing) of every circle, composited over the background rows in float: the
// bound with the background as a first range that holds no circle (m = 1 where a circle covers).
TEST(LayerRenderer, OneLayerOverTheBackgroundKeepsTheFloatBound) {
  for (const std::uint64_t seed : test::property_seeds(20)) {
    const test::RandomScene rs = random_scene_to_draw(seed);
    const Scene& scene = rs.scene;
    const Image ref = test::render_frame("cpu-ref", scene, rs.width, rs.height, rs.frame);
    LayerRenderer layer(0, false);
    layer.load(take_circle_range(scene, 0, scene.circles.size()), rs.width, rs.height);
    layer.seek(rs.frame);
    layer.render();
    Image img(rs.width, rs.height);
    for (int j = 0; j < rs.height; ++j)
      for (int i = 0; i < rs.width; ++i) {
        Float4 acc = background_at(scene.background, j, rs.height);
        composite_onto(&acc, layer.pixels()[static_cast<std::size_t>(j) * rs.width + i]);
        img.at(i, j) = acc;
      }
    const Scene now = at_frame(scene, rs.frame);
    Depths dm = depths(now, rs.width, rs.height, 1);
    for (std::size_t p = 0; p < dm.d.size(); ++p) dm.m[p] = dm.d[p] > 0 ? 1 : 0;
    const std::string what = "seed " + std::to_string(seed) + " (" + rs.about + ")";
    EXPECT_EQ(check_within_bound(ref, img, dm, colour_scale(now), what), 0);
  }
}

class LayerRange : public test::TempDirTest {};

TEST_F(LayerRange, OfAMappedSceneIsAViewOfTheMapping) {
  const std::string path = this->path("r.npz");
  save_scene_npz(make_builtin_scene("rand10k"), path);
  const Scene whole = load_scene_npz(path);
  ASSERT_TRUE(whole.circles.is_view());
  const Circle* data = whole.circles.data();
  const CircleRange r = take_circle_range(whole, 2500, 5000);
  EXPECT_TRUE(r.scene.circles.is_view());
  EXPECT_EQ(r.scene.circles.data(), data + 2500);
  EXPECT_EQ(r.scene.circles.size(), 2500u);
  EXPECT_EQ(r.first, 2500u);
  EXPECT_EQ(r.total, 10000u);
  // An owned list is copied: the range only.
  const CircleRange owned = take_circle_range(make_builtin_scene("rand10k"), 9000, 20000);
  EXPECT_FALSE(owned.scene.circles.is_view());
  EXPECT_EQ(owned.scene.circles.size(), 1000u);
  EXPECT_EQ(std::memcmp(owned.scene.circles.data(), data + 9000, sizeof(Circle) * 1000), 0);
  // Fireworks keep their bursts.
  EXPECT_EQ(take_circle_range(make_builtin_scene("fireworks"), 100, 200).bursts.size(),
            static_cast<std::size_t>(kFireworkBursts));
}

}  // namespace
}  // namespace circles
