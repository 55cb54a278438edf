// The lab's CPU references and checks (see reference.h).
#include "kernels/lab/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace circles::lab {

const char* family_name(Family f) {
  switch (f) {
    case Family::reduce: return "reduce";
    case Family::scan: return "scan";
    case Family::transpose: return "transpose";
    case Family::banks: return "banks";
    case Family::conv: return "conv";
  }
  return "?";
}

const char* task_name(Task t) {
  switch (t) {
    case Task::reduce_sum: return "reduce-sum";
    case Task::exclusive_scan: return "exclusive-scan";
    case Task::find_repeats: return "find-repeats";
    case Task::compact: return "compact";
    case Task::segmented_scan: return "segmented-scan";
    case Task::transpose: return "transpose";
    case Task::bank_read: return "bank-read";
    case Task::convolve: return "convolve";
  }
  return "?";
}

const char* elem_name(Elem e) { return e == Elem::i32 ? "i32" : "f32"; }
std::size_t elem_size(Elem) { return 4; }

std::string Shape::text() const {
  return is_2d() ? std::to_string(width) + "x" + std::to_string(height) : std::to_string(n);
}

std::string shape_error(Task task, const Shape& s) {
  if (task == Task::transpose) {
    if (!s.is_2d() || s.height < 1) return "transpose needs a size WxH (each >= 1)";
    if (static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) > kMaxElements)
      return "WxH must be at most 2^30 elements";
    return "";
  }
  if (s.is_2d()) return std::string(task_name(task)) + " needs one count N, not WxH";
  if (s.n < 1) return "N must be at least 1";
  if (s.n > kMaxElements) return "N must be at most 2^30 (1073741824)";
  return "";
}

std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}


// The element as a number: an int, or the float its bits hold.
double as_number(std::uint32_t w, Elem type) {
  return type == Elem::i32 ? static_cast<double>(static_cast<std::int32_t>(w)) : static_cast<double>(bits_float(w));
}

}  // namespace

double rel_tol(Task task) { return task == Task::convolve ? 2e-6 : 1e-9; }

Problem make_problem(Task task, Elem type, const Shape& shape, std::uint64_t seed) {
  Problem p{task, type, shape, {}, {}, 0, false};
  const std::size_t n = shape.is_2d() ? static_cast<std::size_t>(shape.width) * shape.height : shape.n;
  const std::uint64_t base = splitmix(seed * 0x100000001B3ull + static_cast<std::uint64_t>(task));
  p.out_elems = task == Task::reduce_sum ? 1 : n;
  p.has_count = task == Task::find_repeats || task == Task::compact;
  if (task == Task::bank_read) return p;
  p.in.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = splitmix(base + i);
    if (task == Task::find_repeats) {
      p.in[i] = static_cast<std::uint32_t>(r % 4);
    } else if (type == Elem::i32) {
      p.in[i] = static_cast<std::uint32_t>(static_cast<std::int32_t>(r % 257) - 128);
    } else {
      p.in[i] = float_bits(static_cast<float>(static_cast<int>(r % 511) - 255) / 256.f);
    }
  }
  if (task == Task::segmented_scan) {
    // Segments of mixed lengths: mostly short, some spanning many tiles.
    p.flags.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t r = splitmix(base ^ (0xF1A9ull + i));
      const bool long_run = (i >> 14) % 3 == 2;  // every third stretch of 16384: rare heads
      p.flags[i] = (long_run ? r % 20000 == 0 : r % 37 == 0) ? static_cast<std::int32_t>(1 + r % 5) : 0;
    }
  }
  return p;
}

