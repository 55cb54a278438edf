#!/usr/bin/python3
"""Writes the binary scene reader's seed corpus, fuzz/corpus-npz/ (fuzz/README.md).

    /usr/bin/python3 fuzz/make_npz_corpus.py [OUT_DIR]     # default: fuzz/corpus-npz next to this file

Needs NumPy. Members are NumPy's own .npy bytes (numpy.lib.format.write_array) in zips written
as np.savez writes them (zipfile, force_zip64=True), but with a fixed date so that the same
NumPy writes the same bytes. `valid-*` files must load, `bad-*` ones must be refused (the
replay driver, fuzz/replay_main.cpp, holds them to their names). Every file stays under 4 KB.
Files of other names in OUT_DIR (valid-saved-*.npz, written by circles itself, and finding-*) are
left alone.
"""
import io
import os
import struct
import sys
import warnings
import zipfile

import numpy as np

DATE = (1980, 1, 1, 0, 0, 0)


def npy(arr, version=None):
    """The .npy bytes of `arr`, as NumPy writes them."""
    f = io.BytesIO()
    np.lib.format.write_array(f, np.asanyarray(arr), version=version, allow_pickle=False)
    return f.getvalue()


class Unseekable(io.RawIOBase):
    """A write-only stream without seek: zipfile then writes data descriptors after members."""

    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


def npz(members, compress=False, zip64=True, comment=b"", stream=False):
    """A zip of (name, bytes) members: stored or deflated, with zip64 local extra fields as np.savez
    writes them, optionally with an archive comment or data descriptors (a non-seekable stream)."""
    out = Unseekable() if stream else io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, "w", compression=method) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            with z.open(info, "w", force_zip64=zip64) as f:
                f.write(data)
        z.comment = comment
    return bytes(out.buf) if stream else out.getvalue()


def scene(**arrays):
    return [(k + ".npy", npy(v)) for k, v in arrays.items()]


def circles(n, cols=10, dtype=np.float32, seed=1):
    """`n` rows of packed circles, every value within the format's limits."""
    rng = np.random.default_rng(seed)
    rows = np.empty((n, cols))
    rows[:, 0:3] = rng.random((n, 3))
    rows[:, 3] = 0.01 + 0.1 * rng.random(n)
    rows[:, 4:8] = rng.random((n, 4))
    if cols == 10:
        rows[:, 8:10] = rng.random((n, 2)) - 0.5
    return rows.astype(dtype)


def patch(data, offset, new):
    return data[:offset] + new + data[offset + len(new):]


