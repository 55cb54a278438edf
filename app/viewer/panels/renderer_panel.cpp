// The Renderer panel: the renderer, its settings and modes, and the last frame's plan.
#include "app/viewer/panels/panels.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/common/ladder.h"
#include "app/common/registry.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

namespace {

// The renderer's settings (tile, batch, scan, modes) as combos and checkboxes.
void settings_combos(const RendererInfo& info, RendererUi& r) {
  auto combo = [&](const char* label, const std::vector<int>& values, int current, int limit, int* out) {
    if (values.empty()) return;
    const std::string preview = std::to_string(current);
    if (ImGui::BeginCombo(label, preview.c_str())) {
      for (int v : values) {
        if (v > limit) continue;
        if (ImGui::Selectable(std::to_string(v).c_str(), v == current) && v != current) *out = v;
      }
      ImGui::EndCombo();
    }
  };
  RendererSettings want = r.settings;
  combo("tile size", info.tile_sizes, r.settings.tile_size, 1 << 30, &want.tile_size);
  combo("batch size", info.batch_sizes, r.settings.batch_size, want.tile_size * want.tile_size, &want.batch_size);
  if (!info.scans.empty()) {
    if (ImGui::BeginCombo("scan", r.settings.scan.c_str())) {
      for (std::size_t k = 0; k < info.scans.size(); ++k) {
        const std::string& name = info.scans[k];
        const std::string label = k == 0 ? name + " (default)" : name;
        const bool current = name == r.settings.scan;
        if (ImGui::Selectable(label.c_str(), current) && !current) want.scan = name;
        if (ImGui::IsItemHovered() && k < info.scan_notes.size() && !info.scan_notes[k].empty())
          ImGui::SetTooltip("%s", info.scan_notes[k].c_str());
      }
      ImGui::EndCombo();
    } else if (ImGui::IsItemHovered()) {  // closed: the current scan's line
      const auto it = std::find(info.scans.begin(), info.scans.end(), r.settings.scan);
      const std::size_t k = static_cast<std::size_t>(it - info.scans.begin());
      if (k < info.scan_notes.size() && !info.scan_notes[k].empty())
        ImGui::SetTooltip("%s", info.scan_notes[k].c_str());
    }
  }
  if (info.early_exit) {
    ImGui::Checkbox("early exit", &want.early_exit);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("front to back from the last circle: a pixel stops once what lies below can move no 8-bit "
                        "channel, a tile once its pixels have; the 8-bit picture is cpu-ref's within one step");
  }
  if (info.half_colour) {
    ImGui::Checkbox("half colour", &want.half_colour);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("deep flat scenes (the eight-pixel walk) blend R, G and B in half precision: faster, within "
                        "2^-10 of cpu-ref instead of its exact bits, where the scene allows it (the plan says)");
  }
  if (want.tile_size != r.settings.tile_size || want.batch_size != r.settings.batch_size ||
      want.scan != r.settings.scan || want.early_exit != r.settings.early_exit ||
      want.half_colour != r.settings.half_colour) {
    if (want.tile_size != r.settings.tile_size) want.batch_size = 0;  // one circle per thread again
    r.requested = r.current;
    r.requested_settings = want;
  }
}

// The renderer ladder (app/common/ladder.h): the rung shown, picked from the list; hover a rung
// for what it adds over the one below.
void ladder_combo(RendererUi& r) {
  const Rung* now = rung_of(r.current, r.settings);
  if (ImGui::BeginCombo("ladder rung", now ? now->name.c_str() : "(none: settings of their own)")) {
    for (const Rung& rung : renderer_ladder()) {
      const RendererInfo* info = find_renderer(rung.renderer);
      const bool can = info && unavailable_reason(*info).empty();
      ImGui::BeginDisabled(!can);
      if (ImGui::Selectable(rung.name.c_str(), &rung == now) && &rung != now) {
        r.requested = rung.renderer;
        r.requested_settings = rung.settings;
      }
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s\n%s\n%s", rung.adds.c_str(), rung.source.c_str(), rung_options(rung).c_str());
    }
    ImGui::EndCombo();
  } else if (now && ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s\n%s", now->adds.c_str(), now->source.c_str());
  }
}

// The shown frame's work, and the last renderer's (or rung's) beside it, with their ratio.
void work_lines(RendererUi& r) {
  ImGui::Checkbox("count work", &r.count_work);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("count each frame's pixel tests, blends and circle-tile pairs on the GPU (a little slower; "
                      "cuda-tile-binned only); switch rungs to see what changes");
  if (!r.count_work) return;
  if (!r.counted) {
    ImGui::TextDisabled("  no counts from this renderer");
    return;
  }
  auto line = [&](const char* what, std::uint64_t now, std::uint64_t before) {
    if (r.counted_before && before)
      ImGui::Text("  %-11s %14" PRIu64 "  (%.2fx %s)", what, now, static_cast<double>(now) / before, r.before.c_str());
    else
      ImGui::Text("  %-11s %14" PRIu64, what, now);
  };
  line("pixel tests", r.work.pixel_tests, r.work_before.pixel_tests);
  line("blends", r.work.blends, r.work_before.blends);
  if (r.work.chunks) line("pairs", r.work.pairs, r.work_before.pairs);
}

}  // namespace

