// Factories for the CUDA renderers (plain C++ header, so the registry needs no CUDA headers).
#pragma once
#include <memory>
#include <string>

#include "kernels/lab/lab.h"
#include "render/renderer.h"

namespace circles {

struct RendererSettings;
std::unique_ptr<Renderer> make_cuda_naive_renderer(const RendererSettings& settings);
std::unique_ptr<Renderer> make_cuda_tile_scan_renderer(const RendererSettings& settings);
// `scan`: the lab's exclusive_scan launcher for the per-circle tile counts (i32), which the registry
// finds by settings.scan's name (kernels/lab/lab_launch.h; the kernels cannot link the lab).
std::unique_ptr<Renderer> make_cuda_tile_binned_renderer(const RendererSettings& settings,
                                                         lab::LaunchFn scan);

}  // namespace circles
