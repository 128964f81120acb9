"""Compares the peak memory of a short and a long run (peak_rss.py lines):
flat when the long one, ten times as many launches, grew by less than
TOLERANCE_KIB. Prints both figures and "flat" or "grows"; exit 1 when it grows
or a run failed.

Usage: compare_peaks.py SHORT_FILE LONG_FILE TOLERANCE_KIB
"""
import sys


def read(path):
    words = open(path).read().split()
    return int(words[1]), int(words[3])


(short_exit, short_kib), (long_exit, long_kib) = read(sys.argv[1]), read(sys.argv[2])
tolerance = int(sys.argv[3])
growth = long_kib - short_kib
flat = short_exit == 0 and long_exit == 0 and growth < tolerance
print("short run: exit %d, %d KiB; long run: exit %d, %d KiB; growth %d KiB: %s" % (
    short_exit, short_kib, long_exit, long_kib, growth, "flat" if flat else "grows"))
sys.exit(0 if flat else 1)
