// The `circles` command line: list, render, check, scene save, bench (and view, with the GUI).
#include "app/cli/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "app/cli/bench.h"
#include "app/cli/failure.h"
#include "app/cli/frame_job.h"
#include "app/cli/ladder.h"
#include "app/cli/video_out.h"
#include "app/cli/mpi_launch.h"
#include "app/cli/mpi_render.h"
#include "app/cli/lab_cli.h"
#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/cpu_renderers.h"
#include "render/output_file.h"
#include "render/png.h"
#include "app/common/registry.h"
#include "kernels/renderers/config.h"
#include "render/scene_io.h"
#include "render/stats.h"
#include "render/units.h"
#if CIRCLES_HAVE_GUI
#include "app/viewer/viewer.h"
#endif

namespace circles {

CLI::Validator frame_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string why = frame_number_error(text, kMaxFrame);
        return why.empty() ? "" : "a frame is a whole number 0.." + std::to_string(kMaxFrame) + ", not '" + text + "'";
      },
      "0..2^62");
}

const char* const kExitCodes =
    "Exit codes: 0 success; 1 the work failed (a scene file that cannot be read, a check that found a "
    "difference, a kernel-lab variant that was WRONG, a ladder rung that broke its promise, no GPU for the "
    "lab or the ladder, an output whose writing failed); "
    "2 a command-line mistake (unknown command, option, scene or variant; a renderer unknown or unavailable "
    "here; a bad size or option value; an output path refused before any work: empty, a directory, or in a "
    "directory that is missing or not writable).";

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
          return "a seed is a whole number 0..18446744073709551615, not '" + text + "'";
        errno = 0;
        std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return "a seed is at most 18446744073709551615, not " + text;
        return "";
      },
      "0..2^64-1");
}

CLI::Validator finite_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v)) return "expected a finite number, not '" + text + "'";
        return "";
      },
      "");
}

void add_settings_options(CLI::App* cmd, RendererSettings* s) {
  cmd->add_option("--tile-size", s->tile_size,
                  "tile side in pixels, for renderers with tiles (see `circles list`); default: the renderer's")
      ->check(CLI::Range(1, 4096));  // 0 stands for "not given"
  cmd->add_option("--batch-size", s->batch_size,
                  "circles culled per batch, for cuda-tile-scan (see `circles list`); default: one per thread")
      ->check(CLI::Range(1, 4096));
  // Which renderers take one, from the registry; the names are in `circles list`.
  std::string takers;
  for (const RendererInfo& r : renderer_registry())
    if (!r.scans.empty()) takers += (takers.empty() ? "" : ", ") + r.name + " (default " + r.scans.front() + ")";
  cmd->add_option("--scan", s->scan,
                  "the scan algorithm, by name, for " + takers + "; every name: `circles list`");
  std::string early;
  for (const RendererInfo& r : renderer_registry())
    if (r.early_exit) early += (early.empty() ? "" : ", ") + r.name;
  cmd->add_flag("--early-exit", s->early_exit,
                "for " + early + ": composite front to back from the last circle and stop each pixel once what "
                "lies below can move no 8-bit channel (the 8-bit picture is cpu-ref's within one step per channel)");
  std::string half;
  for (const RendererInfo& r : renderer_registry())
    if (r.half_colour) half += (half.empty() ? "" : ", ") + r.name;
  cmd->add_flag("--half-colour", s->half_colour,
                "for " + half + ": blend R, G and B in half precision where deep flat scenes allow it (faster; "
                "within 2^-10 of cpu-ref instead of its exact bits; the frame's plan, in bench and the viewer, "
                "says which frames do)");
  // cuda-tile-binned's own choices, forced: for tests and experiments (each default lets it choose
  // per frame; the plan says what it chose).
  const std::string group = "cuda-tile-binned's choices, forced (tests, experiments)";
  cmd->add_option_function<std::string>(
         "--binned-strategy",
         [s](const std::string& v) {
           s->binned.strategy = v == "direct" ? BinnedChoices::Strategy::Direct : BinnedChoices::Strategy::Binned;
         },
         "direct|binned: walk every circle in every tile, or bin the circles into tiles first")
      ->check(CLI::IsMember({"direct", "binned"}))
      ->group(group);
  cmd->add_option("--binned-max-pairs", s->binned.max_pairs,
                  "a chunk's budget of circle-tile pairs (1: a chunk per tile's worth of pairs)")
      ->check(CLI::Range(1ull, 1ull << 40))
      ->group(group);
  cmd->add_option("--binned-rows", s->binned.rows, "2|4|8: pixels a lane of exact frames at tile 32, at most (8, the default: the "
                  "eight-pixel walk where the plan takes it; 4: the four-pixel walk there instead)")->group(group);
  cmd->add_flag("--binned-force-early", s->binned.force_early,
                "with --early-exit: take it where the scene would hardly settle (never where its bound fails)")
      ->group(group);
  cmd->add_flag("--binned-sort", s->binned.sort, "bin by CUB's radix sort even where counting fits")->group(group);
  cmd->add_option("--binned-block", s->binned.block,
                  "bin by counting in blocks of this many circles (32..1024, rounded down to a power of two)")
      ->group(group);
  cmd->add_option("--binned-compose", s->binned.compose,
                  "0|1|2: runs of circles composed: none, covering a warp's box, also a tile (exact frames: at "
                  "most 1)")
      ->group(group);
  cmd->add_option("--binned-tiny", s->binned.tiny, "0|1: binned exact flat frames through the tiny-circle kernel")
      ->group(group);
  cmd->add_flag("--binned-few-scatter", s->binned.few_scatter,
                "a chunk shaded ahead of its count takes the scatter's smaller sort")
      ->group(group);
}

