// NumPy's array files: a reader for .npz (a zip of .npy members, stored or deflated, zip64
// included) and bare .npy files, and a writer of both. Reading maps the file once and points
// stored members' data straight into the mapping, so a multi-gigabyte file opens in time
// proportional to its number of members, not its size; the same reader works on bytes already in
// memory (read_npz_bytes, read_npy_bytes), pointing into them. Every offset and size in a file is
// checked before use: a truncated or hostile file gives an NpyError, never a crash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace circles {

// A bad .npy/.npz file. what() reads "FILE: key 'KEY': error: MESSAGE", or "FILE: error: MESSAGE"
// when key is empty.
class NpyError : public std::runtime_error {
 public:
  NpyError(std::string file, std::string key, std::string message);
  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, key_, message_;
};

// One array read from a file.
struct NpyArray {
  std::string key;                   // member name without ".npy" ("" for a bare .npy file)
  std::string descr;                 // dtype as in the header: "<f4", "|u1", "<i8", "|b1", ...
  std::vector<std::uint64_t> shape;  // a scalar's shape () is empty
  bool fortran_order = false;
  const void* data = nullptr;          // the array's bytes (nbytes of them); may be unaligned
  std::uint64_t nbytes = 0;            // count() * itemsize()
  // Keeps `data` alive: the file's mapping, an owned buffer (an inflated member), or the owner
  // given to read_*_bytes (null if none was: then the caller's bytes must outlive the array).
  std::shared_ptr<const void> keeper;
  bool mapped = false;  // data points into a read-only mapping of the file (no copy; false for the
                        // read_*_bytes functions, whose stored members point into the caller's bytes)

  std::uint64_t count() const;  // product of shape (1 for a scalar)
  int itemsize() const;         // bytes per element, from descr (0 if descr is not simple)
  char kind() const;            // 'f', 'i', 'u' or 'b', from descr ('\0' if not simple)
  bool little_endian_or_single_byte() const;
};

// Reads every member of the .npz at `path`, in the zip directory's order. Stored members are not
// copied: their data points into one private read-only mapping of the whole file, which `keeper`
// holds. Deflated members (np.savez_compressed) are inflated into memory of their own and their
// CRC-32 checked. Throws NpyError.
std::vector<NpyArray> read_npz(const std::string& path);

// Reads the bare .npy file at `path` (mapped, as above); its key is "". Throws NpyError.
NpyArray read_npy(const std::string& path);

// read_npz and read_npy on the `size` bytes at `data` (a whole .npz or .npy file) instead of a
// file: the same checks, and `name` stands for the path in every message. Nothing is copied but
// deflated members: stored members' data points into `data`, which must stay valid and unchanged
// for as long as the arrays (and anything made from them, such as a Scene's circles) are used.
// Their keeper is `owner`: pass the bytes' owner to have the arrays keep them alive, or null to
// keep them alive yourself. Throws NpyError.
std::vector<NpyArray> read_npz_bytes(const void* data, std::size_t size, const std::string& name,
                                     std::shared_ptr<const void> owner = nullptr);
NpyArray read_npy_bytes(const void* data, std::size_t size, const std::string& name,
                        std::shared_ptr<const void> owner = nullptr);

// An array to write: `data` holds nbytes = product(shape) * itemsize bytes, C order.
struct NpyOut {
  std::string key;
  std::string descr;
  std::vector<std::uint64_t> shape;
  const void* data = nullptr;
  std::uint64_t nbytes = 0;
};

// Writes `arrays` as an uncompressed .npz, members in the given order, each member's array data at
// a file offset that is a multiple of 64 (zip64 records where sizes or offsets need them). The
// file is written to a temporary file in the same directory, synced and renamed over `path`, so a
// failure never leaves a partial file and never touches an existing one. Throws
// std::runtime_error "cannot write scene 'PATH': reason".
void write_npz(const std::string& path, const std::vector<NpyOut>& arrays);

// The bytes write_npz would write, returned instead of written (no file is touched). `name`
// stands for the path in messages: "cannot write scene 'NAME': reason".
std::string write_npz_bytes(const std::vector<NpyOut>& arrays, const std::string& name);

// Writes `array` as a bare .npy file, its data at a file offset that is a multiple of 64
// (atomically, as write_npz). Its key is not used.
void write_npy(const std::string& path, const NpyOut& array);

}  // namespace circles