Expected expected_result(const Problem& p, int param, int word_bytes) {
  Expected e;
  const std::size_t n = p.in.size();
  const bool is_int = p.type == Elem::i32;
  e.exact = is_int || p.task == Task::transpose || p.task == Task::find_repeats || p.task == Task::compact ||
            p.task == Task::bank_read;
  e.rel_tol = rel_tol(p.task);
  auto wrap = [](std::uint32_t acc) { return static_cast<double>(static_cast<std::int32_t>(acc)); };
  switch (p.task) {
    case Task::reduce_sum:
    case Task::exclusive_scan:
    case Task::segmented_scan: {
      const bool scan = p.task != Task::reduce_sum;
      if (scan) e.value.resize(n);
      if (scan && !is_int) e.scale.resize(n);
      std::uint32_t iacc = 0;
      double facc = 0, mag = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (p.task == Task::segmented_scan && (i == 0 || p.flags[i] != 0)) iacc = 0, facc = 0, mag = 0;
        if (scan) {
          e.value[i] = is_int ? wrap(iacc) : facc;
          if (!is_int) e.scale[i] = mag;
        }
        iacc += p.in[i];
        const double x = as_number(p.in[i], p.type);
        facc += x;
        mag += std::fabs(x);
      }
      if (!scan) {
        e.value = {is_int ? wrap(iacc) : facc};
        if (!is_int) e.scale = {mag};
      }
      break;
    }
    case Task::find_repeats:
      for (std::size_t i = 0; i + 1 < n; ++i)
        if (p.in[i] == p.in[i + 1]) e.value.push_back(static_cast<double>(i));
      e.count = static_cast<long long>(e.value.size());
      break;
    case Task::compact:
      for (std::size_t i = 0; i < n; ++i)
        if (static_cast<std::int32_t>(p.in[i]) > 0) e.value.push_back(static_cast<std::int32_t>(p.in[i]));
      e.count = static_cast<long long>(e.value.size());
      break;
    case Task::transpose: {
      const std::size_t w = p.shape.width, h = p.shape.height;
      e.value.resize(n);
      for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x) e.value[x * h + y] = p.in[y * w + x];
      break;
    }
    case Task::bank_read: {
      const unsigned comps = word_bytes >= 4 ? static_cast<unsigned>(word_bytes) / 4 : 1;
      const std::uint32_t mask = word_bytes == 1 ? 0xFFu : word_bytes == 2 ? 0xFFFFu : 0xFFFFFFFFu;
      double lane_sum[32];
      for (unsigned lane = 0; lane < 32; ++lane) {
        std::uint32_t acc = 0;
        for (int it = 0; it < kBankIters; ++it) {
          const unsigned k = lane * static_cast<unsigned>(param) + static_cast<unsigned>(it % 32);
          for (unsigned c = 0; c < comps; ++c) acc += bank_word(k, c) & mask;
        }
        lane_sum[lane] = acc;
      }
      e.value.resize(p.shape.n);
      for (std::size_t t = 0; t < p.shape.n; ++t) e.value[t] = lane_sum[t % 32];
      break;
    }
    case Task::convolve: {
      const long long r = param;
      const double w = 1.0 / static_cast<double>(2 * r + 1);
      e.value.resize(n);
      e.scale.resize(n);
      // Running sums over the window: O(n) for any radius (ints of 2^-8 steps: exact in double).
      double sum = 0, mag = 0;
      const long long nn = static_cast<long long>(n);
      for (long long j = 0; j <= r && j < nn; ++j) {
        sum += as_number(p.in[j], p.type);
        mag += std::fabs(as_number(p.in[j], p.type));
      }
      for (long long i = 0; i < nn; ++i) {
        e.value[i] = sum * w;
        e.scale[i] = mag * w;
        const long long add = i + r + 1, drop = i - r;
        if (add < nn) sum += as_number(p.in[add], p.type), mag += std::fabs(as_number(p.in[add], p.type));
        if (drop >= 0) sum -= as_number(p.in[drop], p.type), mag -= std::fabs(as_number(p.in[drop], p.type));
      }
      break;
    }
  }
  return e;
}

