// Every CUDA renderer in the registry against cpu-ref, on every built-in scene, at sizes that are
// not multiples of the tile, over several animation frames; every scan choice too. Each frame
// keeps its mode's promise (render/modes.h): exact frames are cpu-ref's floats to the bit. Without
// a GPU these tests skip; with CIRCLES_REQUIRE_GPU=1 set they fail instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <optional>

#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/cpu_renderers.h"
#include "render/inspect.h"
#include "render/modes.h"
#include "render/raster.h"
#include "app/common/registry.h"
#include "scoped_env.h"
#include "test_util.h"

namespace circles {
namespace {

bool gpu_required() {
  const char* v = std::getenv("CIRCLES_REQUIRE_GPU");
  return v && std::string(v) == "1";
}

// Skips (or fails, when a GPU is required) if `info` cannot run here.
#define REQUIRE_RENDERER(info)                                                           \
  do {                                                                                   \
    const std::string why_ = unavailable_reason(info);                                   \
    if (!why_.empty()) {                                                                 \
      if (gpu_required()) FAIL() << "CIRCLES_REQUIRE_GPU=1 but " << (info).name << ": " << why_; \
      GTEST_SKIP() << (info).name << ": " << why_;                                       \
    }                                                                                    \
  } while (0)

std::vector<std::string> gpu_renderers() {
  std::vector<std::string> names;
  for (const RendererInfo& r : renderer_registry())
    if (r.needs_gpu) names.push_back(r.name);
  return names;
}

// A GPU renderer with settings: the default, each other tile size, the smallest batch, and each
// other scan (at the default tile size).
struct Variant {
  std::string renderer;
  RendererSettings settings;
  bool is_default = true;
  bool every_scene = true;  // all built-in scenes (else those up to 100k circles)
  // cuda-tile-binned's choices forced (RendererSettings::binned, by forced()): "direct" or
  // "binned", "rows2" its exact frames at two pixels a lane, "early-force" early exit even on
  // scenes it would draw exact, "sort" binned by CUB's sort instead of by counting, "block1024"
  // binned by counting in blocks of 1024 circles, falling back to the sort where a block's pairs
  // do not fit;
  // "compose2" runs of circles covering a tile (early exit) or a warp box composed whatever the
  // circles' size, "compose1" runs covering a warp box only (binned exact frames take them from a
  // radius of one tile, 32 pixels, so no built-in scene does), "compose0" none composed, so that
  // every exact frame of flat circles at four pixels a lane culls per row group; "tiny" binned
  // exact flat frames through the tiny-circle kernel whatever the circles' size; "" its own
  // choices.
  std::string strategy{};
  std::string label() const {
    std::string s = renderer;
    if (settings.tile_size) s += "_tile" + std::to_string(settings.tile_size);
    if (settings.batch_size) s += "_batch" + std::to_string(settings.batch_size);
    if (!settings.scan.empty()) s += "_" + settings.scan;
    if (settings.early_exit) s += "_early";
    if (settings.half_colour) s += "_half";
    if (!strategy.empty()) s += "_" + strategy;
    return s;
  }
};

// `s` with cuda-tile-binned's choices forced by name (Variant::strategy's names; "" forces
// nothing): the strategy ("direct", "binned"), "rows2", "early-force", "sort" and "block1024" and
// "tiny" (binned), "compose0|1|2".
RendererSettings forced(const std::string& name, RendererSettings s = {}) {
  BinnedChoices& b = s.binned;
  if (name == "direct") b.strategy = BinnedChoices::Strategy::Direct;
  else if (name == "binned") b.strategy = BinnedChoices::Strategy::Binned;
  else if (name == "rows2") b.rows = 2;
  else if (name == "early-force") b.force_early = true;
  else if (name == "sort") b.sort = true;
  else if (name == "block1024") b.block = 1024;
  else if (name == "compose2") b.compose = 2;
  else if (name == "compose1") b.compose = 1;
  else if (name == "compose0") b.compose = 0;
  else if (name == "tiny") b.tiny = 1;
  else if (!name.empty()) throw std::invalid_argument("no forced choice named '" + name + "'");
  if (name == "sort" || name == "block1024" || name == "tiny") b.strategy = BinnedChoices::Strategy::Binned;
  return s;
}

// Loads `scene` at w x h into `gpu` and into cpu-ref and renders `frames` frames in both, each
// advanced from the last, calling check(f, ref's image, gpu's image) after frame f.
template <class Check>
void render_beside_cpu_ref(Renderer* gpu, const Scene& scene, int w, int h, int frames, Check&& check) {
  auto ref = make_renderer("cpu-ref");
  gpu->load(scene, w, h);
  ref->load(scene, w, h);
  Image a, b;
  for (int f = 0; f < frames; ++f) {
    if (f > 0) gpu->advance(), ref->advance();
    gpu->render();
    ref->render();
    ref->read_image(&a);
    gpu->read_image(&b);
    check(f, a, b);
  }
}

void PrintTo(const Variant& v, std::ostream* os) { *os << v.label(); }

std::vector<Variant> gpu_variants() {
  std::vector<Variant> out;
  for (const RendererInfo& r : renderer_registry()) {
    if (!r.needs_gpu) continue;
    out.push_back({r.name, {}, true, true});
    for (std::size_t t = 1; t < r.tile_sizes.size(); ++t)
      out.push_back({r.name, {r.tile_sizes[t], 0}, false, false});
    if (!r.batch_sizes.empty()) out.push_back({r.name, {0, r.batch_sizes.front()}, false, false});
    // A scan changes which offsets every pair or circle lands at: each runs every scene.
    for (std::size_t k = 1; k < r.scans.size(); ++k) out.push_back({r.name, {0, 0, r.scans[k]}, false, true});
    if (r.early_exit) {
      // Early exit on every scene at every size (its own check: 8-bit, within one step).
      RendererSettings early;
      early.early_exit = true;
      out.push_back({r.name, early, true, true});
      RendererSettings early32 = early;
      early32.tile_size = r.tile_sizes.back();
      out.push_back({r.name, early32, false, false});
    }
    if (r.name == "cuda-tile-binned") {
      // Each strategy where the choice would take the other: binning for the small scenes,
      // the direct walk for the larger ones (up to 100k circles), in both modes.
      for (bool e : {false, true}) {
        RendererSettings s;
        s.early_exit = e;
        out.push_back({r.name, s, false, false, "binned"});
        out.push_back({r.name, s, false, false, "direct"});
        // Binning by counting is the default where it fits: the sort keeps every scene, and
        // blocks too big for their pairs make it fall back chunk by chunk.
        out.push_back({r.name, s, false, true, "sort"});
        out.push_back({r.name, s, false, false, "block1024"});
        // Composed runs (tile runs pre-composed per group of staged circles, box runs folded by
        // each warp) on every flat scene, small circles and all, direct or binned as each
        // scene's choice goes.
        out.push_back({r.name, s, false, false, "compose2"});
        // Box runs alone (blended untested in exact mode, folded in early exit).
        out.push_back({r.name, s, false, false, "compose1"});
        // And none: exact frames of flat circles at four pixels a lane then cull and walk per row
        // group of 8 lanes (kSubBoxes), big circles and all.
        out.push_back({r.name, s, false, false, "compose0"});
      }
      // The tiny-circle kernel (coverage masks, a thread a circle) on every flat scene up to
      // 100k circles, big circles and all, at both tiles (micro2M takes it by default).
      for (int tile : r.tile_sizes) {
        RendererSettings exact_tile;
        exact_tile.tile_size = tile;
        out.push_back({r.name, exact_tile, false, false, "tiny"});
      }
      // Exact frames at tile 32 take four pixels a lane (direct ones, and binned ones of flat
      // circles: rand100k here, every scene in the "binned" variant); two is the other kernel.
      const RendererSettings exact;
      out.push_back({r.name, exact, false, false, "rows2"});
      // Half colour on every scene (the eight-pixel walk's frames: rand1M, stress10M; the others
      // exact), by its own promise.
      RendererSettings half;
      half.half_colour = true;
      out.push_back({r.name, half, false, true});
      // Early exit's kernels on the scenes it would draw exact (shallow, tiny or snow circles).
      RendererSettings early;
      early.early_exit = true;
      out.push_back({r.name, early, false, false, "early-force"});
    }
  }
  return out;
}

struct Size {
  int w, h;
};

// Scenes are generated once per process; the large ones take seconds.
const Scene& cached_scene(const std::string& name) {
  static std::map<std::string, Scene> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, make_builtin_scene(name)).first;
  return it->second;
}

// The default and scan variants on every scene; the other settings on the scenes up to 100k
// circles.
std::vector<std::tuple<Variant, std::string>> cases() {
  std::vector<std::tuple<Variant, std::string>> out;
  for (const Variant& v : gpu_variants())
    for (const SceneInfo& s : scene_registry())
      if (v.every_scene || s.circle_count <= 100000) out.emplace_back(v, s.name);
  return out;
}

// cpu-ref's images of a scene at one size and the given frames. The two sizes every variant runs
// are computed once per process (a dozen scan variants compare against the same images, about
// 1 MiB each); the 1023x1023 ones (default variants only) are not kept.
std::vector<Image> reference_frames(const std::string& scene_name, const Size& sz,
                                    const std::vector<std::int64_t>& frames) {
  static std::map<std::string, std::vector<Image>> cache;
  std::string key = scene_name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " frames";
  for (std::int64_t f : frames) key += " " + std::to_string(f);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto ref = make_renderer("cpu-ref");
  ref->load(cached_scene(scene_name), sz.w, sz.h);
  std::vector<Image> images(frames.size());
  for (std::size_t k = 0; k < frames.size(); ++k) {
    ref->seek(frames[k]);
    ref->render();
    ref->read_image(&images[k]);
  }
  if (sz.w != 1023) cache.emplace(key, images);
  return images;
}

// The plan text of a frame whose colour the eight-pixel walk kept in half precision.
constexpr const char* kHalfColourPlan = "colour in half precision";

// The mode a frame of a renderer with these settings was drawn in, from its plan: early exit
// unless the plan says it was not taken, half colour where the plan says so, else exact.
Mode frame_mode(const RendererSettings& s, const std::string& plan) {
  if (s.early_exit && plan.find("early exit not taken") == std::string::npos) return Mode::EarlyExit;
  if (plan.find(kHalfColourPlan) != std::string::npos) return Mode::HalfColour;
  return Mode::Exact;
}

// An exact frame against cpu-ref's: its floats to the bit (render/modes.h), so its PNG bytes.
// `what` names the frame in the message.
void expect_exact_matches(const Image& ref, const Image& b, const std::string& what) {
  EXPECT_EQ(promise_broken(Mode::Exact, ref, b), "") << what;
}

// A frame of cuda-tile-binned (default settings but strategy hooks) against cpu-ref's, by the
// promise of the mode its plan names.
void expect_flat_matches(const Image& ref, const Image& b, const std::string& what, const std::string& plan) {
  const Mode m = frame_mode({}, plan);
  EXPECT_EQ(promise_broken(m, ref, b), "") << what << ": " << plan;
}

// The largest difference between the two images' 8-bit channels (to_byte, as PNG files get).
int max_byte_difference(const Image& a, const Image& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  int worst = 0;
  for (std::size_t k = 0; k < a.pixels.size() && k < b.pixels.size(); ++k) {
    const Float4 p = a.pixels[k], q = b.pixels[k];
    for (auto [x, y] : {std::pair{p.x, q.x}, {p.y, q.y}, {p.z, q.z}, {p.w, q.w}})
      worst = std::max(worst, std::abs(int(to_byte(x)) - int(to_byte(y))));
  }
  return worst;
}

class GpuMatchesCpuRef : public ::testing::TestWithParam<std::tuple<Variant, std::string>> {};

TEST_P(GpuMatchesCpuRef, AllSizesAndFrames) {
  const auto& [variant, scene_name] = GetParam();
  const std::string& renderer = variant.renderer;
  REQUIRE_RENDERER(*find_renderer(renderer));
  const Scene& scene = cached_scene(scene_name);
  const std::size_t n = scene.circles.size();
  // 1023 and 257 are not multiples of 16 or 32; 300x200 is not square. The largest scenes skip
  // 1023 only to keep cpu-ref's share of the run short.
  std::vector<Size> sizes = {{257, 257}, {300, 200}};
  if (n <= 2000000 && variant.is_default) sizes.push_back({1023, 1023});
  const std::vector<std::int64_t> frames = scene.animation == Animation::None
                                               ? std::vector<std::int64_t>{0}
                                               : std::vector<std::int64_t>{0, 1, 2, 90};
  const RendererSettings settings = forced(variant.strategy, variant.settings);
  for (const Size& sz : sizes) {
    const std::vector<Image> refs = reference_frames(scene_name, sz, frames);
    auto gpu = make_renderer(renderer, settings);
    gpu->load(scene, sz.w, sz.h);
    Image b;
    for (std::size_t k = 0; k < frames.size(); ++k) {
      const std::int64_t f = frames[k];
      const Image& a = refs[k];
      gpu->seek(f);
      gpu->render();
      gpu->read_image(&b);
      SCOPED_TRACE(scene_name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " frame " +
                   std::to_string(f) + " (" + gpu->plan() + ")");
      // Early exit: every 8-bit value within one step of cpu-ref's; half colour within 2^-10;
      // exact (every other frame): cpu-ref's floats to the bit.
      const Mode mode = frame_mode(variant.settings, gpu->plan());
      EXPECT_EQ(promise_broken(mode, a, b), "") << mode_name(mode);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Registry, GpuMatchesCpuRef,
    ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<GpuMatchesCpuRef::ParamType>& info) {
      std::string s = std::get<0>(info.param).label() + "_" + std::get<1>(info.param);
      for (char& c : s)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return s;
    });

// What a PNG regression test sees: every built-in scene at 1024x1024 (a tile multiple) and
// 1000x777 (neither), animated ones at frames 0 and 30, through every CUDA renderer's default
// and cuda-tile-binned's half colour and early exit, each frame kept to its mode's promise: the
// default (exact) frames are cpu-ref's floats to the bit, so its 8-bit bytes. The reference is
// cpu-mt, which draws cpu-ref's picture to the bit with every core (tests/test_modes.cpp's
// property test holds it to that): cpu-ref alone would take minutes here.
TEST(GpuRenderer, BuiltinScenesAreCpuRefsBytes) {
  struct Run {
    std::string renderer;
    RendererSettings settings;
  };
  std::vector<Run> runs;
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    runs.push_back({name, {}});
    if (find_renderer(name)->half_colour) {
      RendererSettings half;
      half.half_colour = true;
      runs.push_back({name, half});
    }
    if (find_renderer(name)->early_exit) {
      RendererSettings early;
      early.early_exit = true;
      runs.push_back({name, early});
    }
  }
  for (const SceneInfo& info : scene_registry()) {
    const Scene& scene = cached_scene(info.name);
    const std::vector<std::int64_t> frames =
        scene.animation == Animation::None ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{0, 30};
    for (const Size sz : {Size{1024, 1024}, Size{1000, 777}}) {
      auto ref = make_renderer("cpu-mt");
      ref->load(scene, sz.w, sz.h);
      std::vector<Image> refs(frames.size());
      for (std::size_t k = 0; k < frames.size(); ++k) {
        ref->seek(frames[k]);
        ref->render();
        ref->read_image(&refs[k]);
      }
      for (const Run& run : runs) {
        auto gpu = make_renderer(run.renderer, run.settings);
        gpu->load(scene, sz.w, sz.h);
        Image b;
        for (std::size_t k = 0; k < frames.size(); ++k) {
          gpu->seek(frames[k]);
          gpu->render();
          gpu->read_image(&b);
          const Mode mode = frame_mode(run.settings, gpu->plan());
          if (!run.settings.early_exit && !run.settings.half_colour) EXPECT_EQ(mode, Mode::Exact);
          const std::string what = info.name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " frame " +
                                   std::to_string(frames[k]) + " " + run.renderer + " " +
                                   describe_settings(*find_renderer(run.renderer), run.settings) + " (" + gpu->plan() +
                                   ")";
          EXPECT_EQ(promise_broken(mode, refs[k], b), "") << what;
          std::printf("[ bytes    ] %s: %s, %s\n", what.c_str(), mode_name(mode),
                      compare_images(refs[k], b, 0.f).summary().c_str());
        }
      }
    }
  }
}

// cuda-tile-binned bins in chunks when a chunk's pairs exceed its budget: a budget of one pair
// (raised to the tile count, one circle's worst case) splits rand10k and snow into many chunks,
// in both modes, at every tile size and with CUB's scan (the default is the lab's); the pictures stay
// cpu-ref's (exact: the tolerance; early exit: one 8-bit step).
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
        if (s.early_exit) {
          EXPECT_LE(max_byte_difference(a, b), 1) << name << " " << knobs << " frame " << f;
        } else {
          expect_exact_matches(a, b, std::string(name) + " " + knobs + " frame " + std::to_string(f));
        }
      });
    }
  }
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
    varied.circles[k].a = 0.2f + 0.75f * static_cast<float>(k % 13) / 12.f;
  nearly.circles[nearly.circles.size() / 2].a = std::nextafter(0.5f, 1.f);
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
    expect_flat_matches(ref, b, strategy, plan);
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
      expect_flat_matches(ref, b, "tile " + std::to_string(tile), plan);
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
  EXPECT_GE(w.chunks, 64u) << r->plan();
  EXPECT_LE(r->device_memory_peak(), 3ull << 30) << "the pair budget bounds the scratch";
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
    if (!early) {
      EXPECT_GT(w.pairs, 1ull << 27);
      EXPECT_GE(w.chunks, 3u);
    }
    EXPECT_LE(r->device_memory_peak(), 2ull << 30) << "the pair budget bounds the scratch";
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
  EXPECT_LE(max_byte_difference(a, b), 1);
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
  // says so.
  auto snow = make_renderer("cuda-tile-binned", s);
  snow->load(cached_scene("snow"), 300, 200);
  snow->render();
  EXPECT_NE(snow->plan().find("early exit not taken (snow shading"), std::string::npos) << snow->plan();
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
    Image b;
    r->read_image(&b);
    EXPECT_LE(max_byte_difference(test::render_frame("cpu-ref", cached_scene(name), 300, 200, 0), b), 1) << name;
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
    expect_flat_matches(reference_frames(c.scene, {c.size, c.size}, {0}).front(), b,
                        c.scene + " /" + std::to_string(c.tile), r->plan());
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
      if (early) {
        EXPECT_LE(max_byte_difference(ref, b), 1) << frame << ": " << plan;
      } else {
        expect_flat_matches(ref, b, std::to_string(frame), plan);
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
    expect_flat_matches(ref, b, std::to_string(frame), plan);
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
      if (c.early) {
        EXPECT_LE(max_byte_difference(a, b), 1) << when << " (" << gpu->plan() << ")";
      } else {
        expect_exact_matches(a, b, when + " (" + gpu->plan() + ")");
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
// the CPU walk over the scene (cpu-ref's blend, circle by circle) ends at that colour, within the
// tests' tolerance, on a flat and a shaded animated scene.
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
        const PixelReport rep = inspect_pixel(scene, 257, 193, i, j, 16);
        for (float d : {rep.final_colour.x - p.x, rep.final_colour.y - p.y, rep.final_colour.z - p.z,
                        rep.final_colour.w - p.w})
          EXPECT_LE(std::fabs(d), 2e-3f) << "pixel " << i << "," << j << " after " << rep.covering << " circles";
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
      // Each frame starts from zero: a second frame takes about as long, not twice as long.
      r->render();
      const std::vector<double> again = r->tile_cycles(&tile, &tx, &ty);
      ASSERT_EQ(again.size(), cycles.size());
      const double first_sum = std::accumulate(cycles.begin(), cycles.end(), 0.0);
      const double again_sum = std::accumulate(again.begin(), again.end(), 0.0);
      EXPECT_LT(again_sum, 1.6 * first_sum) << name;
      EXPECT_LT(first_sum, 1.6 * again_sum) << name;
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
      if (c.early) EXPECT_LE(max_byte_difference(ref, img[staged]), 1) << what;
      else expect_flat_matches(ref, img[staged], what + (staged ? " by stage" : " whole"), r->plan());
    }
    ASSERT_EQ(img[0].pixels.size(), img[1].pixels.size());
    EXPECT_EQ(0, std::memcmp(img[0].pixels.data(), img[1].pixels.data(), img[0].pixels.size() * sizeof(Float4)))
        << what;
  }
  auto cpu = make_renderer("cpu-mt");
  EXPECT_FALSE(cpu->time_stages(false));
}

