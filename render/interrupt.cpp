// The interrupt request (render/interrupt.h): one lock-free atomic flag.
#include "render/interrupt.h"

#include <atomic>

namespace circles {

namespace {
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_interrupt must be async-signal-safe");
}  // namespace

void request_interrupt() noexcept { g_interrupt.store(true, std::memory_order_relaxed); }
void clear_interrupt() noexcept { g_interrupt.store(false, std::memory_order_relaxed); }
bool interrupt_requested() noexcept { return g_interrupt.load(std::memory_order_relaxed); }

}  // namespace circles