def find_all(data, sig):
    at, out = data.find(sig), []
    while at >= 0:
        out.append(at)
        at = data.find(sig, at + 1)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus-npz")
    os.makedirs(out_dir, exist_ok=True)
    files = {}

    # ---- Valid: every key, dtype, order, container variant the reader takes.
    full = scene(version=np.int64(1), size=np.array([320, 200], np.int64),
                 background=np.array([[0.1, 0.2, 0.4], [0.9, 0.8, 0.7]], np.float32),
                 shading=np.str_("snow"), animation=np.bytes_("fireworks"), seed=np.uint64(2**64 - 1),
                 frame=np.int64(2**62), has_velocity=np.bool_(True), circles=circles(4))
    files["valid-full.npz"] = npz(full)
    files["valid-packed8-f16-fortran.npz"] = npz(
        scene(circles=np.asfortranarray(circles(3, 8, np.float16)), size=np.array([7, 9], np.uint8)))
    files["valid-packed10-f64.npz"] = npz(
        scene(circles=circles(3, 10, np.float64), has_velocity=np.bool_(False),
              background=np.array([1, 1, 1, 0.5], np.float64)))
    files["valid-fields.npz"] = npz(scene(
        xy=np.array([[0.25, 0.5], [0.75, 0.5], [0.5, 0.5]], np.float32),
        radius=np.array([0.1, 0.2, 0.3], np.float64),
        color=np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float16),
        alpha=np.float32(0.5), z=np.array([0.1, 0.2, 0.3], np.float32),
        velocity=np.array([[0.1, 0], [0, 0.1], [-1e6, 1e6]], np.float32)))
    files["valid-fields-scalars.npz"] = npz(scene(
        xy=np.asfortranarray(np.array([[0.1, 0.2], [0.3, 0.4]], np.float64)), radius=np.float16(0.25),
        color=np.array([0.5, 0.5, 0.5, 1.0], np.float32), version=np.uint8(1), frame=np.int8(3),
        seed=np.int16(7), shading=np.str_("flat"), animation=np.str_("none")))
    files["valid-compressed.npz"] = npz(full, compress=True)
    files["valid-no-zip64.npz"] = npz(scene(circles=circles(2)), zip64=False)
    files["valid-data-descriptors.npz"] = npz(scene(circles=circles(2), size=np.array([64, 64])), stream=True)
    files["valid-comment.npz"] = npz(scene(circles=circles(1)), comment=b"a zip comment PK\x05\x06")
    files["valid-empty-circles.npz"] = npz(scene(circles=np.zeros((0, 10), np.float32)))
    files["valid-npy-v1.npy"] = npy(circles(3, 10))
    files["valid-npy-v2-8col.npy"] = npy(circles(3, 8, np.float64), version=(2, 0))
    files["valid-npy-v3.npy"] = npy(circles(2, 8, np.float16), version=(3, 0))

    # ---- Bad: the container.
    one = npz(scene(circles=circles(2)))
    files["bad-empty.npz"] = b""
    files["bad-truncated-zip.npz"] = one[: len(one) // 2]
    files["bad-truncated-end-record.npz"] = one[:-5]
    files["bad-member-cut.npz"] = one[:100] + one[116:]  # 16 bytes of data gone, the directory kept
    files["bad-not-a-zip.npz"] = b"not a zip file at all, and not a .npy either\n"
    files["bad-only-local-header.npz"] = one[:40]
    end = one.rfind(b"PK\x05\x06")
    files["bad-end-record-count.npz"] = patch(one, end + 8, struct.pack("<HH", 9, 9))
    files["bad-end-record-offset.npz"] = patch(one, end + 16, struct.pack("<I", 0xFFFFFF00))
    files["bad-end-record-size.npz"] = patch(one, end + 12, struct.pack("<I", 0x7FFFFFFF))
    files["bad-multi-disk.npz"] = patch(one, end + 4, struct.pack("<H", 1))
    central = one.find(b"PK\x01\x02")
    files["bad-central-name-length.npz"] = patch(one, central + 28, struct.pack("<H", 0xFFFF))
    files["bad-central-local-offset.npz"] = patch(one, central + 42, struct.pack("<I", 0xFFFFFFF0))
    files["bad-central-extra-length.npz"] = patch(one, central + 30, struct.pack("<H", 3))
    files["bad-local-name-mismatch.npz"] = patch(one, 30, b"x")
    files["bad-local-signature.npz"] = patch(one, 0, b"PK\x03\x05")
    files["bad-encrypted-flag.npz"] = patch(patch(one, 6, struct.pack("<H", 1)), central + 8, struct.pack("<H", 1))
    bz = npz(scene(circles=circles(2)))
    for at in find_all(bz, b"PK\x03\x04"):
        bz = patch(bz, at + 8, struct.pack("<H", 12))  # bzip2
    for at in find_all(bz, b"PK\x01\x02"):
        bz = patch(bz, at + 10, struct.pack("<H", 12))
    files["bad-bzip2-method.npz"] = bz
    stored_sizes = patch(one, central + 20, struct.pack("<I", 5))
    files["bad-stored-sizes-differ.npz"] = stored_sizes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate it is asked to write
        files["bad-duplicate-member.npz"] = npz(scene(circles=circles(1)) + scene(circles=circles(1)))
    files["bad-not-npy-member.npz"] = npz([("readme.txt", b"hello\n")])
    files["bad-member-not-npy-bytes.npz"] = npz([("circles.npy", b"PK\x03\x04 no magic")])
    comp = npz(scene(circles=circles(2)), compress=True)
    c_central = comp.find(b"PK\x01\x02")
    crc = struct.unpack("<I", comp[c_central + 16: c_central + 20])[0]
    files["bad-deflate-crc.npz"] = patch(comp, c_central + 16, struct.pack("<I", crc ^ 1))
    data_at = 30 + len("circles.npy") + struct.unpack("<H", comp[28:30])[0]
    files["bad-deflate-corrupt.npz"] = patch(comp, data_at, b"\xff\xff\xff")
    files["bad-deflate-truncated.npz"] = patch(comp, c_central + 20, struct.pack("<I", 10))
    files["bad-deflate-bomb-claim.npz"] = patch(comp, c_central + 24, struct.pack("<I", 0xFFFFFFF0))
    files["bad-deflate-size-short.npz"] = patch(comp, c_central + 24, struct.pack("<I", 100))
    # A zip64 end record whose locator points past it.
    dir_size, dir_off = struct.unpack("<II", one[end + 12: end + 20])
    rec = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 1, 1, dir_size, dir_off)
    for name, rec_at in (("bad-zip64-locator.npz", end + 1000), ("bad-zip64-record-entries.npz", None)):
        r = rec if rec_at else patch(rec, 24, struct.pack("<QQ", 5, 5))
        loc = struct.pack("<IIQI", 0x07064b50, 0, rec_at or end, 1)
        files[name] = one[:end] + r + loc + one[end:]
    good64 = one[:end] + rec + struct.pack("<IIQI", 0x07064b50, 0, end, 1) + one[end:]
    files["valid-zip64-end-record.npz"] = good64

    # ---- Bad: the .npy header and data.
    good = npy(circles(2))
    files["bad-npy-truncated.npy"] = good[:-3]
    files["bad-npy-extra-byte.npy"] = good + b"\0"
    files["bad-npy-version-4.npy"] = patch(good, 6, b"\x04\x00")
    files["bad-npy-version-1-1.npy"] = patch(good, 6, b"\x01\x01")
    files["bad-npy-huge-header-len.npy"] = patch(npy(circles(1), version=(2, 0)), 8, struct.pack("<I", 0xFFFFFFF0))
    files["bad-npy-header-len-short.npy"] = patch(good, 8, struct.pack("<H", 20))
    files["bad-npy-only-magic.npy"] = b"\x93NUMPY\x01"

    def with_header(text, data=b"", version=1):
        pad = text + " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
        pre = b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<H", len(pad))
        return pre + pad.encode("latin-1") + data

    files["bad-npy-shape-overflow.npy"] = with_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 10), }")
    files["bad-npy-negative-dim.npy"] = with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 10), }")
    files["bad-npy-unknown-key.npy"] = with_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 10), 'extra': 1, }")
    files["bad-npy-missing-shape.npy"] = with_header("{'descr': '<f4', 'fortran_order': False, }")
    files["bad-npy-duplicate-key.npy"] = with_header(
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (0, 10), }")
    files["bad-npy-text-after.npy"] = with_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 10), } x")
    files["bad-npy-unterminated.npy"] = with_header("{'descr': '<f4")
    files["bad-npy-escape.npy"] = with_header(
        "{'descr': '<f\\x34', 'fortran_order': False, 'shape': (0, 10), }")
    files["bad-npy-leading-zero.npy"] = with_header(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (01, 10), }", b"\0" * 40)
    files["bad-npy-one-dim-no-comma.npy"] = with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (10), }",
                                                        b"\0" * 40)
    files["bad-npy-structured.npy"] = with_header(
        "{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (1,), }", b"\0" * 8)
    files["bad-npy-object.npy"] = with_header("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8)
    files["bad-npy-fortran-maybe.npy"] = with_header(
        "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (0, 10), }")
    files["bad-npy-big-endian.npy"] = npy(circles(2).astype(">f4"))
    files["bad-npy-9-columns.npy"] = npy(circles(2, 10)[:, :9].copy())
    files["bad-npy-1d.npy"] = npy(np.zeros(10, np.float32))
    files["bad-npy-ints.npy"] = npy(np.zeros((2, 10), np.int32))
    files["bad-npy-nan.npy"] = npy(np.full((1, 8), np.nan, np.float32))

    # ---- Bad: the scene's keys and values.
    ok = dict(circles=circles(2))
    def bad(**kw):
        d = dict(ok)
        d.update(kw)
        return npz([(k + ".npy", npy(v)) for k, v in d.items() if v is not None])
    nan_radius = circles(2)
    nan_radius[1, 3] = np.nan
    files["bad-nan-radius.npz"] = bad(circles=nan_radius)
    neg = circles(2)
    neg[0, 3] = -0.5
    files["bad-negative-radius.npz"] = bad(circles=neg)
    tiny = circles(2, dtype=np.float64)
    tiny[0, 3] = 1e-300  # positive, but 0 as a float32
    files["bad-radius-underflow-f64.npz"] = bad(circles=tiny)
    big = circles(2)
    big[1, 0] = 2e6
    files["bad-x-too-large.npz"] = bad(circles=big)
    inf_alpha = circles(2, dtype=np.float16)
    inf_alpha[0, 7] = np.inf
    files["bad-inf-alpha-f16.npz"] = bad(circles=inf_alpha)
    alpha2 = circles(2)
    alpha2[0, 7] = 1.5
    files["bad-alpha-above-1.npz"] = bad(circles=alpha2)
    files["bad-wrong-dtype.npz"] = bad(circles=circles(2).astype(np.int32))
    files["bad-big-endian.npz"] = bad(circles=circles(2).astype(">f4"))
    files["bad-wrong-shape.npz"] = bad(circles=circles(3)[:, :9].copy())
    files["bad-3d-circles.npz"] = bad(circles=circles(4).reshape(2, 2, 10))
    files["bad-version-2.npz"] = bad(version=np.int64(2))
    files["bad-version-0.npz"] = bad(version=np.int64(0))
    files["bad-version-negative.npz"] = bad(version=np.int8(-1))
    files["bad-version-float.npz"] = bad(version=np.float32(1))
    files["bad-version-big-endian.npz"] = bad(version=np.array(1, ">i8"))
    files["bad-version-two-values.npz"] = bad(version=np.array([1, 1], np.int64))
    files["bad-unknown-key.npz"] = bad(colour=np.zeros(4, np.float32))
    files["bad-size-too-big.npz"] = bad(size=np.array([20000, 10], np.int64))
    files["bad-size-zero.npz"] = bad(size=np.array([0, 10], np.int64))
    files["bad-size-negative.npz"] = bad(size=np.array([-5, 10], np.int16))
    files["bad-size-three.npz"] = bad(size=np.array([1, 2, 3], np.int64))
    files["bad-size-float.npz"] = bad(size=np.array([10.0, 10.0]))
    files["bad-background-shape.npz"] = bad(background=np.zeros(2, np.float32))
    files["bad-background-range.npz"] = bad(background=np.array([0, 0, 2], np.float32))
    files["bad-background-nan.npz"] = bad(background=np.array([[0, 0, 0], [0, np.nan, 0]], np.float32))
    files["bad-shading-unknown.npz"] = bad(shading=np.str_("glossy"))
    files["bad-shading-non-ascii.npz"] = bad(shading=np.str_("sn\u00f6w"))
    files["bad-shading-number.npz"] = bad(shading=np.int64(1))
    files["bad-animation-unknown.npz"] = bad(animation=np.bytes_("spin"))
    files["bad-animation-array.npz"] = bad(animation=np.array(["snow", "none"]))
    files["bad-seed-negative.npz"] = bad(seed=np.int64(-1))
    files["bad-frame-too-large.npz"] = bad(frame=np.uint64(2**62 + 1))
    files["bad-frame-negative.npz"] = bad(frame=np.int32(-3))
    files["bad-has-velocity-8-columns.npz"] = bad(circles=circles(2, 8), has_velocity=np.bool_(True))
    files["bad-has-velocity-int.npz"] = bad(has_velocity=np.int8(1))
    files["bad-circles-and-xy.npz"] = bad(xy=np.zeros((2, 2), np.float32))
    xy = np.array([[0.25, 0.5], [0.75, 0.5]], np.float32)
    files["bad-fields-no-xy.npz"] = bad(circles=None, radius=np.float32(0.1))
    files["bad-fields-no-radius.npz"] = bad(circles=None, xy=xy)
    files["bad-fields-radius-count.npz"] = bad(circles=None, xy=xy, radius=np.ones(3, np.float32) * 0.1)
    files["bad-fields-xy-ints.npz"] = bad(circles=None, xy=xy.astype(np.int32), radius=np.float32(0.1))
    files["bad-fields-alpha-with-rgba.npz"] = bad(circles=None, xy=xy, radius=np.float32(0.1),
                                                  color=np.ones((2, 4), np.float32), alpha=np.float32(0.5))
    files["bad-fields-color-range.npz"] = bad(circles=None, xy=xy, radius=np.float32(0.1),
                                              color=np.array([0, 0, 2e6], np.float32))
    files["bad-fields-velocity-shape.npz"] = bad(circles=None, xy=xy, radius=np.float32(0.1),
                                                 velocity=np.zeros((2, 3), np.float32))
    files["bad-fields-xy-3d.npz"] = bad(circles=None, xy=np.zeros((1, 2, 2), np.float32), radius=np.float32(0.1))

    for name, data in sorted(files.items()):
        assert len(data) < 4096, (name, len(data))
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(files)} files to {out_dir}")


if __name__ == "__main__":
    main()