// No circles at all: the clear alone, at a size smaller than one tile in y.
// Over a transparent background the alpha channel is the picture's (PNG alpha), no longer
// clamped away at 1 by the opaque built-in backgrounds: every CUDA renderer's exact frames, the
// strategies of cuda-tile-binned forced one by one (runs composed or not), against cpu-ref's
// colour and unclamped alpha sums (expect_exact_matches), frames 0 and 1 of a still and an
// animated scene.
TEST(GpuRenderer, TransparentBackgroundsGetCpuRefsAlpha) {
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    for (const char* choice : {"", "direct", "binned", "compose2", "compose0", "tiny"}) {
      if (*choice && name != "cuda-tile-binned") continue;
      for (const char* scene_name : {"rand10k", "hypnosis", "micro2M"}) {
        Scene scene = cached_scene(scene_name);
        scene.background = Background{};
        scene.background.top = Float4{.2f, .4f, .6f, 0.f};
        auto gpu = make_renderer(name, forced(choice));
        Image last;  // cpu-ref's last frame
        render_beside_cpu_ref(gpu.get(), scene, 257, 193, 2, [&](int f, const Image& a, const Image& b) {
          const std::string what = name + " " + choice + " " + scene_name + " frame " + std::to_string(f) + " (" +
                                   gpu->plan() + ")";
          expect_exact_matches(a, b, what);
          last = a;
        });
        // The alpha that clamping hid: some pixels left uncovered (0), some covered past 1.
        float lowest = 1.f, highest = 0.f;
        for (const Float4& p : last.pixels) lowest = std::min(lowest, p.w), highest = std::max(highest, p.w);
        EXPECT_EQ(lowest, 0.f) << scene_name;
        EXPECT_GT(highest, 1.f) << scene_name;
      }
    }
  }
}

TEST(GpuRenderer, EmptySceneIsTheBackground) {
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    Scene s = make_builtin_scene("snow");
    s.circles.clear();
    const Image img = test::render_frame(name, s, 33, 17, 0);
    const Image ref = test::render_frame("cpu-ref", s, 33, 17, 0);
    expect_exact_matches(ref, img, name);
  }
}

}  // namespace
}  // namespace circles
