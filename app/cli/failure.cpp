// Exceptions to exit codes and messages (app/cli/failure.h).
#include "app/cli/failure.h"

#include <stdexcept>

#include "render/scene_io.h"

namespace circles {

std::string Failure::line(const std::string& context) const {
  return (prefixed ? "circles: error: " : "") + (context.empty() ? "" : context + ": ") + message;
}

Failure failure_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const SceneError& x) {
    return {1, x.what(), false};
  } catch (const std::invalid_argument& x) {
    return {2, x.what(), true};
  } catch (const std::exception& x) {
    return {1, x.what(), true};
  } catch (...) {
    return {1, "unknown failure", true};
  }
}

}  // namespace circles
