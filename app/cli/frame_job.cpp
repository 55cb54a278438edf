// The options render and check share, and their resolution (app/cli/frame_job.h).
#include "app/cli/frame_job.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <stdexcept>

#include "app/cli/cli.h"
#include "app/common/registry.h"

namespace circles {

void FrameJob::add_to(CLI::App* cmd) {
  cmd->add_option("SCENE", scene, "built-in scene name (see `circles list`) or scene file path")
      ->capture_default_str();
  renderer_opt = cmd->add_option("-r,--renderer", renderer,
                                 "renderer (see `circles list`); default: " + default_renderer_name());
  cmd->add_option("-s,--size", size, "output size WxH; default: the scene's size (1024x1024 for built-ins)");
  cmd->add_option("--frames", frames,
                  "animation frames A:B (frames A..B-1) or A; default: the scene's current frame");
  cmd->add_option("--seed", seed, "seed for built-in scenes")->capture_default_str()->check(seed_check());
  add_settings_options(cmd, &settings);
}

void FrameJob::resolve(Scene* s, int* w, int* h, std::int64_t* first, std::int64_t* last) {
  if (renderer_opt && renderer_opt->count() && renderer.empty())
    throw std::invalid_argument("-r/--renderer is empty: name a renderer (see `circles list`)");
  if (renderer.empty()) renderer = default_renderer_name();
  const RendererInfo* info = find_renderer(renderer);
  if (!info) make_renderer(renderer);  // throws with the list of names
  // A setting the renderer cannot take is a mistake on any machine: said before availability.
  settings = resolve_settings(*info, settings);
  const std::string why = unavailable_reason(*info);
  if (!why.empty()) throw std::invalid_argument("renderer '" + renderer + "' is unavailable: " + why);
  if (!frames.empty()) parse_frames(frames, first, last);
  if (!size.empty()) parse_size(size, w, h, max_side, beyond_max);
  if (check_outputs) check_outputs(frames.empty() ? 0 : *first, !frames.empty() && *last - *first > 1);
  if (const std::string note = scene_source_note(scene); !note.empty() && notes)
    std::fprintf(stderr, "circles: note: %s\n", note.c_str());
  *s = load_scene(scene, seed);
  if (size.empty()) *w = s->width, *h = s->height;
  // Known costs are announced, and refused when they cannot fit, before the work starts.
  char what[96];
  std::snprintf(what, sizeof what, "%dx%d with %zu circles", *w, *h, s->circles.size());
  const double pixels = held_pixels ? held_pixels(*w, *h) : static_cast<double>(*w) * *h;
  check_host_memory(host_ranks * copies * render_memory_bytes(pixels, static_cast<double>(s->circles.size())), what,
                    notes ? "circles" : nullptr);
  if (frames.empty()) *first = s->frame, *last = s->frame + 1;
  if (*first < s->frame)
    throw std::invalid_argument("frame " + std::to_string(*first) + " is before the scene's frame " +
                                std::to_string(s->frame) + " (animations only run forward)");
}

}  // namespace circles