namespace {

int cmd_list() {
  std::printf("Scenes (built-in; or give a scene file path, see docs/FORMAT.md):\n");
  for (const SceneInfo& s : scene_registry())
    std::printf("  %-14s %9zu circles  %s\n", s.name.c_str(), s.circle_count, s.description.c_str());
  std::printf("\nRenderers (default here: %s):\n", default_renderer_name().c_str());
  for (const RendererInfo& r : renderer_registry()) {
    const std::string why = unavailable_reason(r);
    std::string knobs;
    auto list_of = [](const std::vector<int>& v) {
      std::string out;
      for (int x : v) out += (out.empty() ? "" : "|") + std::to_string(x);
      return out;
    };
    if (!r.tile_sizes.empty()) knobs += "  --tile-size " + list_of(r.tile_sizes);
    if (!r.batch_sizes.empty()) knobs += "  --batch-size " + list_of(r.batch_sizes) + " (<= tile^2)";
    std::printf("  %-16s %s\n  %-16s source: %s%s\n", r.name.c_str(), r.description.c_str(), "",
                r.source.c_str(), knobs.c_str());
    if (!r.scans.empty()) {
      std::string scans;
      for (const std::string& name : r.scans) scans += (scans.empty() ? "" : "|") + name;
      std::printf("  %-16s --scan %s (default %s)\n", "", scans.c_str(), r.scans.front().c_str());
    }
    if (r.early_exit) std::printf("  %-16s --early-exit\n", "");
    if (r.half_colour) std::printf("  %-16s --half-colour\n", "");
    if (!why.empty()) std::printf("  %-16s UNAVAILABLE: %s\n", "", why.c_str());
  }
  std::printf("\nModes, and what each promises against cpu-ref (a fast mode is taken only where the scene lets it "
              "keep its promise; the plan says when it is not):\n");
  std::printf("  %-12s %-14s %s\n", "exact", "(default)", mode_promise(Mode::Exact));
  std::printf("  %-12s %-14s %s\n", "half colour", "--half-colour", mode_promise(Mode::HalfColour));
  std::printf("  %-12s %-14s %s\n", "early exit", "--early-exit", mode_promise(Mode::EarlyExit));
  // cuda-tile-binned picks its strategy per frame from the circles and tiles; at the built-in
  // scenes' size and its default tile, this is what it picks and why.
  const RendererInfo* binned = find_renderer("cuda-tile-binned");
  const int tile = binned && !binned->tile_sizes.empty() ? binned->tile_sizes.front() : 32;
  const long long tiles = static_cast<long long>((1024 + tile - 1) / tile) * ((1024 + tile - 1) / tile);
  std::printf("\ncuda-tile-binned's strategy per built-in scene at 1024x1024, tile %d, exact mode (early exit "
              "also walks directly when up to %lld flat circles have a median radius of %.0f pixels or more):\n",
              tile, kEarlyDirectMaxCircles, kEarlyDirectMinRadiusPixels);
  for (const SceneInfo& s : scene_registry()) {
    const BinnedStrategy b = binned_strategy(static_cast<long long>(s.circle_count), tiles);
    std::printf("  %-14s %-7s %s\n", s.name.c_str(), b.direct ? "direct" : "binned", b.reason.c_str());
  }
  return 0;
}

// Every frame into one video file (-o NAME.mp4 or .webm): ffmpeg encodes them as they are drawn.
int render_video(FrameJob& job, const std::string& path, double fps) {
  job.check_outputs = [&](std::int64_t, bool) { check_output_path(path, "-o"); };
  Scene scene;
  int w = 0, h = 0;
  std::int64_t first = 0, last = 1;
  job.resolve(&scene, &w, &h, &first, &last);
  check_video(path, w, h, fps);
  check_output_path(path, "-o");
  std::unique_ptr<Renderer> r = make_renderer(job.renderer, job.settings);
  VideoWriter video(path, w, h, fps);
  Image img;
  Progress progress("render " + job.scene, static_cast<double>(last - first));
  run_frames(*r, scene, w, h, first, last, [&](std::int64_t) {
    r->read_image(&img);
    video.add(img);
  }, &progress, "render " + job.scene);
  video.finish();
  progress.clear();
  std::fprintf(stderr, "%s: frames %" PRId64 "..%" PRId64 " (%dx%d, %s) at %g frames a second -> %s\n",
               job.scene.c_str(), first, last - 1, w, h, job.renderer.c_str(), fps, path.c_str());
  return 0;
}

int cmd_render(FrameJob& job, const std::string& out_pattern, bool out_given, const std::string& mpi_mode,
               double fps) {
  std::string pattern = out_pattern;
  if (!out_given) {
    const std::string stem = std::filesystem::path(job.scene).stem().string();
    pattern = (find_scene(job.scene) ? job.scene : stem.empty() ? std::string("out") : stem) + ".png";
  }
  // A bad pattern, an empty -o or an unwritable place fails before any work.
  if (pattern.empty()) throw std::invalid_argument("-o is empty: give a file name");
  if (is_video_path(pattern)) {
    if (!mpi_mode.empty() || mpi_launch().launched)
      throw std::invalid_argument("-o " + pattern + ": a video is written by one process; under MPI render PNG frames");
    return render_video(job, pattern, fps);
  }
  // Under mpirun (or with --mpi): the frames or the rows over the ranks (docs/SCALE.md).
  if (have_mpi()) job.beyond_max = "up to " + std::to_string(kMaxBandsSide) + " over MPI ranks: --mpi bands";
  if (!mpi_mode.empty() || mpi_launch().launched) return render_over_mpi(job, pattern, mpi_mode);
  job.check_outputs = [&](std::int64_t f, bool several) { check_output_path(frame_path(pattern, f, several), "-o"); };
  Scene scene;
  int w = 0, h = 0;
  std::int64_t first = 0, last = 1;
  job.resolve(&scene, &w, &h, &first, &last);
  const bool several = last - first > 1;
  const std::string first_path = frame_path(pattern, first, several);
  const std::string last_path = frame_path(pattern, last - 1, several);
  check_output_path(first_path, "-o");
  if (several)
    std::fprintf(stderr, "%s: %" PRId64 " frames -> %" PRId64 " files, %s ... %s\n", job.scene.c_str(),
                 last - first, last - first, first_path.c_str(), last_path.c_str());
  std::unique_ptr<Renderer> r = make_renderer(job.renderer, job.settings);
  Image img;
  Progress progress("render " + job.scene, static_cast<double>(last - first));
  run_frames(*r, scene, w, h, first, last, [&](std::int64_t f) {
    r->read_image(&img);
    const std::string path = frame_path(pattern, f, several);
    try {
      write_png(path, img);
    } catch (const std::runtime_error& e) {
      if (!several) throw;
      // Say which frame failed and what became of the others.
      const std::string done = f > first ? "frames " + std::to_string(first) + ".." + std::to_string(f - 1) +
                                               " were written (" + first_path + " ... " +
                                               frame_path(pattern, f - 1, several) + ")"
                                         : "no frame was written";
      throw std::runtime_error(std::string(e.what()) + "; frame " + std::to_string(f) + " failed, " + done +
                               ", frames " + std::to_string(f) + ".." + std::to_string(last - 1) +
                               " were not written");
    }
    char line[512];
    std::snprintf(line, sizeof line, "%s: frame %" PRId64 " (%dx%d, %s) -> ", job.scene.c_str(), f, w, h,
                  job.renderer.c_str());
    progress.message(line + path);
  }, &progress, "render " + job.scene);
  return 0;
}

}  // namespace

