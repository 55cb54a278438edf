// The renderer ladder: the one list of rungs from cuda-naive through cuda-tile-scan to each of
// cuda-tile-binned's optimisations, each rung a renderer and the settings that turn one thing on
// over the rung below. `circles ladder` times and checks them (app/cli/ladder.cpp), the viewer's
// Renderer panel picks them, docs/LADDER.md explains them, the tests check the list.
#pragma once
#include <string>
#include <vector>

#include "render/renderer.h"

namespace circles {

struct Rung {
  std::string name;      // what users type: "eight-rows"
  std::string renderer;  // a name in the renderer registry
  RendererSettings settings;
  std::string adds;      // one line: what it turns on over the rung below
  std::string source;    // the file where that lives
  // The rung its time is compared with ("" for the first): the one below, except for a mode,
  // which is compared with the exact rung it speeds up.
  std::string base;
};

// Bottom first; the exact rung at the top of the exact rungs is cuda-tile-binned's default.
const std::vector<Rung>& renderer_ladder();
// nullptr when no rung has that name.
const Rung* find_rung(const std::string& name);
// The rungs named (comma-separated names given as a list), in ladder order; empty: all. Throws
// std::invalid_argument naming the rungs there are for an unknown one.
std::vector<const Rung*> select_rungs(const std::vector<std::string>& names);
// The rung that `renderer` with `settings` (resolved, as the registry's resolve_settings gives
// them) is, or nullptr: how the viewer names what it shows.
const Rung* rung_of(const std::string& renderer, const RendererSettings& settings);
// "cuda-tile-binned --binned-strategy binned --binned-rows 4 ...": the command-line options that
// give the rung with `circles render` or `circles bench`.
std::string rung_options(const Rung& rung);

}  // namespace circles
