// The Inspector panel: for the pixel last clicked (or hovered with Shift held), its tile, the
// circles that cover it in blend order with the colour after each blend, and the walk's final
// colour (cpu-ref's) against the pixel the current renderer drew.
#include <imgui.h>

#include <algorithm>

#include "app/viewer/panels/panels.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

namespace {

void swatch(const char* id, const Float4& c) {
  ImGui::ColorButton(id, ImVec4(std::clamp(c.x, 0.f, 1.f), std::clamp(c.y, 0.f, 1.f), std::clamp(c.z, 0.f, 1.f), 1.f),
                     ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder, ImVec2(ui_px(12), ui_px(12)));
}

}  // namespace

void inspector_panel(const InspectorUi& u) {
  if (!u.result) {
    ImGui::TextDisabled(u.busy ? "walking the pixel's circles..." : "click a pixel of the frame (or hold Shift)");
    return;
  }
  const InspectResult& r = *u.result;
  const InspectRequest& q = r.request;
  if (u.busy) ImGui::TextDisabled("(a newer pixel is being walked)");
  if (!r.error.empty()) {
    ImGui::TextWrapped("pixel %d,%d: %s", q.i, q.j, r.error.c_str());
    return;
  }
  const PixelReport& p = r.report;
  ImGui::Text("pixel %d,%d of %dx%d, frame %lld", q.i, q.j, q.width, q.height, static_cast<long long>(q.frame));
  ImGui::Text("tile %d,%d (%dx%d): %zu circles", p.tile_x, p.tile_y, p.tile_size, p.tile_size, p.tile_circles);
  ImGui::Text("%zu circles cover it%s", p.covering,
              p.steps.size() < p.covering ? " (the first ones listed)" : "");
  // The answer first (the walk is cpu-ref's blend), then the blends that led to it.
  const Float4 a = p.final_colour, b = q.renderer_pixel;
  const float diff = renderer_difference(r);
  const bool match = diff <= kInspectTolerance;
  swatch("##walk", a);
  ImGui::SameLine();
  ImGui::Text("cpu-ref  %.4f %.4f %.4f %.4f", a.x, a.y, a.z, a.w);
  swatch("##drawn", b);
  ImGui::SameLine();
  ImGui::Text("%-8s %.4f %.4f %.4f %.4f", q.renderer.c_str(), b.x, b.y, b.z, b.w);
  ImGui::TextColored(match ? ImVec4(.5f, .9f, .5f, 1) : ImVec4(1, .4f, .4f, 1), "%s (max diff %.2g)",
                     match ? "match" : "DIFFER", static_cast<double>(diff));
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg;
  if (begin_table("##steps", 4, flags, ImVec2(0, ui_px(150)))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    // Fixed widths: a table seen for the first time has no measured contents yet.
    ImGui::TableSetupColumn("circle", ImGuiTableColumnFlags_WidthFixed, ui_px(56.f));
    ImGui::TableSetupColumn("col", ImGuiTableColumnFlags_WidthFixed, ui_px(24.f));
    ImGui::TableSetupColumn("alpha", ImGuiTableColumnFlags_WidthFixed, ui_px(44.f));
    ImGui::TableSetupColumn("after (rgba)", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextDisabled("bg");
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    ImGui::TableNextColumn();
    swatch("##bg", p.background);
    ImGui::SameLine();
    ImGui::Text("%.3f %.3f %.3f %.3f", p.background.x, p.background.y, p.background.z, p.background.w);
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(p.steps.size()));
    while (clipper.Step())
      for (int k = clipper.DisplayStart; k < clipper.DisplayEnd; ++k) {
        const BlendStep& s = p.steps[static_cast<std::size_t>(k)];
        ImGui::PushID(k);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%u", s.index);
        ImGui::TableNextColumn();
        swatch("##c", s.colour);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", s.alpha);
        ImGui::TableNextColumn();
        swatch("##a", s.after);
        ImGui::SameLine();
        ImGui::Text("%.3f %.3f %.3f %.3f", s.after.x, s.after.y, s.after.z, s.after.w);
        ImGui::PopID();
      }
    end_table();
  }
}

}  // namespace circles
