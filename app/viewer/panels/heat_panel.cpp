// The Heat map panel: circles per tile, blends per pixel or the shade kernel's time per tile
// (clock64 per block) drawn over the frame with a colour legend: load imbalance made visible
// (biglittle: a few tiles hold most of the work).
#include <imgui.h>

#include <algorithm>

#include "app/viewer/panels/panels.h"
#include "app/viewer/panels/widgets.h"

namespace circles {

namespace {

// The ramp from lo to hi as a bar, with its ends labelled.
void legend(const HeatUi& h) {
  const float width = ImGui::GetContentRegionAvail().x, height = ui_px(12);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int steps = 64;
  for (int s = 0; s < steps; ++s) {
    const std::array<std::uint8_t, 3> c = heat_colour((s + 0.5f) / steps);
    const float x0 = p0.x + width * s / steps, x1 = p0.x + width * (s + 1) / steps;
    draw->AddRectFilled(ImVec2(x0, p0.y), ImVec2(x1 + 1, p0.y + height), IM_COL32(c[0], c[1], c[2], 255));
  }
  ImGui::Dummy(ImVec2(width, height));
  ImGui::Text("%.4g", static_cast<double>(h.lo));
  char hi[32];
  std::snprintf(hi, sizeof hi, "%.4g %s", static_cast<double>(h.hi), h.unit.c_str());
  ImGui::SameLine(std::max(0.f, width - ImGui::CalcTextSize(hi).x));
  ImGui::TextUnformatted(hi);
}

}  // namespace

void heat_panel(HeatUi& h) {
  if (!h.unavailable.empty()) {
    panel_unavailable(h.unavailable);
    return;
  }
  ImGui::SetNextItemWidth(-1);
  ImGui::Combo("##heat", &h.mode, HeatUi::kModes, IM_ARRAYSIZE(HeatUi::kModes));
  if (h.mode == 0) return;
  ImGui::Checkbox("over the frame", &h.blend);
  if (h.blend) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1);
    ImGui::SliderFloat("##alpha", &h.alpha, 0.f, 1.f, "weight %.2f");
  }
  if (h.what.empty()) return;
  ImGui::TextWrapped("%s", h.what.c_str());
  legend(h);
  ImGui::Text("mean %.4g, max / mean %.2f", static_cast<double>(h.mean), static_cast<double>(h.imbalance));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("max / mean: how unevenly the work is spread (1: evenly). A tile's block runs\n"
                      "as long as its slowest pixel, and the frame as long as its slowest tiles.");
}

}  // namespace circles
