// The renderer ladder's list (app/common/ladder.h) without a GPU: every rung names a renderer of
// the registry with settings it takes, changes something over the rung below, compares with a
// rung below it, and the exact rungs end at cuda-tile-binned's default.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "app/common/ladder.h"
#include "app/common/registry.h"

namespace circles {
namespace {

TEST(Ladder, EveryRungIsARegisteredRendererWithSettingsItTakes) {
  const std::vector<Rung>& ladder = renderer_ladder();
  ASSERT_GE(ladder.size(), 10u);
  EXPECT_EQ(ladder.front().renderer, "cuda-naive");
  std::set<std::string> names, options;
  for (const Rung& r : ladder) {
    EXPECT_TRUE(names.insert(r.name).second) << "two rungs named " << r.name;
    const RendererInfo* info = find_renderer(r.renderer);
    ASSERT_NE(info, nullptr) << r.name;
    EXPECT_TRUE(info->needs_gpu) << r.name;
    EXPECT_NO_THROW(resolve_settings(*info, r.settings)) << r.name;
    // Each rung turns something on: no two give the same command line.
    EXPECT_TRUE(options.insert(rung_options(r)).second) << r.name << ": " << rung_options(r);
    EXPECT_FALSE(r.adds.empty()) << r.name;
    EXPECT_FALSE(r.source.empty()) << r.name;
  }
}

TEST(Ladder, EachRungComparesWithARungBelowIt) {
  const std::vector<Rung>& ladder = renderer_ladder();
  EXPECT_TRUE(ladder.front().base.empty());
  for (std::size_t k = 1; k < ladder.size(); ++k) {
    bool below = false;
    for (std::size_t j = 0; j < k; ++j) below = below || ladder[j].name == ladder[k].base;
    EXPECT_TRUE(below) << ladder[k].name << " compares with '" << ladder[k].base << "'";
  }
}

TEST(Ladder, TheExactRungsEndAtCudaTileBinnedsDefault) {
  // The last exact rung is cuda-tile-binned as `circles render` runs it with no option; the two
  // rungs above it are its fast modes, each compared with it.
  const std::vector<Rung>& ladder = renderer_ladder();
  const Rung* top = nullptr;
  for (const Rung& r : ladder)
    if (!r.settings.early_exit && !r.settings.half_colour) top = &r;
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->renderer, "cuda-tile-binned");
  const RendererInfo* info = find_renderer("cuda-tile-binned");
  const RendererSettings mine = resolve_settings(*info, top->settings), plain = resolve_settings(*info, {});
  EXPECT_EQ(mine.tile_size, plain.tile_size);
  EXPECT_EQ(mine.scan, plain.scan);
  EXPECT_FALSE(mine.binned.any()) << rung_options(*top);
  const Rung* half = find_rung("half-colour");
  const Rung* early = find_rung("early-exit");
  ASSERT_TRUE(half && early);
  EXPECT_EQ(half->base, top->name);
  EXPECT_EQ(early->base, top->name);
  EXPECT_TRUE(half->settings.half_colour);
  EXPECT_TRUE(early->settings.early_exit);
}

TEST(Ladder, RungsAreSelectedInLadderOrderAndUnknownOnesNamed) {
  const std::vector<const Rung*> two = select_rungs({"tiny", "naive"});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0]->name, "naive");
  EXPECT_EQ(two[1]->name, "tiny");
  EXPECT_EQ(select_rungs({}).size(), renderer_ladder().size());
  try {
    select_rungs({"naive", "warp-culls"});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no rung 'warp-culls' (rungs: naive, tile-scan, warp-cull,"), std::string::npos) << m;
  }
}

TEST(Ladder, ARendererAndItsSettingsAreNamedByTheirRung) {
  const RendererInfo* binned = find_renderer("cuda-tile-binned");
  for (const Rung& r : renderer_ladder()) {
    const Rung* found = rung_of(r.renderer, resolve_settings(*find_renderer(r.renderer), r.settings));
    ASSERT_NE(found, nullptr) << r.name;
    EXPECT_EQ(found->name, r.name);
  }
  EXPECT_EQ(rung_of("cuda-tile-binned", resolve_settings(*binned, {}))->name, "tiny");
  RendererSettings off = find_rung("sorted")->settings;
  off.binned.block = 64;  // no rung forces a block size
  EXPECT_EQ(rung_of("cuda-tile-binned", resolve_settings(*binned, off)), nullptr);
  EXPECT_EQ(rung_of("cpu-ref", {}), nullptr);
  EXPECT_EQ(rung_of("no-such-renderer", {}), nullptr);
}

TEST(Ladder, RungOptionsSayHowToRunARungAlone) {
  EXPECT_EQ(rung_options(*find_rung("naive")), "-r cuda-naive");
  EXPECT_EQ(rung_options(*find_rung("sorted")),
            "-r cuda-tile-binned --tile-size 32 --scan scan-blelloch-global --binned-strategy binned --binned-sort "
            "--binned-rows 2 --binned-compose 0 --binned-tiny 0");
  EXPECT_EQ(rung_options(*find_rung("early-exit")), "-r cuda-tile-binned --tile-size 32 --early-exit");
}

}  // namespace
}  // namespace circles
