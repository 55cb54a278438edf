// The Check panel: the frame against cpu-ref, by its mode's promise, and the difference overlay.
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

void check_panel(CheckUi& c, std::vector<Action>& actions) {
  ImGui::BeginDisabled(c.running);
  if (ImGui::Button(with_key("Check vs cpu-ref", Action::Check).c_str())) actions.push_back(Action::Check);
  ImGui::EndDisabled();
  if (c.running) {
    ImGui::SameLine();
    ImGui::TextDisabled("checking...");
  }
  ImGui::SetNextItemWidth(ui_px(120));
  ImGui::InputFloat("tolerance", &c.tolerance, 0.f, 0.f, "%.4f");
  c.tolerance = std::clamp(c.tolerance, 0.f, 1.f);
  ImGui::SetNextItemWidth(ui_px(120));
  ImGui::SliderFloat("diff gain", &c.gain, 1.f, 256.f, "x%.0f", ImGuiSliderFlags_Logarithmic);
  if (c.have_result) {
    ImGui::PushStyleColor(ImGuiCol_Text, c.passed ? kGood : kError);
    ImGui::TextWrapped("%s %s", c.passed ? "PASS" : "FAIL", c.summary.c_str());
    ImGui::PopStyleColor();
    if (!c.gpu_stats.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, c.gpu_stats_ok ? kGood : kError);
      ImGui::TextWrapped("%s", c.gpu_stats.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (!c.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kError);
    ImGui::TextWrapped("%s", c.error.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::BeginDisabled(!c.have_result);
  bool overlay = c.overlay;
  if (ImGui::Checkbox(with_key("difference overlay", Action::ToggleDiff).c_str(), &overlay))
    actions.push_back(Action::ToggleDiff);
  ImGui::Checkbox("blend over the frame", &c.blend);
  if (c.blend) {
    ImGui::SetNextItemWidth(ui_px(120));
    ImGui::SliderFloat("overlay weight", &c.blend_alpha, 0.f, 1.f);
  }
  ImGui::EndDisabled();
}

}  // namespace circles
