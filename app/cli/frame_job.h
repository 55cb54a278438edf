// The options `circles render` and `circles check` share (scene, renderer, size, frames, seed,
// the renderer's settings) and their resolution, up front, so a bad flag fails before any work:
// one process or each MPI rank alike.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "app/common/args.h"
#include "render/builtin_scenes.h"
#include "render/renderer.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace circles {

struct FrameJob {
  std::string scene = kDefaultScene;
  std::string renderer;
  std::string size;
  std::string frames;
  std::uint64_t seed = kDefaultSeed;
  RendererSettings settings;
  CLI::Option* renderer_opt = nullptr;
  int copies = 1;  // images held at once (check: the renderer's and cpu-ref's)
  // Checks the command's output paths, called before the scene is loaded (a big scene file takes
  // seconds) with the first frame and whether there are several: --frames' where given, else
  // frame 0 of one (the paths' folders are what can fail; the files are checked again once the
  // scene's own frame is known).
  std::function<void(std::int64_t first, bool several)> check_outputs;
  // Under MPI: whether this process prints the notes (rank 0 does), how many processes of this
  // host share its memory, and the pixels this one holds (a band's; unset: the whole frame's).
  bool notes = true;
  int host_ranks = 1;
  std::function<double(int width, int height)> held_pixels;
  // The largest side -s takes, and where larger ones go (a phrase for the error; "": nowhere).
  int max_side = kMaxSide;
  std::string beyond_max;

  void add_to(CLI::App* cmd);
  // Resolves everything up front, so a bad flag fails before any work is done.
  void resolve(Scene* s, int* w, int* h, std::int64_t* first, std::int64_t* last);
};

}  // namespace circles
