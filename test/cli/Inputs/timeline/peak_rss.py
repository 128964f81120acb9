"""Runs a command and prints its exit status and the peak resident memory of
the largest process of its tree (the program under `streamlife run`), for
tests that check the validator's memory stays flat as a run grows.

Usage: peak_rss.py COMMAND...   prints "exit N peak_rss_kib K"
"""
import resource
import subprocess
import sys

status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("exit %d peak_rss_kib %d" % (status, peak))