void renderer_panel(RendererUi& r) {
  const std::vector<RendererInfo>& all = renderer_registry();
  for (std::size_t k = 0; k < all.size(); ++k) {
    const RendererInfo& info = all[k];
    const std::string why = unavailable_reason(info);
    // Renderers unavailable for one reason (no GPU: every CUDA one) share one line: the names,
    // greyed, then the reason; hover a name for its description. It keeps the column within a
    // 1280x720 window on a machine without a GPU.
    std::size_t run = 1;
    while (!why.empty() && k + run < all.size() && unavailable_reason(all[k + run]) == why) ++run;
    if (run > 1) {
      for (std::size_t j = k; j < k + run; ++j) {
        if (j > k) ImGui::SameLine(0.f, 0.f), ImGui::TextDisabled(", "), ImGui::SameLine(0.f, 0.f);
        ImGui::TextDisabled("%s", all[j].name.c_str());
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
          ImGui::SetTooltip("%s\n%s\nunavailable: %s", all[j].description.c_str(), all[j].source.c_str(), why.c_str());
      }
      if (why != r.noticed) {  // else the notice above the panels says it (and each name's tooltip)
        ImGui::TextDisabled("  unavailable: %s", why.c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("unavailable: %s", why.c_str());
      }
      k += run - 1;
      continue;
    }
    ImGui::BeginDisabled(!why.empty());
    if (ImGui::Selectable(info.name.c_str(), info.name == r.current) && info.name != r.current) {
      r.requested = info.name;
      r.requested_settings = {};
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s\n%s%s%s", info.description.c_str(), info.source.c_str(),
                        why.empty() ? "" : "\nunavailable: ", why.c_str());
    if (!why.empty()) {
      // One line: the name (greyed) and its reason; hover for the whole of it.
      ImGui::SameLine(ui_px(130.f));
      ImGui::TextDisabled("unavailable: %s", why.c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("unavailable: %s", why.c_str());
    }
  }
  if (const RendererInfo* info = find_renderer(r.current)) {
    // The description and source are in each name's tooltip; here only the knobs.
    settings_combos(*info, r);
  }
  // The ladder's rungs and the counted work are the CUDA renderers' (a CPU renderer keeps the
  // column short enough to fit a 1280x720 window).
  if (const RendererInfo* info = find_renderer(r.current); info && info->needs_gpu) {
    ladder_combo(r);
    work_lines(r);
  }
  // How the renderer drew the last frame (its strategy and why): the short form, the rest on hover.
  if (!r.plan.empty()) {
    ImGui::Text("plan: %s", r.plan.substr(0, r.plan.find(':')).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.plan.c_str());
  }
  // How frames reach the screen: the short form (up to the first ':'), the rest on hover.
  const std::string& present = r.present_path;
  ImGui::Text("present: %s", present.substr(0, present.find(':')).c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", present.c_str());
  if (!r.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ImGui::TextWrapped("%s", r.error.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace circles
