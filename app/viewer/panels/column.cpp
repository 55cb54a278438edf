// The panel column on the left (every panel in order, notices first) and the Help window.
#include "app/viewer/panels/panels.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/viewer/panels/widgets.h"

namespace circles {

void help_window(bool* open, float display_w, float display_h, float scale) {
  if (!*open) return;
  // Centred over the scene area, sized to its contents.
  const float area_x = static_cast<float>(panel_width(scale));
  ImGui::SetNextWindowPos(ImVec2(area_x + std::max(display_w - area_x, 0.f) / 2, display_h / 2), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("Help", open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings)) {
    if (begin_table("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
      for (const Shortcut& s : shortcuts()) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(s.keys);
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(s.what);
      }
      const char* mouse[][2] = {{"drag", "pan the view"},
                                {"wheel", "zoom about the cursor"},
                                {"click", "inspect that pixel (Inspector panel)"},
                                {"Shift + hover", "inspect the pixel under the cursor"},
                                {"drop a file", "load it as a scene"}};
      for (const auto& m : mouse) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(m[0]);
        ImGui::TableSetColumnIndex(1);
        ImGui::TextUnformatted(m[1]);
      }
      end_table();
    }
    ImGui::TextDisabled("Keys are ignored while a text field has focus.");
  }
  ImGui::End();
}

float draw_panel_column(UiState& ui, float /*display_w*/, float display_h) {
  float overflow = 0;
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(static_cast<float>(panel_width(ui.scale)), display_h), ImGuiCond_Always);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBringToFrontOnFocus;
  ui.text_overflow = 0;
  ui.text_overflow_where.clear();
  reset_table_overflow();
  // Text past the column's right edge, by the part that drew it (the first with the most).
  auto measure = [&](const char* where) {
    const float over = items_overflow();
    if (over > ui.text_overflow + 0.5f) {
      ui.text_overflow = over;
      ui.text_overflow_where = where;
    }
  };
  if (ImGui::Begin("##panels", nullptr, flags)) {
    // Every text of every panel wraps at the column's edge (or its table cell's) instead of being
    // cut there, whatever the UI's scale and the stage names.
    ImGui::PushTextWrapPos(0.f);
    ImGui::TextUnformatted("circles view");
    ImGui::SameLine();
    ImGui::TextDisabled("(H: help)");
    for (const Notice& n : ui.notices) {
      ImGui::PushStyleColor(ImGuiCol_Text, n.warning ? kWarn : ImGui::GetStyleColorVec4(ImGuiCol_Text));
      ImGui::TextWrapped("%s", n.text.c_str());
      ImGui::PopStyleColor();
    }
    measure("notices");
    auto header = [&](const char* name, bool open_by_default) {
      if (ui.open_panels) ImGui::SetNextItemOpen(true, ImGuiCond_Always);
      return ImGui::CollapsingHeader(name, open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    };
    // Each panel drawn, then its text measured against the column's edge.
    auto panel = [&](const char* name, bool open, auto&& draw) {
      if (header(name, open)) draw();
      measure(name);
    };
    panel("Scene", true, [&] { scene_panel(ui.scene, ui.actions); });
    panel("Renderer", true, [&] { renderer_panel(ui.renderer); });
    panel("Animation", true, [&] { animation_panel(ui.animation, ui.actions); });
    panel("Timings", true, [&] { timings_panel(ui.timings); });
    if (std::exchange(ui.export_png.reveal, false)) ImGui::SetNextItemOpen(true);
    panel("Export", false, [&] { export_panel(ui.export_png, ui.actions); });
    if (std::exchange(ui.check.reveal, false)) ImGui::SetNextItemOpen(true);
    panel("Check", false, [&] { check_panel(ui.check, ui.actions); });
    if (std::exchange(ui.frame_stats.reveal, false)) ImGui::SetNextItemOpen(true);
    panel("Lab on the frame", false, [&] { frame_stats_panel(ui.frame_stats); });
    // A panel a flag or a new answer reveals: opened, and the column scrolled to it, for `reveal`
    // frames (two: the column's scroll range covers the panel's contents only from the second).
    auto revealing = [&](const char* name, int& reveal, auto&& draw) {
      const bool now = reveal > 0;
      if (now) --reveal;
      if (now) ImGui::SetNextItemOpen(true);
      if (header(name, false)) {
        if (now) ImGui::SetScrollHereY(0.f);
        draw();
      }
      measure(name);
    };
    revealing("Kernels", ui.kernels.reveal, [&] { kernels_panel(ui.kernels); });
    revealing("Counters", ui.counters.reveal, [&] { counters_panel(ui.counters); });
    revealing("Heat map", ui.heat.reveal, [&] { heat_panel(ui.heat); });
    panel("View", false, [&] { view_panel(ui.view, ui.actions); });
    revealing("Inspector", ui.inspector.reveal, [&] { inspector_panel(ui.inspector); });
    overflow = ImGui::GetScrollMaxY();
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
  return overflow;
}

}  // namespace circles
