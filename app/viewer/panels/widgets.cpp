// What the panels share: the keyboard shortcuts' table, buttons labelled with their key, combos.
#include "app/viewer/panels/widgets.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only
#include <imgui.h>
#include <imgui_internal.h>  // the window's and the table's extents, for items_overflow()

#include <algorithm>
#include <string>
#include <vector>

#include "app/viewer/panels/panels.h"

namespace circles {

namespace {
float g_table_overflow = 0;  // the widest cut of a table cell since reset_table_overflow()
}  // namespace

float ui_px(float px) { return px * ImGui::GetFontSize() / 13.f; }

float items_overflow() {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  return std::max(w->DC.CursorMaxPos.x - w->WorkRect.Max.x, g_table_overflow);
}

void reset_table_overflow() { g_table_overflow = 0; }

bool begin_table(const char* id, int columns, ImGuiTableFlags flags, const ImVec2& size) {
  if (!ImGui::BeginTable(id, columns, flags, size)) return false;
  ImGui::PushTextWrapPos(-1.f);
  return true;
}

void end_table() {
  ImGui::PopTextWrapPos();
  if (const ImGuiTable* t = ImGui::GetCurrentTable()) {
    for (int c = 0; c < t->ColumnsCount; ++c) {
      const ImGuiTableColumn& col = t->Columns[c];
      if (col.IsVisibleX) g_table_overflow = std::max(g_table_overflow, col.ContentMaxXUnfrozen - col.ClipRect.Max.x);
    }
  }
  ImGui::EndTable();
}

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> table = {
      {GLFW_KEY_SPACE, -1, "Space", "play / pause", Action::TogglePlay},
      {GLFW_KEY_RIGHT, GLFW_KEY_N, "Right, N", "single step (one frame)", Action::Step},
      {GLFW_KEY_R, -1, "R", "reload the scene (back to its first frame)", Action::Reload},
      {GLFW_KEY_S, -1, "S", "export the current frame as PNG", Action::ExportPng},
      {GLFW_KEY_C, -1, "C", "check the current frame against cpu-ref", Action::Check},
      {GLFW_KEY_D, -1, "D", "difference overlay on / off", Action::ToggleDiff},
      {GLFW_KEY_V, -1, "V", "vsync on / off", Action::ToggleVsync},
      {GLFW_KEY_H, GLFW_KEY_F1, "H, F1", "this help", Action::ToggleHelp},
      {GLFW_KEY_0, GLFW_KEY_KP_0, "0", "reset the view (1:1, no pan)", Action::ResetView},
      {GLFW_KEY_ESCAPE, -1, "Esc", "quit", Action::Quit},
  };
  return table;
}

// "Label (K)": the button's shortcut from the table, so the two never disagree.
std::string with_key(const char* label, Action a) {
  for (const Shortcut& s : shortcuts())
    if (s.action == a) return std::string(label) + " (" + s.keys + ")";
  return label;
}

bool string_combo(const char* label, const std::vector<std::string>& items, int* index, float width) {
  if (items.empty()) return false;
  *index = std::clamp(*index, 0, static_cast<int>(items.size()) - 1);
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo(label, items[static_cast<std::size_t>(*index)].c_str())) {
    for (int i = 0; i < static_cast<int>(items.size()); ++i)
      if (ImGui::Selectable(items[static_cast<std::size_t>(i)].c_str(), i == *index) && i != *index) {
        *index = i;
        changed = true;
      }
    ImGui::EndCombo();
  }
  return changed;
}

void panel_unavailable(const std::string& why) {
  ImGui::PushTextWrapPos(0.f);
  ImGui::TextDisabled("unavailable: %s", why.c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace circles