bool check_frame(const Image& ref, const Image& test, float tolerance, const std::string& label,
                 const std::string& diff_path, bool exact_bytes, const Mode* mode) {
  const Comparison c = compare_images(ref, test, tolerance);
  const std::string broken = mode ? promise_broken(*mode, ref, test) : "";
  const bool ok = (mode ? broken.empty() : c.passed()) && (!exact_bytes || c.same_bytes());
  std::string rule = mode ? std::string(mode_name(*mode)) + " mode: " + mode_promise(*mode) : "";
  if (exact_bytes) rule += std::string(rule.empty() ? "" : "; ") + "--exact-bytes";
  std::printf("%s vs cpu-ref: %s%s: %s\n", label.c_str(), ok ? "PASS" : "FAIL",
              rule.empty() ? "" : (" (" + rule + ")").c_str(), c.summary().c_str());
  if (!broken.empty()) std::printf("  %s\n", broken.c_str());
  if (!ok) {
    write_png(diff_path, difference_image(ref, test, 16.f));
    std::printf("  difference (x16) written to %s\n", diff_path.c_str());
  }
  std::fflush(stdout);
  return ok;
}

namespace {

// With --tolerance, frames pass within it; without, each frame passes when it keeps the promise of
// the mode the renderer drew it in (Renderer::mode).
int cmd_check(FrameJob& job, float tolerance, bool tolerance_given, const std::string& diff_pattern, bool exact_bytes) {
  Scene scene;
  int w = 0, h = 0;
  std::int64_t first = 0, last = 1;
  job.copies = 2;
  job.check_outputs = [&](std::int64_t f, bool several) {
    check_output_path(frame_path(diff_pattern, f, several), "--diff");
  };
  job.resolve(&scene, &w, &h, &first, &last);
  check_output_path(frame_path(diff_pattern, first, last - first > 1), "--diff");  // before any work
  std::unique_ptr<Renderer> ref = make_renderer("cpu-ref");
  std::unique_ptr<Renderer> test = make_renderer(job.renderer, job.settings);
  Progress progress("check " + job.scene, static_cast<double>(last - first));
  ref->load(scene, w, h);
  seek_frames(*ref, scene, first, &progress);
  bool all_ok = true;
  Image a, b;
  run_frames(*test, scene, w, h, first, last, [&](std::int64_t f) {
    if (f > first) ref->advance();
    ref->render();
    ref->read_image(&a);
    test->read_image(&b);
    progress.clear();  // stdout's result line goes where it stood
    char label[512];
    std::snprintf(label, sizeof label, "%s frame %" PRId64 " %dx%d %s", job.scene.c_str(), f, w, h,
                  job.renderer.c_str());
    const Mode mode = test->mode();
    if (!check_frame(a, b, tolerance, label, frame_path(diff_pattern, f, last - first > 1), exact_bytes,
                     tolerance_given ? nullptr : &mode))
      all_ok = false;
  }, &progress, "check " + job.scene);
  return all_ok ? 0 : 1;
}

int cmd_scene_save(const std::string& name, const std::string& path, std::int64_t frame,
                   std::uint64_t seed) {
  if (const std::string note = scene_source_note(name); !note.empty())
    std::fprintf(stderr, "circles: note: %s\n", note.c_str());
  Scene s = load_scene(name, seed);
  if (frame < 0) frame = s.frame;
  if (frame < s.frame)
    throw std::invalid_argument("frame " + std::to_string(frame) + " is before the scene's frame " +
                                std::to_string(s.frame));
  check_output_path(path, "FILE");
  {
    Progress progress("scene save " + name, 1);
    advance_scene(&s, frame - s.frame, &progress);
  }
  save_scene_file(s, path);
  std::fprintf(stderr, "%s: frame %" PRId64 ", %zu circles -> %s\n", name.c_str(), s.frame,
               s.circles.size(), path.c_str());
  return 0;
}

// Loads `name` `repeat` times and prints what it holds and the median load time: a binary scene
// from the page cache is mapped, not parsed (docs/BENCHMARKS.md, "Loading scenes").
int cmd_scene_info(const std::string& name, int repeat) {
  if (const std::string note = scene_source_note(name); !note.empty())
    std::fprintf(stderr, "circles: note: %s\n", note.c_str());
  std::vector<double> ms;
  Scene s;
  for (int i = 0; i < repeat; ++i) {
    s = Scene{};  // the previous load is released first, as a fresh process would have it
    const auto t0 = std::chrono::steady_clock::now();
    s = load_scene(name, kDefaultSeed);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const Background& bg = s.background;
  std::printf("%s: %zu circles%s, %dx%d, background %s, shading %s, animation %s, seed %" PRIu64 ", frame %" PRId64 "\n",
              name.c_str(), s.circles.size(), s.has_velocity ? " with velocities" : "", s.width, s.height,
              bg.kind == Background::Kind::Solid ? "solid" : "gradient", to_string(s.shading),
              to_string(s.animation), s.seed, s.frame);
  std::printf("load: median %.3f ms of %d (min %.3f, max %.3f)\n", median(ms), repeat,
              *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()));
  return 0;
}

}  // namespace

