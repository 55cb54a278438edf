// cuda-tile-binned's shade table (kernels/renderers/binned/shade_table.cu) against its plan,
// without a GPU: every variant a frame's plan can ask for has a kernel, and every kernel is
// asked for by some plan. The plans walked: both tiles, both modes, half colour or not, flat
// circles of every size class and snow, shallow and deep, every forced choice, counted or not,
// still and animated, few tiles and many.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "binned_facts.h"
#include "kernels/renderers/binned/plan.h"

namespace circles::binned {
namespace {

using test::facts;

TEST(ShadeTable, EveryVariantAPlanAsksForHasAKernelAndEveryKernelIsAskedFor) {
  const std::vector<ShadeVariant> table = shade_table_variants();
  ASSERT_FALSE(table.empty());
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = i + 1; j < table.size(); ++j)
      EXPECT_FALSE(table[i] == table[j]) << "twice in the table: " << table[i].name();
  std::set<std::string> asked_for, missing;
  int plans = 0;
  using S = BinnedChoices::Strategy;
  for (int tile : {kSmallTile, kLargeTile})
    for (bool early : {false, true})
      for (bool half : {false, true})
        for (Shading shading : {Shading::Flat, Shading::Snow})
          for (float r : {0.8f, 1.5f, 3.f, 10.f, 20.f, 50.f, 100.f, 2000.f})
            for (std::size_t n : {std::size_t{10}, std::size_t{100000}})
              for (int rows : {0, 2, 4, 8})
                for (int compose : {-1, 0, 1, 2})
                  for (int tiny : {-1, 0, 1})
                    for (S strategy : {S::Choose, S::Direct, S::Binned})
                      for (bool force_early : {false, true}) {
                        Asked a;
                        a.tile = tile;
                        a.early = early;
                        a.half = half;
                        a.forced.rows = rows;
                        a.forced.compose = compose;
                        a.forced.tiny = tiny;
                        a.forced.strategy = strategy;
                        a.forced.force_early = force_early;
                        const SceneFacts f = facts(n, r, shading);
                        const LoadPlan load = plan_load(f, 1024, 1024, a);
                        for (unsigned long long tiles : {16ull, 1024ull, 8160ull})
                          for (bool counting : {false, true})
                            for (Animation anim : {Animation::None, Animation::BouncingBalls, Animation::Snow}) {
                              if ((anim == Animation::Snow) != (shading == Shading::Snow)) continue;
                              const FramePlan p = plan_frame(load, f, a, tiles, counting, anim);
                              // The step is fused where the plan says so and the scene moves.
                              const bool step = p.fused_step && anim != Animation::None;
                              const ShadeVariant v = shade_variant(p, load, shading, tile, counting, !p.direct, step);
                              ++plans;
                              bool found = false;
                              for (const ShadeVariant& t : table) found = found || t == v;
                              if (found) asked_for.insert(v.name());
                              else missing.insert(v.name());
                            }
                      }
  EXPECT_GT(plans, 100000);
  for (const std::string& m : missing) ADD_FAILURE() << "a plan asks for a variant with no kernel: " << m;
  for (const ShadeVariant& t : table)
    EXPECT_TRUE(asked_for.count(t.name())) << "a kernel no plan asks for: " << t.name();
}

TEST(ShadeTable, VariantsAreNamedByWhatTheyDraw) {
  ShadeVariant v;
  v.tile = 32;
  v.rows = 4;
  v.groups = true;
  EXPECT_EQ(v.name(), "warps tile 32, flat, exact, compose 0, 4 rows, groups");
  ShadeVariant r8;
  r8.walk = ShadeWalk::Rows8;
  r8.half = true;
  r8.count = true;
  EXPECT_EQ(r8.name(), "rows8 tile 32, half, counting");
}

}  // namespace
}  // namespace circles::binned
