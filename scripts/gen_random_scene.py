#!/usr/bin/env python3
"""Writes a scene file of N random flat circles of one radius (in pixels of a 1024-pixel frame),
alpha .5, on white: the scenes behind the tiny-circle kernel's threshold (docs/ARCHITECTURE.md).

Usage: scripts/gen_random_scene.py N RADIUS_PIXELS OUT.scene   (e.g. 500000 2 r2.scene)
"""
import random
import sys


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.strip())
    try:
        n, rpx = int(argv[1]), float(argv[2])
    except ValueError:
        sys.exit("gen_random_scene: N must be an integer and RADIUS_PIXELS a number\n" + __doc__.strip())
    if n < 0 or not rpx > 0:
        sys.exit("gen_random_scene: N must be >= 0 and RADIUS_PIXELS > 0")
    random.seed(5)
    r = rpx / 1024
    with open(argv[3], "w") as f:
        f.write("circles-scene 1\nsize 1024 1024\nbackground solid 1 1 1\nshading flat\ncount %d\n" % n)
        for _ in range(n):
            f.write("%.6f %.6f 0 %.7f %.3f %.3f %.3f 0.5\n" % (random.random(), random.random(), r,
                                                             random.random(), random.random(), random.random()))


if __name__ == "__main__":
    main(sys.argv)
