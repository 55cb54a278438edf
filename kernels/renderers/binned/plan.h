// cuda-tile-binned's plan: in which mode and with which kernels it draws a scene's frames, and
// why. Plain C++ (no CUDA), decided from a few facts of the scene and what was asked for: once a
// load (plan_load) and once a frame (plan_frame). tests/cpu/binned_plan_test.cpp holds it to its
// rules without a GPU; the renderer (renderer.cu) only carries it out.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/renderers/config.h"
#include "render/hd.h"
#include "render/modes.h"
#include "render/renderer.h"
#include "render/scene.h"

namespace circles::binned {

// Early exit pays where pixels settle: flat circles of some size over a deep enough scene.
// Under a radius of 4 pixels a tile needs too many circles over each of its pixels to settle.
constexpr float kEarlyMinRadiusPixels = 4.f;
// Circles over a pixel on average: at alpha .5 nine settle a pixel, so from a depth of 16 most
// pixels settle long before the walk back reaches the scene's first circles.
constexpr double kEarlyMinDepth = 16.0;
// Early exit's first chunk: at least this many of the last circles, and enough to cover a pixel
// kFirstEarlyDepth times on average (deep enough for most pixels to settle within it, so that
// the later chunks bin only into the few tiles left open); each chunk after doubles.
constexpr int kFirstEarlyChunk = 16384;
constexpr double kFirstEarlyDepth = 48.0;
// Runs of circles covering a warp's box are composed from this median radius (pixels): a disc of
// radius 16 covers a whole box (8 pixels wide, 8 or 16 tall) over much of its area, so runs are
// common enough to repay looking for them. Runs covering a whole tile (early exit only) from
// kTileRunsRadius tiles (two in early exit's direct frames), where circles cover whole tiles.
constexpr float kComposeRadiusPixels = 16.f;
constexpr float kTileRunsRadius = 1.5f;
// Binned exact frames of flat circles this small (median radius, pixels) take the tiny-circle
// kernel: a circle of radius 2 covers a dozen pixels or so, so work per covered pixel (each
// circle marks its pixels) beats walking each circle over the pixels of a box it touches.
constexpr float kTinyRadiusPixels = 2.f;

// What the plan needs of a scene at a size, computed at load.
struct SceneFacts {
  std::size_t circles = 0;
  Shading shading = Shading::Flat;
  float median_radius_px = 0.f;  // of a sample of at most about 1,024 circles
  double mean_area_px = 0.0;     // the sample's mean area, pixels
  double depth = 0.0;            // circles over a pixel on average
  std::string early_refusal;     // early_exit_refusal(scene): why early exit cannot keep its bound
  std::string half_refusal;      // half_colour_refusal(scene)
};
SceneFacts scene_facts(const Scene& scene, int width, int height);
// The same from what was gathered elsewhere (circles on the GPU): n circles, the radius of every
// radius_sample_step(n)-th one, their ModeFacts, and `scene`'s settings.
SceneFacts scene_facts(const Scene& scene, std::size_t n, std::vector<float> radius_sample, const ModeFacts& modes,
                       int width, int height);
std::size_t radius_sample_step(std::size_t n);

// What was asked for (RendererSettings, resolved).
struct Asked {
  int tile = kLargeTile;
  bool early = false;  // --early-exit
  bool half = false;   // --half-colour
  BinnedChoices forced;
};

// Decided at load.
struct LoadPlan {
  bool early = false;       // frames composite front to back and stop early
  std::string early_note;   // why early exit was not taken ("" when it was, or was not asked for)
  bool half = false;        // the eight-pixel walk keeps R, G and B in half precision
  std::string half_refusal; // why it may not (half_colour_refusal), "" when it may
  int rows = 8;             // exact frames at tile 32: pixels a lane at most (2, 4, or 8 where it can)
  int compose_direct = 0;   // runs composed in direct frames: 0 none, 1 warp boxes, 2 tiles too
  int compose_binned = 0;   // and in binned ones
  int first_early_chunk = kFirstEarlyChunk;
};
LoadPlan plan_load(const SceneFacts& facts, int width, int height, const Asked& asked);

// Decided each frame.
struct FramePlan {
  bool direct = false;     // one shade kernel walks every circle; else binned first
  std::string why;         // why direct or binned, in words
  int compose = 0;         // runs composed (as LoadPlan's)
  bool tiny = false;       // binned: the tiny-circle kernel (coverage masks)
  int rows = 2;            // pixels a lane: 2 or 4 (the warps' walk), 8 (the eight-pixel walk)
  bool fused_step = false; // direct: the shade kernel takes the frame's animation step
  Mode mode = Mode::Exact;
  // The plan's words on the kernels ("; runs covering a whole warp box composed; four pixels a
  // lane; ..."), what --half-colour became included.
  std::string kernels_text(const LoadPlan& load, const Asked& asked) const;
};
FramePlan plan_frame(const LoadPlan& load, const SceneFacts& facts, const Asked& asked, unsigned long long tiles,
                     bool counting, Animation animation);

// Whether the warps' walk culls per row group of 8 lanes (shade_kernel's kGroups): direct exact
// frames of flat circles at four pixels a lane that compose no runs.
CIRCLES_HD constexpr bool walks_row_groups(Shading s, int rows, bool early, int compose) {
  return s == Shading::Flat && rows == 4 && !early && compose == 0;
}

// Which shade kernel draws a frame: the key of the shade table (shade_table.cu), one entry a
// kernel instantiation. The fields past `count` are shade_kernel's template arguments (the warps'
// walk) or the eight-pixel walk's `half`; a walk leaves the fields it does not take at their
// defaults.
enum class ShadeWalk { Warps, Rows8, Tiny };
struct ShadeVariant {
  ShadeWalk walk = ShadeWalk::Warps;  // shade_walk.cuh, shade_rows8.cuh, shade_tiny.cuh
  int tile = kLargeTile;
  bool count = false;                 // counts pixel tests and blends (Renderer::count_work)
  Shading shading = Shading::Flat;
  bool early = false;
  int compose = 0;                    // 0, 1 (warp boxes) or 2 (tiles too)
  int rows = 2;                       // pixels a lane: 2 or 4
  bool step = false;                  // the animation step fused
  bool groups = false;                // walks_row_groups, in direct frames only
  bool half = false;                  // the eight-pixel walk in half precision
  bool operator==(const ShadeVariant& o) const;
  std::string name() const;           // "warps tile 32, flat, exact, compose 0, 4 rows, groups"
};
// The variant that carries out `frame` (a binned chunk's shade, or a direct frame's; `step`: the
// animation step fused into it).
ShadeVariant shade_variant(const FramePlan& frame, const LoadPlan& load, Shading shading, int tile, bool count,
                           bool binned, bool step);
// Every variant the shade table has a kernel for (defined with the table, in CUDA builds only).
std::vector<ShadeVariant> shade_table_variants();

}  // namespace circles::binned