namespace {

// An option given an empty value ("-s ''", "--json ''") is a mistake, never "the default": CLI11
// takes "" as a value and most options would then quietly do their default (or nothing). Throws
// std::invalid_argument naming the first such option of the command that ran.
void refuse_empty_values(const CLI::App& app) {
  std::string command = "circles";
  for (const CLI::App* cmd = &app; cmd;) {
    if (cmd != &app) command += " " + cmd->get_name();
    for (const CLI::Option* opt : cmd->get_options()) {
      if (opt->count() == 0 || opt->get_expected_min() == 0) continue;  // not given, or a flag
      for (const std::string& v : opt->results())
        if (v.empty()) throw std::invalid_argument(opt->get_name() + " is empty: give a value (" + command + " --help)");
    }
    const std::vector<const CLI::App*> ran = cmd->get_subcommands([](const CLI::App* c) { return c->parsed(); });
    cmd = ran.empty() ? nullptr : ran.front();
  }
}

}  // namespace

int run_cli(int argc, const char* const* argv) {
  // Under mpirun every rank parses the same command line: rank 0 alone says what is wrong with it.
  const bool speaks = mpi_launch().rank == 0;
  CLI::App app{"circles: renders many alpha-blended circles, in order, on the GPU or the CPU"};
  app.set_version_flag("--version", "circles 0.1");
  app.require_subcommand(1);

  CLI::App* list = app.add_subcommand("list", "list built-in scenes and renderers (with availability)");

  FrameJob render_job;
  std::string out;
  CLI::App* render = app.add_subcommand("render", "render a scene to PNG (one file per frame)");
  render_job.add_to(render);
  CLI::Option* out_opt = render->add_option("-o,--output", out,
                     "PNG path; default SCENE.png here (a scene file's name without its folder and extension). "
                     "Several frames: a printf pattern (f%04d.png) or NAME-NNNN.png; or one video of them all, "
                     "NAME.mp4 (H.264) or NAME.webm (VP9), through the ffmpeg program");
  double fps = 30;
  render->add_option("--fps", fps, "frames a second of a video (-o NAME.mp4 or .webm)")->capture_default_str();
  std::string mpi_mode;
  render->add_option("--mpi", mpi_mode,
                     std::string("frames|bands|circles, under mpirun (docs/SCALE.md): each rank a block of "
                                 "--frames, each file written by its rank; or each frame's rows in bands over the "
                                 "ranks (cpu-ref, cpu-mt), one PNG written by rank 0; frames and bands give the same "
                                 "bytes as one process. circles: each rank a range of the circles, drawn to a layer "
                                 "and composited (cpu-ref, cpu-mt; for scenes too big for one machine), one PNG by "
                                 "rank 0, each 8-bit channel within 1 of cpu-ref's. Default under mpirun: frames "
                                 "where --frames names several, else bands") +
                         (have_mpi() ? "" : " (not in this build: configured without MPI)"))
      ->check(CLI::IsMember({"frames", "bands", "circles"}));

  FrameJob check_job;
  float tolerance = 2e-3f;
  bool exact_bytes = false;
  std::string diff = "check-diff.png";
  CLI::App* check = app.add_subcommand(
      "check", "compare a renderer with cpu-ref: each frame must keep its mode's promise (exact: cpu-ref's floats to "
               "the bit); exit 1 and write a difference image where one does not");
  check_job.add_to(check);
  CLI::Option* tolerance_opt = check->add_option("--tolerance", tolerance,
                    "pass when no channel's float differs by more than this (0..1; relative where cpu-ref's value "
                    "is above 1), instead of the frame's mode's promise (exact: cpu-ref's floats to the bit; half "
                    "colour: within 2^-10; early exit: within one 8-bit step)")
      ->check(finite_check() & CLI::Range(0.f, 1.f));
  check->add_flag("--exact-bytes", exact_bytes,
                  "also fail on any 8-bit value (what a PNG file holds) that differs from cpu-ref's: exact mode's "
                  "promise");
  check->add_option("--diff", diff, "where to write the difference image on failure")
      ->capture_default_str();

  CLI::App* scene_cmd = app.add_subcommand("scene", "scene file tools");
  scene_cmd->require_subcommand(1);
  std::string save_name, save_path;
  std::int64_t save_frame = -1;  // the scene's own frame
  std::uint64_t save_seed = kDefaultSeed;
  CLI::App* save = scene_cmd->add_subcommand("save", "write a built-in scene (at any frame) as a scene file");
  save->add_option("NAME", save_name, "built-in scene name or scene file")->required();
  save->add_option("FILE", save_path, "output scene file")->required();
  save->add_option("--frame,--frames", save_frame, "animation frame A to save (default: the scene's own frame)")
      ->check(frame_check());
  save->add_option("--seed", save_seed, "seed for built-in scenes")->capture_default_str()->check(seed_check());

  std::string info_name;
  int info_repeat = 1;
  CLI::App* info = scene_cmd->add_subcommand(
      "info", "load a scene (built-in or file: text, .npz, .npy), say what it holds and how long loading took");
  info->add_option("NAME", info_name, "built-in scene name or scene file")->required();
  info->add_option("--repeat", info_repeat, "loads to time (the median is reported)")
      ->capture_default_str()->check(CLI::Range(1, 1000));

  BenchOptions bench_opt;
  std::string bench_size = "1024x1024";
  CLI::App* bench = app.add_subcommand(
      "bench", "time renderers on scenes: per-frame medians (CUDA events on the GPU, each timed frame followed by one "
               "timed stage by stage for the stage medians)");
  bench->add_option("--scenes", bench_opt.scenes, "scenes (default: every built-in)")->delimiter(',');
  bench->add_option("--renderers", bench_opt.renderers, "renderers (default: every available one)")->delimiter(',');
  bench->add_option("-s,--size", bench_size, "frame size WxH")->capture_default_str();
  bench->add_option("--repeat", bench_opt.repeat, "timed frames per pair (fewer when --max-seconds runs out)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  bench->add_option("--warmup", bench_opt.warmup,
                    "untimed frames first, at least one (a renderer's first frame sizes its buffers; fewer when a "
                    "frame is slow)")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  bench->add_option("--max-seconds", bench_opt.max_seconds,
                    "time budget per scene/renderer pair, warm-up included; a pair takes longer only when a "
                    "single frame does (or for --min-repeat)")
      ->capture_default_str()->check(finite_check() & CLI::Range(0.0, 1e6));
  bench->add_option("--min-repeat", bench_opt.min_repeat, "timed frames per pair even past --max-seconds")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  // --frames names animation frames (render, check, view); here it would be a count. Say so.
  std::string bench_frames;
  bench->add_option("--frames", bench_frames)->group("");
  bench->add_option("--seed", bench_opt.seed, "seed for built-in scenes")->capture_default_str()->check(seed_check());
  bench->add_option("--json", bench_opt.json_path, "also write results as JSON to this file");
  add_settings_options(bench, &bench_opt.settings);
  bench->add_option("--modes", bench_opt.modes,
                    "exact,half-colour,early-exit: the modes to time side by side (half colour and early exit "
                    "where the renderer has them); default exact")
      ->delimiter(',');

  LadderOptions ladder_opt;
  std::string ladder_size = "1024x1024";
  CLI::App* ladder = app.add_subcommand(
      "ladder", "time and check every rung of the renderer ladder on one scene, from cuda-naive through "
                "cuda-tile-scan to each of cuda-tile-binned's optimisations (docs/LADDER.md): a row a rung, with "
                "its speed-up over the rung below, its counted work and its check against cpu-ref");
  ladder->add_option("SCENE", ladder_opt.scene, "built-in scene name or scene file")->required();
  ladder->add_option("-s,--size", ladder_size, "frame size WxH")->capture_default_str();
  ladder->add_option("--rungs", ladder_opt.rungs, "the rungs to run, by name (default: every rung)")->delimiter(',');
  ladder->add_option("--repeat", ladder_opt.repeat, "timed frames a rung (fewer when --max-seconds runs out)")
      ->capture_default_str()->check(CLI::Range(1, 100000));
  ladder->add_option("--warmup", ladder_opt.warmup, "untimed frames first, at least one")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  ladder->add_option("--max-seconds", ladder_opt.max_seconds,
                     "time budget a rung, warm-up included; a rung whose first frame takes more than half of it "
                     "is timed by that one frame")
      ->capture_default_str()->check(finite_check() & CLI::Range(0.0, 1e6));
  ladder->add_option("--seed", ladder_opt.seed, "seed for built-in scenes")->capture_default_str()->check(seed_check());
  ladder->add_option("--json", ladder_opt.json_path, "also write the results as JSON to this file");
  ladder->add_option("--plot", ladder_opt.plot_path, "also write a bar chart of the rungs' times as SVG to this file");

  KernelsOptions kernels_opt;
  CLI::App* kernels = add_kernels_command(app, &kernels_opt);

  // `circles view`: the viewer (docs/VIEWER.md). Without the GUI the subcommand still exists, to
  // say so.
#if CIRCLES_HAVE_GUI
  ViewerOptions view_opt;
  CLI::App* view = app.add_subcommand(
      "view", "interactive viewer: the frame in a window with panels (GLFW + OpenGL); --offscreen runs it "
              "without a display (EGL)");
  view->add_option("SCENE", view_opt.scene, "built-in scene name or scene file path")->capture_default_str();
  view->add_option("-r,--renderer", view_opt.renderer,
                   "renderer (see `circles list`); default: " + default_renderer_name());
  view->add_option("-s,--size", view_opt.size,
                   "WxH. In a window: a fixed render size (default: the largest square in the scene area, which the unit square fills). With "
                   "--offscreen: the window size (default 1280x720)");
  view->add_option("--render-size", view_opt.render_size,
                   "WxH: a fixed render size, letterboxed in the scene area (offscreen too)");
  view->add_option("--seed", view_opt.seed, "seed for built-in scenes")->capture_default_str()->check(seed_check());
  add_settings_options(view, &view_opt.settings);
  view->add_option("--rung", view_opt.rung,
                   "NAME: start on that rung of the renderer ladder (`circles ladder`, docs/LADDER.md): its renderer "
                   "and settings, instead of -r");
  view->add_flag("--count-work", view_opt.count_work,
                 "count each frame's work (pixel tests, blends, pairs) in the Renderer panel, as its \"count work\" "
                 "box does");
  view->add_option("--vsync", view_opt.vsync, "on|off (window only; default on)");
  view->add_flag("--offscreen", view_opt.offscreen,
                 "no window: the same loop and UI on an offscreen EGL context (NVIDIA EGL device, else Mesa "
                 "surfaceless); needs --quit-after; prints a timing summary");
  view->add_option("--quit-after", view_opt.quit_after, "show N frames, then exit (required with --offscreen)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{100000000}));
  view->add_option("--frames", view_opt.frames,
                   "animation frame A to start at (as in render and check); default: the scene's own frame");
  view->add_option("--screenshot", view_opt.screenshot,
                   "after the last frame, write the whole window (panels included) as PNG");
  view->add_option("--export", view_opt.export_png,
                   "after the last frame, write the frame as PNG (the same bytes as `circles render`)");
  view->add_flag("--check", view_opt.check, "after the last frame, compare it with cpu-ref; exit 1 if it differs");
  view->add_flag("--diff-overlay", view_opt.diff_overlay,
                 "with --check: show the difference image in the scene area (and the screenshot)");
  view->add_option("--inspect", view_opt.inspect,
                   "I,J: inspect pixel (I, J) of the first frame (row 0 at the bottom), as a click on it "
                   "would: logged, and shown in the Inspector panel; a pixel outside the frame fails the run "
                   "(exit 1; exit 2 where --render-size fixes the frame)");
  view->add_option("--frame-stats", view_opt.frame_stats,
                   "VARIANT: run that lab reduction (e.g. reduce-shuffle) over every frame of a CUDA renderer "
                   "(mean colour, coverage) and, after the last frame, check it against the CPU (exit 1 if it "
                   "differs)");
  view->add_option("--transpose-view", view_opt.transpose_view,
                   "VARIANT: show the frame mirrored along its diagonal by that lab transpose (e.g. "
                   "transpose-best; a CUDA renderer and a square frame) and, after the last frame, check it "
                   "against the CPU (exit 1 if it differs)");
  view->add_option("--kernels", view_opt.kernels,
                   "FAMILY[:VARIANT,...]: run those lab variants (default: every one that can run live) every "
                   "frame in the Kernels panel; after the last frame log each one's check, median ms and GB/s "
                   "(exit 1 on WRONG, an error, or no GPU)");
  view->add_option("--kernels-size", view_opt.kernels_size,
                   "the Kernels panel's input: hbm (2^26 elements, 256 MiB) or l2 (2^20, 4 MiB)")
      ->capture_default_str();
  view->add_option("--heat", view_opt.heat,
                   "circles | blends | time: show a heat map over the frame (circles per tile, blends per pixel, "
                   "or the shade kernel's clock64 cycles per tile; a CUDA renderer), logged after the last frame");
  view->add_option("--counters", view_opt.counters,
                   "frame | stage:NAME | VARIANT: two frames before the last, read the GPU's counters (CUPTI) for "
                   "the CUDA renderer's whole frame, one of its stages (e.g. stage:scatter), or a lab variant ticked "
                   "with --kernels; logged and shown in the Counters panel (exit 1 if they cannot be read)");
  view->add_flag("--play", view_opt.play, "start playing the animation (default: paused; Space toggles)");
  view->add_option("--speed", view_opt.speed, "frames advanced per displayed frame while playing")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  view->add_flag("--no-interop", view_opt.no_interop,
                 "present CUDA frames through a host copy instead of CUDA-GL interop (also "
                 "CIRCLES_FORCE_NO_INTEROP=1)");
  view->add_option("--present", view_opt.present,
                   "external|surface|pbo: how CUDA-GL interop writes CUDA frames into the GL texture: into memory "
                   "CUDA exports and GL imports once (GL_EXT_memory_object_fd; no per-frame map), copied by "
                   "glTexSubImage2D (the default; the surface path where the driver lacks it); through a surface "
                   "object on the registered texture (mapped each frame); or into a registered pixel buffer copied "
                   "by glTexSubImage2D (mapped each frame). Unused without a CUDA renderer")
      ->capture_default_str();
  view->add_option("--ui-scale", view_opt.ui_scale,
                   "the panels' size and font scale (0.5..4); default: the monitor's content scale in a window, "
                   "1 offscreen")
      ->check(CLI::Range(0.5f, 4.f));
  view->add_option("--font-size", view_opt.font_size, "the panels' font size in pixels (6..64); default 13 x the UI scale")
      ->check(CLI::Range(6.f, 64.f));
  view->add_flag("--open-panels", view_opt.open_panels, "open every panel (a screenshot then shows the whole UI)");
  view->add_flag("--overlap", view_opt.overlap,
                 "queue a CUDA renderer's next frame without waiting for GL to draw the last (and GL's work "
                 "without waiting for CUDA's): frames may come faster, but the GPU then switches between the "
                 "two APIs inside a render stage, whose time includes GL's (default: each waits, and the waits "
                 "are timed as lines of their own)");
  view->add_option("--timeline", view_opt.timeline,
                   "FILE: when the viewer exits, write every frame's work as intervals on one clock (JSON): the "
                   "host's (UI, swap), CUDA's (the render's and interop's stages) and GL's (upload, present, UI); "
                   "scripts/plot_timeline.py draws it");
#else
  CLI::App* view = app.add_subcommand("view", "interactive viewer (not in this build: configured without the GUI)");
  view->allow_extras();
#endif
  // One meaning of the exit codes everywhere, said by every --help.
  app.footer(std::string(CIRCLES_HAVE_GUI ? "With no arguments, circles opens the viewer on " +
                                                std::string(kDefaultScene) + ".\n"
                                          : "") +
             kExitCodes);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub != kernels) sub->footer(kExitCodes);
    for (CLI::App* nested : sub->get_subcommands([](CLI::App*) { return true; })) nested->footer(kExitCodes);
  }

  // An unknown command, an option where a command should be, or a missing command is named as
  // such, at every level ("circles scene load"): CLI11 would only say that a subcommand is required.
  if (argc > 1) {
    const CLI::App* cmd = &app;
    std::string path = "circles";
    for (int i = 1;; ++i) {
      const std::vector<const CLI::App*> subs = cmd->get_subcommands([](const CLI::App*) { return true; });
      if (subs.empty()) break;  // a command of its own: CLI11 parses the rest
      std::string names;
      const CLI::App* next = nullptr;
      for (const CLI::App* sub : subs) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
        if (i < argc && sub->get_name() == argv[i]) next = sub;
      }
      const std::string arg = i < argc ? argv[i] : "";
      if (arg == "-h" || arg == "--help" || (cmd == &app && arg == "--version")) break;
      std::string why;
      if (i >= argc) why = path + " needs a command: " + names;
      else if (arg[0] == '-') why = "unknown option '" + arg + "' where a command goes (commands: " + names + ")";
      else if (!next) why = "unknown command '" + arg + "' (commands: " + names + ")";
      if (!why.empty()) {
        if (speaks) std::fprintf(stderr, "circles: error: %s; %s --help\n", why.c_str(), path.c_str());
        return 2;
      }
      cmd = next;
      path += " " + arg;
    }
  }

  // No arguments at all: the viewer on the default scene (when there is one).
  const bool default_viewer = argc <= 1 && CIRCLES_HAVE_GUI;
  try {
    if (!default_viewer) app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostream silent(nullptr);  // under mpirun, ranks other than 0 say nothing (they parse alike)
    const int code = speaks ? app.exit(e) : app.exit(e, silent, silent);
    return code == 0 ? 0 : 2;
  }

  try {
    refuse_empty_values(app);
    // Under mpirun every other command would run once a rank, each doing the whole of the work.
    if (!*render && mpi_launch().launched && mpi_launch().size != 1)
      throw std::invalid_argument("only `circles render` runs over MPI ranks (docs/SCALE.md): run this command "
                                  "without mpirun");
#if CIRCLES_HAVE_GUI
    if (default_viewer || *view) return run_viewer(view_opt);
#else
    if (*view) {
      std::fprintf(stderr,
                   "circles: error: this build has no GUI: the viewer needs GLFW, GLAD (python3-glad), EGL and Dear ImGui "
                   "at configure time (libglfw3-dev python3-glad libegl-dev libimgui-dev) and CIRCLES_GUI=ON. "
                   "Use `circles render` for images.\n");
      return 1;
    }
#endif
    if (*list) return cmd_list();
    if (*render) return cmd_render(render_job, out, out_opt->count() > 0, mpi_mode, fps);
    if (*check) return cmd_check(check_job, tolerance, tolerance_opt->count() > 0, diff, exact_bytes);
    if (*save) return cmd_scene_save(save_name, save_path, save_frame, save_seed);
    if (*info) return cmd_scene_info(info_name, info_repeat);
    if (*kernels) return run_kernels(kernels_opt);
    if (*ladder) {
      parse_size(ladder_size, &ladder_opt.width, &ladder_opt.height);
      return run_ladder(ladder_opt);
    }
    if (*bench) {
      if (!bench_frames.empty())
        throw std::invalid_argument("bench has no --frames (in render, check and view it names animation "
                                    "frames): the timed frames per pair are --repeat N");
      parse_size(bench_size, &bench_opt.width, &bench_opt.height);
      return run_bench(bench_opt);
    }
  } catch (...) {
    const Failure f = failure_of(std::current_exception());
    if (speaks) std::fprintf(stderr, "%s\n", f.line().c_str());
    return f.code;
  }
  return 0;
}

}  // namespace circles
