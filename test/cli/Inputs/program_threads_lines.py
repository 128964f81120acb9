"""torch_workloads.program_threads_lines on the CPU sampler's files of two
sampler_spin runs (cpu-sampler.test): "plain" is the main thread alone (300
ms); "streamlife" adds a 100 ms helper, a 200 ms thread that blocks every
signal and a 100 ms thread that runs in bursts. Steps: 3. The library counted
as the validator's is sampler_spin's own here (VALIDATOR_LIBRARY), so that the
"in" figures have something to count; VALIDATOR_THREADS, the prefix of the
names of the threads that are not the program's, is given by the test.

  program_threads_lines.py BENCH_DIR PLAIN_LOG PLAIN_FILES STREAMLIFE_LOG STREAMLIFE_FILES [VALIDATOR_THREADS]
"""
import glob
import sys

sys.path.insert(0, sys.argv[1])
import cpu_samples  # noqa: E402
import torch_workloads  # noqa: E402

cpu_samples.VALIDATOR_LIBRARY = "sampler_spin"
if len(sys.argv) > 6:
    cpu_samples.VALIDATOR_THREADS = sys.argv[6]
runs = []
for mode, log, pattern in (("plain", sys.argv[2], sys.argv[3]), ("streamlife", sys.argv[4], sys.argv[5])):
    windows = cpu_samples.windows_in(open(log).read())
    runs.append((mode, [(sorted(glob.glob(pattern)), windows)]))
for line in torch_workloads.program_threads_lines(runs, 3):
    print(line)
