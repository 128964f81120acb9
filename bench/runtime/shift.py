#!/usr/bin/env python3
"""How much a validated run costs over a plain one, with the uncertainty the
runs leave, and whether that settles a target.

The lent GPU hosts move a run's time more than the validator does: plain runs
of the launch-bound loop fall in two groups about 1 us apart, and FSDP2's step
moved from 1.04x to 1.41x between two calls for the same build
(bench/runtime/README.md, session 16). A difference of medians then says
"met" or "MISSED" by the luck of one run. So the cost is the Hodges-Lehmann
shift (the median of every validated-minus-plain difference between the two
sets of runs), with its distribution-free confidence interval (the
Mann-Whitney order statistics of those differences, exact for these sizes),
and a target is
  met          when the whole interval is within it,
  MISSED       when the whole interval is past it,
  not settled  otherwise, or when the runs are too few for an interval of the
               confidence asked (3 runs a side give at most 90%).
A ratio (FSDP2's step) is the same on the logarithms of the times.

Runs from several device calls (several hosts, each with its own speed) pool
as blocks: each --plain/--validated pair is one call's runs, only runs of one
call are compared with each other, and the blocks share one shift (van
Elteren's stratified rank test, unweighted: the sum of the blocks' Mann-Whitney
counts, whose exact distribution is the convolution of theirs). The estimate
is the median of the within-call differences and the interval their order
statistics, as for one block, which it reduces to. One call's ten runs a side
leave FSDP2's ratio about +-8%; pooling calls of one build narrows it without
comparing a fast host's plain runs with a slow host's validated ones.

Runs made together (torch_workloads.py --together: a plain run and a validated
one started at the same moment on disjoint cores of one host) share what the
host does while they run, so each round is one pair, and the cost is read
from the pairs alone (--paired): the Hodges-Lehmann estimate of the
within-pair differences (the median of their Walsh averages) and its
distribution-free interval (Wilcoxon's signed-rank order statistics, exact),
which assume only that a pair's difference is as likely above the cost as
below it.

  shift.py --plain 4.1,4.8,3.9 --validated 4.6,5.1,4.4 [--plain ... --validated ...] --bar 0.5
           [--ratio] [--confidence 0.9]
  shift.py --paired --plain 4.1,4.8,3.9,4.0,4.2,4.4 --validated 4.6,5.1,4.4,4.5,4.8,4.9 --bar 0.5 [--ratio]

compare.py and torch_workloads.py import it. Exit 0; 2 on bad usage.
"""
import argparse
import math
import statistics
import sys


def _rank_sum_counts(m, n):
    """How many of the C(m+n, m) orderings of m validated and n plain runs give each Mann-Whitney
    count U = 0 .. m*n (U: the pairs in which the validated run is the slower): the coefficients of
    the Gaussian binomial [m+n choose m] in q, the product over i = 1..m of (1 - q^(n+i)) / (1 - q^i),
    computed as a power series up to q^(m*n) (each factor changes no lower coefficient), exactly
    and in O(m * m * n): 40 rounds a side take milliseconds."""
    size = m * n + 1
    series = [1] + [0] * (size - 1)
    for i in range(1, m + 1):
        for u in range(size - 1, n + i - 1, -1):  # times (1 - q^(n+i)), highest first
            series[u] -= series[u - (n + i)]
        for u in range(i, size):  # over (1 - q^i), lowest first
            series[u] += series[u - i]
    return series


def _convolve(a, b):
    """The counts of a sum of two independent counts, from the counts of each."""
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def shift_interval(plain, validated, confidence=0.9):
    """(low, high, achieved confidence) for the shift, or None when no interval reaches `confidence`."""
    return blocked_interval([(plain, validated)], confidence)


