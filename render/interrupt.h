// Stopping long work part-way: a process-wide request, set from a signal handler (the Python
// module's Ctrl-C) or any thread, that the renderers look at between pieces of a frame (cpu-ref
// every circle, cpu-mt between tiles, cuda-tile-binned between chunks, seeking between
// frames) and answer by throwing Interrupted. The frame is then unfinished: the caller draws it
// again or gives up. Without a request the checks cost a relaxed atomic load.
#pragma once
#include <stdexcept>

namespace circles {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// Async-signal-safe: a lock-free atomic store.
void request_interrupt() noexcept;
void clear_interrupt() noexcept;
bool interrupt_requested() noexcept;

// Throws Interrupted when an interrupt has been requested (on the thread that drives the work:
// worker threads of a parallel loop stop early and leave the throw to it).
inline void stop_if_interrupted() {
  if (interrupt_requested()) throw Interrupted();
}

}  // namespace circles