std::string check_result(const Problem& p, const Expected& e, const std::uint32_t* out, long long count) {
  char msg[256];
  std::size_t len = e.value.size();
  if (p.has_count) {
    if (count != e.count) {
      std::snprintf(msg, sizeof msg, "WRONG count: got %lld, expected %lld", count, e.count);
      return msg;
    }
    len = static_cast<std::size_t>(count);
  }
  const bool float_out = p.type == Elem::f32 && p.task != Task::find_repeats && p.task != Task::compact &&
                         p.task != Task::bank_read;
  for (std::size_t i = 0; i < len; ++i) {
    const std::uint32_t got = out[i];
    bool ok;
    if (e.exact) {
      ok = got == static_cast<std::uint32_t>(static_cast<std::int64_t>(e.value[i]));
    } else {
      const double g = bits_float(got);
      ok = std::fabs(g - e.value[i]) <= e.rel_tol * e.scale[i] + kAbsTol;  // false for NaN
    }
    if (!ok) {
      if (float_out)
        std::snprintf(msg, sizeof msg, "WRONG at index %zu: got %.9g, expected %.9g", i,
                      static_cast<double>(bits_float(got)),
                      e.exact ? static_cast<double>(bits_float(static_cast<std::uint32_t>(e.value[i]))) : e.value[i]);
      else if (p.task == Task::bank_read)
        std::snprintf(msg, sizeof msg, "WRONG at index %zu: got %u, expected %u", i, got,
                      static_cast<std::uint32_t>(e.value[i]));
      else
        std::snprintf(msg, sizeof msg, "WRONG at index %zu: got %d, expected %.0f", i,
                      static_cast<std::int32_t>(got), e.value[i]);
      return msg;
    }
  }
  return "ok";
}

double task_bytes(const Problem& p, long long count, int word_bytes) {
  const double n = static_cast<double>(p.shape.is_2d() ? static_cast<std::size_t>(p.shape.width) * p.shape.height
                                                       : p.shape.n);
  const double s = static_cast<double>(elem_size(p.type));
  switch (p.task) {
    case Task::reduce_sum: return n * s;
    case Task::exclusive_scan:
    case Task::transpose:
    case Task::convolve: return 2 * n * s;
    case Task::find_repeats:
    case Task::compact: return n * s + static_cast<double>(count < 0 ? 0 : count) * s;
    case Task::segmented_scan: return 3 * n * s;
    case Task::bank_read: return n * kBankIters * word_bytes;
  }
  return 0;
}

namespace {
double elements(const Shape& s) {
  return static_cast<double>(s.is_2d() ? static_cast<std::size_t>(s.width) * s.height : s.n);
}
}  // namespace

double host_bytes_needed(Task task, Elem type, const Shape& shape) {
  const double n = elements(shape), out = task == Task::reduce_sum ? 1 : n;
  const double in = task == Task::bank_read ? 0 : 4 * n;
  const double flags = task == Task::segmented_scan ? 4 * n : 0;
  const bool tolerance = type == Elem::f32 && (task == Task::reduce_sum || task == Task::exclusive_scan ||
                                               task == Task::segmented_scan || task == Task::convolve);
  return in + flags + out * (8 + (tolerance ? 8 : 0) + 4);
}

double device_bytes_needed(Task task, Elem, const Shape& shape) {
  const double n = elements(shape);
  const double in = task == Task::bank_read ? 0 : 4 * n;
  const double flags = task == Task::segmented_scan ? 4 * n : 0;
  return in + flags + 4 * n /* output (also the copy line's) */ + 4 * n /* scratch, about */;
}

double copy_bytes(const Problem& p) {
  if (p.task == Task::bank_read) return 0;
  return static_cast<double>(p.in.size()) * static_cast<double>(elem_size(p.type));
}

int bank_phases(int word_bytes) { return word_bytes <= 4 ? 1 : word_bytes / 4; }

double bank_wavefronts(int word_bytes, int stride) {
  const int phases = bank_phases(word_bytes);
  const int lanes_per_phase = 32 / phases;
  long long total = 0;
  for (int offset = 0; offset < 32; ++offset) {
    for (int ph = 0; ph < phases; ++ph) {
      // Distinct 32-bit words per bank touched by this phase's lanes.
      std::vector<std::vector<long long>> bank(32);
      for (int l = ph * lanes_per_phase; l < (ph + 1) * lanes_per_phase; ++l) {
        const long long elem = static_cast<long long>(l) * stride + offset;
        const long long first = elem * word_bytes / 4;
        const long long words = word_bytes >= 4 ? word_bytes / 4 : 1;
        for (long long w = first; w < first + words; ++w) {
          std::vector<long long>& b = bank[w % 32];
          if (std::find(b.begin(), b.end(), w) == b.end()) b.push_back(w);
        }
      }
      std::size_t worst = 0;
      for (const auto& b : bank) worst = std::max(worst, b.size());
      total += static_cast<long long>(worst);
    }
  }
  return static_cast<double>(total) / 32.0;
}

}  // namespace circles::lab