def blocked_interval(blocks, confidence=0.9):
    """shift_interval over blocks [(plain, validated), ...] that share one shift: runs are compared only
    within their block. The count of within-block differences above the shift is the sum of the blocks'
    independent Mann-Whitney counts, so its distribution is the convolution of theirs."""
    if not blocks or any(not plain or not validated for plain, validated in blocks):
        return None
    diffs = sorted(v - p for plain, validated in blocks for v in validated for p in plain)
    counts, total = [1], 1
    for plain, validated in blocks:
        m, n = len(validated), len(plain)
        counts = _convolve(counts, _rank_sum_counts(m, n))
        total *= math.comb(m + n, m)
    return _order_interval(diffs, counts, total, confidence)


def _order_interval(ordered, counts, total, confidence):
    """The interval from `ordered` (sorted differences or Walsh averages) whose statistic has the null
    distribution `counts` out of `total`: the largest k with P(stat < k) <= (1 - confidence) / 2 gives
    the k-th smallest to the k-th largest (1-based), at confidence 1 - 2 P(stat < k); None when no k
    reaches it."""
    tail, k, below = (1 - confidence) / 2, 0, 0
    while k < len(counts) and (below + counts[k]) / total <= tail + 1e-12:
        below += counts[k]
        k += 1
    if k == 0:
        return None
    return ordered[k - 1], ordered[len(ordered) - k], 1 - 2 * below / total


def _signed_rank_counts(n):
    """How many of the 2^n sign patterns of n pairs give each Wilcoxon signed-rank sum T = 0 .. n(n+1)/2
    (T: the sum of the ranks of the positive differences): the coefficients of the product over
    i = 1..n of (1 + q^i)."""
    size = n * (n + 1) // 2 + 1
    counts = [1] + [0] * (size - 1)
    for i in range(1, n + 1):
        for t in range(size - 1, i - 1, -1):
            counts[t] += counts[t - i]
    return counts


def paired_interval(differences, confidence=0.9):
    """(low, high, achieved confidence) for the shift of paired runs, from their differences, or None when
    no interval reaches `confidence`: the k-th smallest Walsh average (d_i + d_j) / 2, i <= j, to the k-th
    largest, k the largest with P(T < k) <= (1 - confidence) / 2."""
    n = len(differences)
    if n == 0:
        return None
    walsh = sorted((differences[i] + differences[j]) / 2 for i in range(n) for j in range(i, n))
    return _order_interval(walsh, _signed_rank_counts(n), 2 ** n, confidence)


def judge_paired(pairs, bar, ratio=False, confidence=0.9):
    """judge for runs made in pairs [(plain, validated), ...]: (the line, the verdict alone)."""
    if not pairs or (ratio and any(p <= 0 or v <= 0 for p, v in pairs)):
        return "-", "not settled"
    scale = math.log if ratio else (lambda x: x)
    differences = [scale(v) - scale(p) for p, v in pairs]
    n = len(differences)
    middle = statistics.median((differences[i] + differences[j]) / 2 for i in range(n) for j in range(i, n))
    interval = paired_interval(differences, confidence)
    text = _estimate_text(middle, interval, "%d pairs run together" % n, ratio, confidence)
    return _judged(text, interval, bar, ratio)


def verdict(interval, bar):
    if interval is None:
        return "not settled (too few runs for an interval)"
    low, high = interval[0], interval[1]
    if high <= bar:
        return "met"
    if low > bar:
        return "MISSED"
    return "not settled"


def describe(plain, validated, bar, ratio=False, confidence=0.9):
    """One line: the estimate, its interval and the verdict against bar (a ratio when `ratio`)."""
    return judge(plain, validated, bar, ratio, confidence)[0]


def judge(plain, validated, bar, ratio=False, confidence=0.9):
    """(describe's line, the verdict alone: met, MISSED or not settled)."""
    return judge_blocks([(plain, validated)], bar, ratio, confidence)


