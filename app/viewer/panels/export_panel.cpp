// The Export panel: the frame as PNG, the same bytes as `circles render`.
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

void export_panel(ExportUi& e, std::vector<Action>& actions) {
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##export", &e.path);
  if (ImGui::Button(with_key("Export PNG", Action::ExportPng).c_str())) actions.push_back(Action::ExportPng);
  ImGui::TextDisabled("the same bytes as `circles render` of this scene, size, renderer and frame");
  if (!e.status.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, e.ok ? kGood : kError);
    ImGui::TextWrapped("%s", e.status.c_str());
    ImGui::PopStyleColor();
  }
}

}  // namespace circles
