// cuda-tile-binned's plan (kernels/renderers/binned/plan.h) without a GPU: which mode and which
// kernels a frame takes, and why, from the scene's facts and what was asked for.
#include <gtest/gtest.h>

#include <string>

#include "binned_facts.h"
#include "kernels/renderers/binned/plan.h"
#include "render/builtin_scenes.h"

namespace circles::binned {
namespace {

using test::facts;

Asked asked(bool early = false, bool half = false, int tile = kLargeTile) {
  Asked a;
  a.tile = tile;
  a.early = early;
  a.half = half;
  return a;
}

constexpr unsigned long long kTiles = 32 * 32;  // 1024x1024 at tile 32

TEST(BinnedPlan, ExactFramesNeverComposeTileRuns) {
  for (float r : {8.f, 20.f, 48.f, 64.f, 200.f, 600.f}) {
    const LoadPlan exact = plan_load(facts(10000, r), 1024, 1024, asked());
    EXPECT_LE(exact.compose_direct, 1) << r;
    EXPECT_LE(exact.compose_binned, 1) << r;
    Asked forced = asked();
    forced.forced.compose = 2;
    EXPECT_EQ(plan_load(facts(10000, r), 1024, 1024, forced).compose_direct, 1) << r;
  }
  // Early exit composes them: from 1.5 tiles binned, 2 tiles direct.
  const LoadPlan early = plan_load(facts(100000, 64.f), 1024, 1024, asked(true));
  ASSERT_TRUE(early.early) << early.early_note;
  EXPECT_EQ(early.compose_binned, 2);
  EXPECT_EQ(early.compose_direct, 2);
  EXPECT_EQ(plan_load(facts(100000, 50.f), 1024, 1024, asked(true)).compose_direct, 1);
  // Box runs from 16 pixels; binned exact flat frames under a tile's radius walk per row group.
  const LoadPlan mid = plan_load(facts(100000, 20.f), 1024, 1024, asked());
  EXPECT_EQ(mid.compose_direct, 1);
  EXPECT_EQ(mid.compose_binned, 0);
  EXPECT_EQ(plan_load(facts(100000, 10.f), 1024, 1024, asked()).compose_direct, 0);
}

TEST(BinnedPlan, EarlyExitOnlyWhereItKeepsItsPromiseAndPays) {
  EXPECT_TRUE(plan_load(facts(100000, 20.f), 1024, 1024, asked(true)).early);
  EXPECT_FALSE(plan_load(facts(100000, 20.f), 1024, 1024, asked(false)).early);
  // Where it would hardly settle: exact, the note says why; forced (tests), taken.
  const LoadPlan shallow = plan_load(facts(100, 20.f), 1024, 1024, asked(true));
  EXPECT_FALSE(shallow.early);
  EXPECT_NE(shallow.early_note.find("early exit not taken (a pixel lies under 0.1 circles on average"), std::string::npos)
      << shallow.early_note;
  Asked force = asked(true);
  force.forced.force_early = true;
  EXPECT_TRUE(plan_load(facts(100, 20.f), 1024, 1024, force).early);
  EXPECT_NE(plan_load(facts(100000, 2.f), 1024, 1024, asked(true)).early_note.find("median radius under 4 pixels"),
            std::string::npos);
  EXPECT_NE(plan_load(facts(100000, 20.f, Shading::Snow), 1024, 1024, asked(true)).early_note.find("snow shading"),
            std::string::npos);
  // Where its bound fails: exact, forced or not.
  SceneFacts bright = facts(100000, 20.f);
  bright.early_refusal = "circle 3's colour is above 1";
  for (bool forced : {false, true}) {
    Asked a = asked(true);
    a.forced.force_early = forced;
    const LoadPlan p = plan_load(bright, 1024, 1024, a);
    EXPECT_FALSE(p.early) << forced;
    EXPECT_EQ(p.early_note, "early exit not taken (circle 3's colour is above 1): drawn exact, which meets its promise; ");
    EXPECT_EQ(plan_frame(p, bright, a, kTiles, false, Animation::None).mode, Mode::Exact);
  }
}

TEST(BinnedPlan, HalfColourOnlyInTheEightPixelWalkWhereAskedAndAllowed) {
  const SceneFacts deep = facts(1000000, 12.f);  // rand1M-like: binned, eight pixels a lane
  const LoadPlan exact = plan_load(deep, 1024, 1024, asked());
  const FramePlan f = plan_frame(exact, deep, asked(), kTiles, false, Animation::None);
  EXPECT_FALSE(f.direct);
  EXPECT_EQ(f.rows, 8);
  EXPECT_EQ(f.mode, Mode::Exact);
  EXPECT_EQ(f.kernels_text(exact, asked()), "; eight pixels a lane");
  const LoadPlan half = plan_load(deep, 1024, 1024, asked(false, true));
  const FramePlan h = plan_frame(half, deep, asked(false, true), kTiles, false, Animation::None);
  EXPECT_EQ(h.mode, Mode::HalfColour);
  EXPECT_EQ(h.kernels_text(half, asked(false, true)),
            "; eight pixels a lane; colour in half precision (--half-colour: within 2^-10 of cpu-ref)");
  SceneFacts refused = deep;
  refused.half_refusal = "circle 7's alpha 0.3 is not a multiple of 1/16 from 1/2 to 1";
  const LoadPlan no = plan_load(refused, 1024, 1024, asked(false, true));
  const FramePlan n = plan_frame(no, refused, asked(false, true), kTiles, false, Animation::None);
  EXPECT_EQ(n.mode, Mode::Exact);
  EXPECT_NE(n.kernels_text(no, asked(false, true)).find("half colour not taken: circle 7's alpha"), std::string::npos);
  // Direct frames (few circles) never take it, and say so.
  const SceneFacts few = facts(1000, 12.f);
  const LoadPlan fp = plan_load(few, 1024, 1024, asked(false, true));
  const FramePlan d = plan_frame(fp, few, asked(false, true), kTiles, false, Animation::None);
  EXPECT_TRUE(d.direct);
  EXPECT_EQ(d.mode, Mode::Exact);
  EXPECT_NE(d.kernels_text(fp, asked(false, true)).find("only the eight-pixel walk's frames take it"), std::string::npos);
}

TEST(BinnedPlan, StrategyKernelsAndTheStepFollowTheirRules) {
  // Direct while circles x tiles <= 2^24; binned past it; forced either way.
  const SceneFacts small = facts(16384, 12.f), big = facts(16385, 12.f);
  const LoadPlan lp = plan_load(small, 1024, 1024, asked());
  EXPECT_TRUE(plan_frame(lp, small, asked(), kTiles, false, Animation::None).direct);
  EXPECT_FALSE(plan_frame(lp, big, asked(), kTiles, false, Animation::None).direct);
  Asked bin = asked();
  bin.forced.strategy = BinnedChoices::Strategy::Binned;
  const FramePlan fb = plan_frame(lp, small, bin, kTiles, false, Animation::None);
  EXPECT_FALSE(fb.direct);
  EXPECT_EQ(fb.why, "--binned-strategy binned");
  // Direct exact frames at tile 32 walk four pixels a lane and take the animation step, except
  // when counting work or for snow; tile 16 and early exit walk two.
  const FramePlan fd = plan_frame(lp, small, asked(), kTiles, false, Animation::BouncingBalls);
  EXPECT_EQ(fd.rows, 4);
  EXPECT_TRUE(fd.fused_step);
  EXPECT_FALSE(plan_frame(lp, small, asked(), kTiles, true, Animation::BouncingBalls).fused_step);
  const SceneFacts snow = facts(16384, 12.f, Shading::Snow);
  EXPECT_FALSE(plan_frame(plan_load(snow, 1024, 1024, asked()), snow, asked(), kTiles, false, Animation::Snow).fused_step);
  const LoadPlan l16 = plan_load(small, 1024, 1024, asked(false, false, kSmallTile));
  EXPECT_EQ(plan_frame(l16, small, asked(false, false, kSmallTile), 64 * 64, false, Animation::None).rows, 2);
  Asked rows2 = asked();
  rows2.forced.rows = 2;
  const LoadPlan l2 = plan_load(small, 1024, 1024, rows2);
  EXPECT_EQ(plan_frame(l2, small, rows2, kTiles, false, Animation::None).rows, 2);
  // --binned-rows 4: the four-pixel walk where the plan would take the eight-pixel one (the
  // renderer ladder's rung below it); direct frames walk four either way.
  Asked rows4 = asked();
  rows4.forced.rows = 4;
  const LoadPlan l4 = plan_load(big, 1024, 1024, rows4);
  EXPECT_EQ(plan_frame(l4, big, rows4, kTiles, false, Animation::None).rows, 4);
  EXPECT_EQ(plan_frame(l4, small, rows4, kTiles, false, Animation::None).rows, 4);
  EXPECT_EQ(plan_frame(plan_load(big, 1024, 1024, asked()), big, asked(), kTiles, false, Animation::None).rows, 8);
  // Binned exact frames of tiny flat circles take the mask kernel (no runs, no rows); snow never.
  const SceneFacts tiny = facts(2000000, 1.f);
  const LoadPlan lt = plan_load(tiny, 1024, 1024, asked());
  const FramePlan ft = plan_frame(lt, tiny, asked(), kTiles, false, Animation::None);
  EXPECT_TRUE(ft.tiny);
  EXPECT_EQ(ft.compose, 0);
  EXPECT_EQ(ft.rows, 0);
  EXPECT_NE(ft.kernels_text(lt, asked()).find("tiny circles"), std::string::npos);
  const SceneFacts tiny_snow = facts(2000000, 1.f, Shading::Snow);
  EXPECT_FALSE(plan_frame(plan_load(tiny_snow, 1024, 1024, asked()), tiny_snow, asked(), kTiles, false,
                          Animation::Snow).tiny);
  Asked never = asked();
  never.forced.tiny = 0;
  EXPECT_FALSE(plan_frame(plan_load(tiny, 1024, 1024, never), tiny, never, kTiles, false, Animation::None).tiny);
}

// The built-in scenes' facts, and what the plan makes of them at 1024x1024 (the choices
// `circles list` and docs/ARCHITECTURE.md describe).
TEST(BinnedPlan, BuiltInScenesGetTheirKernels) {
  struct Case {
    const char* scene;
    bool direct;
    int rows, compose;
    bool tiny;
  };
  for (const Case& c : {Case{"rand10k", true, 4, 1, false}, Case{"rand100k", false, 4, 1, false},
                        Case{"rand1M", false, 8, 0, false}, Case{"micro2M", false, 0, 0, true},
                        Case{"biglittle", true, 4, 1, false}, Case{"pattern", true, 4, 1, false},
                        Case{"snow", false, 2, 0, false}}) {
    const Scene scene = make_builtin_scene(c.scene);
    const SceneFacts f = scene_facts(scene, 1024, 1024);
    EXPECT_EQ(f.circles, scene.circles.size());
    const LoadPlan l = plan_load(f, 1024, 1024, asked());
    const FramePlan p = plan_frame(l, f, asked(), kTiles, false, scene.animation);
    EXPECT_EQ(p.direct, c.direct) << c.scene << ": " << p.why;
    EXPECT_EQ(p.rows, c.rows) << c.scene;
    EXPECT_EQ(p.compose, c.compose) << c.scene;
    EXPECT_EQ(p.tiny, c.tiny) << c.scene;
    EXPECT_EQ(p.mode, Mode::Exact) << c.scene;
  }
}

}  // namespace
}  // namespace circles::binned
