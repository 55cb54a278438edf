// The GPU renderers' pictures as files see them: every built-in scene at PNG sizes held to its
// mode's promise (the default frames cpu-ref's bytes), transparent backgrounds (cpu-ref's
// unclamped alpha) and an empty scene (the background alone). Without a GPU these tests skip;
// with CIRCLES_REQUIRE_GPU=1 set they fail instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <future>

#include "gpu/gpu_test_util.h"
#include "render/compare.h"
#include "test_util.h"

namespace circles {
namespace {

// What a PNG regression test sees: every built-in scene at 1024x1024 (a tile multiple) and
// 1000x777 (neither), animated ones at frames 0 and 30, through every CUDA renderer's default
// and cuda-tile-binned's half colour and early exit, each frame reporting a mode the scene and
// options allow and keeping it: the default (exact) frames are cpu-ref's floats to the bit, so
// its 8-bit bytes. The reference is cpu-ref itself, one instance a size on threads of their own.
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
  const std::vector<Size> sizes = {Size{1024, 1024}, Size{1000, 777}};
  for (const SceneInfo& info : scene_registry()) {
    const Scene& scene = cached_scene(info.name);
    const std::vector<std::int64_t> frames =
        scene.animation == Animation::None ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{0, 30};
    std::vector<std::future<std::vector<Image>>> pending;
    for (const Size sz : sizes)
      pending.push_back(std::async(std::launch::async, [&scene, &frames, sz] {
        auto ref = make_renderer("cpu-ref");
        ref->load(scene, sz.w, sz.h);
        std::vector<Image> refs(frames.size());
        for (std::size_t k = 0; k < frames.size(); ++k) {
          ref->seek(frames[k]);
          ref->render();
          ref->read_image(&refs[k]);
        }
        return refs;
      }));
    for (std::size_t z = 0; z < sizes.size(); ++z) {
      const Size sz = sizes[z];
      const std::vector<Image> refs = pending[z].get();
      for (const Run& run : runs) {
        const AllowedModes allowed = allowed_modes(run.renderer, scene, run.settings);
        auto gpu = make_renderer(run.renderer, run.settings);
        gpu->load(scene, sz.w, sz.h);
        Image b;
        for (std::size_t k = 0; k < frames.size(); ++k) {
          gpu->seek(frames[k]);
          gpu->render();
          gpu->read_image(&b);
          const Mode mode = gpu->mode();
          const std::string what = info.name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " frame " +
                                   std::to_string(frames[k]) + " " + run.renderer + " " +
                                   describe_settings(*find_renderer(run.renderer), run.settings) + " (" + gpu->plan() +
                                   ")";
          EXPECT_EQ(frame_broken(allowed, mode, refs[k], b), "") << what;
          std::printf("[ bytes    ] %s: %s, %s\n", what.c_str(), mode_name(mode),
                      compare_images(refs[k], b, 0.f).summary().c_str());
        }
      }
    }
  }
}

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

// The viewer's host copy (read_rgba8: converted on the device, a quarter of the bytes copied) is
// the float image's bytes by to_byte, alpha past 1 and the odd size included.
TEST(GpuRenderer, Rgba8ReadIsTheImagesBytes) {
  for (const std::string& name : gpu_renderers()) {
    REQUIRE_RENDERER(*find_renderer(name));
    Scene scene = cached_scene("rand10k");
    scene.background = Background{};
    scene.background.top = Float4{.2f, .4f, 1.5f, 0.f};
    auto gpu = make_renderer(name);
    gpu->load(scene, 257, 193);
    gpu->render();
    Image img;
    gpu->read_image(&img);
    std::vector<std::uint8_t> want(static_cast<std::size_t>(257) * 193 * 4), got(want.size(), 0xA5);
    to_rgba8_bottom_up(img, want.data());
    gpu->read_rgba8(got.data());
    EXPECT_EQ(want, got) << name;
    std::size_t opaque = 0;
    for (std::size_t k = 3; k < got.size(); k += 4) opaque += got[k] == 255;
    EXPECT_GT(opaque, 0u) << name;           // alpha past 1 clamps to 255
    EXPECT_LT(opaque, got.size() / 4) << name;  // and some pixels stay uncovered
  }
}

// No circles at all: the clear alone, at a size smaller than one tile in y.
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