def judge_blocks(blocks, bar, ratio=False, confidence=0.9):
    """judge over blocks [(plain, validated), ...], one per device call (blocked_interval)."""
    measured = _measure(blocks, ratio, confidence)
    if measured is None:
        return "-", "not settled"
    return _judged(*measured, bar, ratio)


def _judged(text, interval, bar, ratio):
    """(the estimate's text with the target and the verdict, the verdict alone)."""
    said = verdict(interval, math.log(bar) if ratio else bar)
    target = ("<=%.2fx" % bar) if ratio else ("<=%g" % bar)
    return "%s: %s %s" % (text, target, said), said.split(" (")[0]


def estimate(plain, validated, ratio=False, confidence=0.9):
    """The shift (or ratio) and its interval, no target: '+0.370 (90% interval -0.519 to +0.613; 10 + 10
    runs)'. Two validated settings compared with each other read it too (the first as `plain`)."""
    measured = _measure([(plain, validated)], ratio, confidence)
    return measured[0] if measured else "-"


def _measure(blocks, ratio, confidence):
    """(estimate's text, the interval on the scale compared: the logarithms' for a ratio); None for a
    ratio of times that are not all positive, or a block with no runs on a side."""
    if any(not plain or not validated for plain, validated in blocks):
        return None
    if ratio:
        if any(x <= 0 for plain, validated in blocks for x in plain + validated):
            return None
        blocks = [([math.log(x) for x in plain], [math.log(x) for x in validated]) for plain, validated in blocks]
    middle = statistics.median(v - p for plain, validated in blocks for v in validated for p in plain)
    interval = blocked_interval(blocks, confidence)
    runs = ", ".join("%d + %d" % (len(plain), len(validated)) for plain, validated in blocks)
    if len(blocks) > 1:
        runs += " runs in %d calls, compared within each" % len(blocks)
    else:
        runs += " runs"
    return _estimate_text(middle, interval, runs, ratio, confidence), interval


def _estimate_text(middle, interval, runs, ratio, confidence):
    """'+0.370 (90% interval -0.519 to +0.613; RUNS)', a ratio's read from its logarithms."""
    show = (lambda x: "%.3fx" % math.exp(x)) if ratio else (lambda x: "%+.3f" % x)
    where = ("%d%% interval %s to %s" % (round(interval[2] * 100), show(interval[0]), show(interval[1]))
             if interval else "no %d%% interval" % round(confidence * 100))
    return "%s (%s; %s)" % (show(middle), where, runs)


def _numbers(text):
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("not a comma-separated list of numbers: '%s'" % text)
    if not values:
        raise argparse.ArgumentTypeError("no numbers in '%s'" % text)
    return values


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plain", type=_numbers, action="append", required=True,
                        help="one call's plain runs; repeat with --validated for each further call")
    parser.add_argument("--validated", type=_numbers, action="append", required=True,
                        help="the validated runs of the call of the --plain in the same place")
    parser.add_argument("--bar", type=float, required=True, help="the target: a shift, or a ratio with --ratio")
    parser.add_argument("--ratio", action="store_true", help="the cost is validated / plain")
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument("--paired", action="store_true",
                        help="the runs were made in pairs (the i-th plain with the i-th validated, together)")
    args = parser.parse_args(argv)
    if not 0 < args.confidence < 1:
        parser.error("--confidence must be between 0 and 1")
    if args.paired:
        if len(args.plain) != 1 or len(args.validated) != 1 or len(args.plain[0]) != len(args.validated[0]):
            parser.error("--paired needs one --plain and one --validated of as many runs, a pair in each place")
        print(judge_paired(list(zip(args.plain[0], args.validated[0])), args.bar, args.ratio, args.confidence)[0])
        return 0
    if len(args.plain) != len(args.validated):
        parser.error("each call needs a --plain and a --validated: %d --plain against %d --validated"
                     % (len(args.plain), len(args.validated)))
    print(judge_blocks(list(zip(args.plain, args.validated)), args.bar, args.ratio, args.confidence)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
