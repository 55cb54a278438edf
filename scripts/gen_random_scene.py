#!/usr/bin/env python3
"""Writes a scene file of N random flat circles of one radius (in pixels of a 1024-pixel frame),
alpha .5, on white: the scenes behind the tiny-circle kernel's threshold (docs/ARCHITECTURE.md).

Usage: scripts/gen_random_scene.py N RADIUS_PIXELS OUT.scene   (e.g. 500000 2 r2.scene)
"""
import math
import os
import random
import sys


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.strip())
    try:
        n, rpx = int(argv[1]), float(argv[2])
    except ValueError:
        sys.exit("gen_random_scene: N must be an integer and RADIUS_PIXELS a number\n" + __doc__.strip())
    # The scene format's limits (docs/FORMAT.md): at most 1e8 circles, a radius in (0, 1e6]; the
    # radius is written with 9 significant digits, so any positive float survives the round trip.
    if not 0 <= n <= 100000000 or not (math.isfinite(rpx) and 0 < rpx / 1024 <= 1e6):
        sys.exit("gen_random_scene: N must be 0..100000000 and RADIUS_PIXELS a finite number over 0 "
                 "(at most 1024e6)")
    random.seed(5)
    r = rpx / 1024
    tmp = argv[3] + ".tmp%d" % os.getpid()
    try:
        with open(tmp, "w") as f:
            f.write("circles-scene 1\nsize 1024 1024\nbackground solid 1 1 1\nshading flat\ncount %d\n" % n)
            for _ in range(n):
                f.write("%.6f %.6f 0 %.9g %.3f %.3f %.3f 0.5\n" % (random.random(), random.random(), r,
                                                                 random.random(), random.random(), random.random()))
        os.replace(tmp, argv[3])
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        sys.exit("gen_random_scene: cannot write %s: %s" % (argv[3], e.strerror or e))


if __name__ == "__main__":
    main(sys.argv)
