#!/usr/bin/env python3
"""Pathological (legal) inputs for `streamlife check`, and their cost.

Generates the inputs of the reliability sweep's scale rows (1e: 109, 110,
114, 117, 118, 123, 126) and prints, side by side in one run, the time and
peak RSS of `streamlife check` and of `clang++-22 -fsyntax-only` on each,
with the exit status and the number of warnings.

  bench/checker/pathological.py --build-dir build            # the table
  bench/checker/pathological.py --emit deep-loop-nest 40     # one input to stdout

Shapes (N is the size):
  sequential-buggy   one function, N x {alloc; record/wait; launch; free}, a bug each   (#109)
  sequential-clean   the same, waiting before the free                               (#110)
  deep-loop-nest     N nested loops, a use in the innermost, the free after          (#114)
  if-else-branches   N x if (c[i]) launch else record/wait, one buffer               (#117)
  if-branches        N x if (c[i]) launch, then wait and free (correct)              (#118)
  helper-chain       h0 -> h1 -> ... -> hN, each launching, callees first            (#123)
  forward-chain      the same chain, callers first (forward declarations)            (#126)
  else-if-chain      if (c[0]) launch else if (c[1]) launch ... N deep, then free      (clang's parser recursion)
  many-functions-clean  N functions, each alloc/use/hand-off/free, correct            (#105)
  many-functions-buggy  the same without the hand-off: N findings                    (#106)
  alive-at-once      N buffers allocated, all used, then all freed (a bug each)      (#111)
  nest-realloc       N nested loops, use, free and realloc in the innermost          (#112)
  free-in-nest       N nested loops, the free right after the innermost loop         (#116)
  switch-cases       a switch of N cases, each a launch, then free                   (#120)
  stream-chain       N streams and events handing the buffer on, free on s0          (#121)
  stream-chain-loop  the same chain inside a loop                                    (#122)
  callee-chain       h0 -> ... -> hN, callees first, one launch at the bottom        (#124)
  recursion          self- and mutual recursion launching on the buffer              (#127)
  macro-chain        a macro defined through N levels of macros                      (#128)
  template-depth     template<int N> recursion N deep around a launch                (#128)
  long-expression    one call argument of N terms                                    (#129)
  one-line           sequential-buggy N joined onto one source line                  (#130)
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

HEADER = "#include <cuda_runtime.h>\n__global__ void k(float *p) {}\n"


def sequential(n, clean):
    body = []
    for i in range(n):
        body.append("  { float *p%d; cudaMallocAsync(&p%d, 4, a);" % (i, i))
        body.append("    cudaEventRecord(e, a); cudaStreamWaitEvent(b, e, 0);")
        body.append("    k<<<1, 1, 0, b>>>(p%d);" % i)
        if clean:
            body.append("    cudaEventRecord(e, b); cudaStreamWaitEvent(a, e, 0);")
        body.append("    cudaFreeAsync(p%d, a); }" % i)
    return (HEADER + "void f(cudaStream_t a, cudaStream_t b, cudaEvent_t e) {\n"
            + "\n".join(body) + "\n}\n")


def deep_loop_nest(n):
    lines = [HEADER, "void f(cudaStream_t a, cudaStream_t b, int m) {",
             "  float *p;", "  cudaMallocAsync(&p, 4, a);"]
    for i in range(n):
        lines.append("  " * (i + 1) + "for (int i%d = 0; i%d < m; ++i%d) {" % (i, i, i))
    lines.append("  " * (n + 1) + "k<<<1, 1, 0, b>>>(p);")
    for i in reversed(range(n)):
        lines.append("  " * (i + 1) + "}")
    lines.append("  cudaFreeAsync(p, a);")
    lines.append("}")
    return "\n".join(lines) + "\n"


def branches(n, with_else):
    lines = [HEADER,
             "void f(cudaStream_t a, cudaStream_t b, cudaEvent_t e, const int *c) {",
             "  float *p;", "  cudaMallocAsync(&p, 4, a);",
             "  cudaEventRecord(e, a);", "  cudaStreamWaitEvent(b, e, 0);"]
    for i in range(n):
        if with_else:
            lines.append("  if (c[%d]) k<<<1, 1, 0, b>>>(p); else { cudaEventRecord(e, b); "
                         "cudaStreamWaitEvent(a, e, 0); }" % i)
        else:
            lines.append("  if (c[%d]) k<<<1, 1, 0, b>>>(p);" % i)
    if not with_else:
        lines.append("  cudaEventRecord(e, b);")
        lines.append("  cudaStreamWaitEvent(a, e, 0);")
    lines.append("  cudaFreeAsync(p, a);")
    lines.append("}")
    return "\n".join(lines) + "\n"


def else_if_chain(n):
    lines = [HEADER,
             "void f(cudaStream_t a, cudaStream_t b, const int *c) {",
             "  float *p;", "  cudaMallocAsync(&p, 4, a);",
             "  if (c[0]) k<<<1, 1, 0, b>>>(p);"]
    for i in range(1, n):
        lines.append("  else if (c[%d]) k<<<1, 1, 0, b>>>(p);" % i)
    lines.append("  cudaFreeAsync(p, a);")
    lines.append("}")
    return "\n".join(lines) + "\n"


def helper_chain(n, callers_first):
    out = [HEADER]
    def helper(i):
        if i == n - 1:
            return "void h%d(float *p, cudaStream_t s) { k<<<1, 1, 0, s>>>(p); }" % i
        return ("void h%d(float *p, cudaStream_t s) { k<<<1, 1, 0, s>>>(p); h%d(p, s); }"
                % (i, i + 1))
    main = ("void f(cudaStream_t a, cudaStream_t b) { float *p; cudaMallocAsync(&p, 4, a);"
            " h0(p, b); cudaFreeAsync(p, a); }")
    if callers_first:
        out += ["void h%d(float *p, cudaStream_t s);" % i for i in range(n)]
        out.append(main)
        out += [helper(i) for i in range(n)]
    else:
        out += [helper(i) for i in reversed(range(n))]
        out.append(main)
    return "\n".join(out) + "\n"


def many_functions(n, clean):
    out = [HEADER]
    for i in range(n):
        hand_off = ("  cudaEventRecord(e, b); cudaStreamWaitEvent(a, e, 0);\n"
                    if clean else "")
        out.append("void f%d(cudaStream_t a, cudaStream_t b, cudaEvent_t e) {\n"
                   "  float *p; cudaMallocAsync(&p, 4, a);\n"
                   "  cudaEventRecord(e, a); cudaStreamWaitEvent(b, e, 0);\n"
                   "  k<<<1, 1, 0, b>>>(p);\n%s"
                   "  cudaFreeAsync(p, a);\n}\n" % (i, hand_off))
    return "".join(out)


def alive_at_once(n):
    lines = [HEADER, "void f(cudaStream_t a, cudaStream_t b, cudaEvent_t e) {"]
    lines += ["  float *p%d; cudaMallocAsync(&p%d, 4, a);" % (i, i) for i in range(n)]
    lines.append("  cudaEventRecord(e, a); cudaStreamWaitEvent(b, e, 0);")
    lines += ["  k<<<1, 1, 0, b>>>(p%d);" % i for i in range(n)]
    lines += ["  cudaFreeAsync(p%d, a);" % i for i in range(n)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def nest(n, innermost, after_innermost):
    lines = [HEADER, "void f(cudaStream_t a, cudaStream_t b, cudaEvent_t e, int m) {",
             "  float *p;", "  cudaMallocAsync(&p, 4, a);",
             "  cudaEventRecord(e, a); cudaStreamWaitEvent(b, e, 0);"]
    for i in range(n):
        lines.append("  " * (i + 1) + "for (int i%d = 0; i%d < m; ++i%d) {" % (i, i, i))
    lines += ["  " * (n + 1) + line for line in innermost]
    for i in reversed(range(n)):
        lines.append("  " * (i + 1) + "}")
        if i == n - 1:
            lines += ["  " * (i + 1) + line for line in after_innermost]
    lines.append("}")
    return "\n".join(lines) + "\n"


def switch_cases(n):
    lines = [HEADER, "void f(cudaStream_t a, cudaStream_t b, int c) {",
             "  float *p;", "  cudaMallocAsync(&p, 4, a);", "  switch (c) {"]
    lines += ["  case %d: k<<<1, 1, 0, b>>>(p); break;" % i for i in range(n)]
    lines += ["  }", "  cudaFreeAsync(p, a);", "}"]
    return "\n".join(lines) + "\n"


def stream_chain(n, in_loop):
    lines = [HEADER, "void f(cudaStream_t *s, cudaEvent_t *e, int m) {",
             "  float *p;", "  cudaMallocAsync(&p, 4, s[0]);"]
    body = []
    for i in range(1, n):
        body.append("cudaEventRecord(e[%d], s[%d]); cudaStreamWaitEvent(s[%d], e[%d], 0); "
                    "k<<<1, 1, 0, s[%d]>>>(p);" % (i - 1, i - 1, i, i - 1, i))
    if in_loop:
        lines.append("  for (int it = 0; it < m; ++it) {")
        lines += ["    " + line for line in body]
        lines.append("  }")
    else:
        lines += ["  " + line for line in body]
    lines += ["  cudaFreeAsync(p, s[0]);", "}"]
    return "\n".join(lines) + "\n"


def callee_chain(n):
    out = [HEADER, "void h%d(float *p, cudaStream_t s) { k<<<1, 1, 0, s>>>(p); }" % (n - 1)]
    out += ["void h%d(float *p, cudaStream_t s) { h%d(p, s); }" % (i, i + 1)
            for i in reversed(range(n - 1))]
    out.append("void f(cudaStream_t a, cudaStream_t b) { float *p; cudaMallocAsync(&p, 4, a);"
               " h0(p, b); cudaFreeAsync(p, a); }")
    return "\n".join(out) + "\n"


def recursion(_n):
    return HEADER + """void self(float *p, cudaStream_t s, int d) {
  k<<<1, 1, 0, s>>>(p);
  if (d) self(p, s, d - 1);
}
void pong(float *p, cudaStream_t s, int d);
void ping(float *p, cudaStream_t s, int d) { if (d) pong(p, s, d - 1); }
void pong(float *p, cudaStream_t s, int d) { k<<<1, 1, 0, s>>>(p); if (d) ping(p, s, d - 1); }
void f(cudaStream_t a, cudaStream_t b) {
  float *p; cudaMallocAsync(&p, 4, a);
  self(p, b, 3);
  cudaFreeAsync(p, a);
  float *q; cudaMallocAsync(&q, 4, a);
  ping(q, b, 3);
  cudaFreeAsync(q, a);
}
"""


def macro_chain(n):
    out = [HEADER, "#define M0(p, s) k<<<1, 1, 0, s>>>(p)"]
    out += ["#define M%d(p, s) M%d(p, s)" % (i, i - 1) for i in range(1, n)]
    out.append("void f(cudaStream_t a, cudaStream_t b) { float *p; cudaMallocAsync(&p, 4, a);"
               " M%d(p, b); cudaFreeAsync(p, a); }" % (n - 1))
    return "\n".join(out) + "\n"


def template_depth(n):
    return (HEADER + "template <int N> struct D { static void go(float *p, cudaStream_t s) "
            "{ D<N - 1>::go(p, s); } };\n"
            "template <> struct D<0> { static void go(float *p, cudaStream_t s) "
            "{ k<<<1, 1, 0, s>>>(p); } };\n"
            "void f(cudaStream_t a, cudaStream_t b) { float *p; cudaMallocAsync(&p, 4, a);"
            " D<%d>::go(p, b); cudaFreeAsync(p, a); }\n" % n)


def long_expression(n):
    terms = " + ".join("c[%d]" % (i % 64) for i in range(n))
    return (HEADER + "__global__ void kn(float *p, int n) {}\n"
            "void f(cudaStream_t a, cudaStream_t b, const int *c) { float *p; "
            "cudaMallocAsync(&p, 4, a);\n  kn<<<1, 1, 0, b>>>(p, " + terms + ");\n"
            "  cudaFreeAsync(p, a); }\n")


def one_line(n):
    text = sequential(n, False)
    header, rest = text.split("\n", 1)
    return header + "\n" + rest.replace("\n", " ") + "\n"


SHAPES = {
    "sequential-buggy": (lambda n: sequential(n, False), [1000, 4000, 16000]),
    "sequential-clean": (lambda n: sequential(n, True), [1000, 4000, 16000]),
    "deep-loop-nest": (deep_loop_nest, [32, 40, 60]),
    "if-else-branches": (lambda n: branches(n, True), [1000, 4000]),
    "if-branches": (lambda n: branches(n, False), [1000, 4000]),
    "else-if-chain": (else_if_chain, [5000, 10000]),
    "helper-chain": (lambda n: helper_chain(n, False), [1000, 5000]),
    "forward-chain": (lambda n: helper_chain(n, True), [12500, 30000]),
    "many-functions-clean": (lambda n: many_functions(n, True), [18200]),
    "many-functions-buggy": (lambda n: many_functions(n, False), [18200]),
    "alive-at-once": (alive_at_once, [2000]),
    "nest-realloc": (lambda n: nest(n, ["k<<<1, 1, 0, b>>>(p);", "cudaFreeAsync(p, a);",
                                        "cudaMallocAsync(&p, 4, a);"], []), [10, 30, 60]),
    "free-in-nest": (lambda n: nest(n, ["k<<<1, 1, 0, b>>>(p);"],
                                    ["cudaFreeAsync(p, a);", "cudaMallocAsync(&p, 4, a);"]),
                     [40]),
    "switch-cases": (switch_cases, [1000, 4000]),
    "stream-chain": (lambda n: stream_chain(n, False), [500, 1000]),
    "stream-chain-loop": (lambda n: stream_chain(n, True), [500]),
    "callee-chain": (callee_chain, [1000, 10000, 30000]),
    "recursion": (recursion, [1]),
    "macro-chain": (macro_chain, [1000]),
    "template-depth": (template_depth, [100, 500, 1000]),
    "long-expression": (long_expression, [50000]),
    "one-line": (one_line, [250, 1000]),
}


def measure_isolated(cmd):
    """Time, peak RSS (MB), exit status and warning count of cmd, measured by a
    fresh interpreter so that the peak RSS is this command's alone."""
    wrapper = [sys.executable, "-c",
               "import resource,subprocess,sys,time\n"
               "t=time.monotonic()\n"
               "p=subprocess.run(sys.argv[1:],stdout=subprocess.PIPE,stderr=subprocess.STDOUT)\n"
               "e=time.monotonic()-t\n"
               "r=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024.0\n"
               "w=p.stdout.count(b'warning:')\n"
               "print('%f %f %d %d'%(e,r,p.returncode,w))"] + cmd
    out = subprocess.run(wrapper, stdout=subprocess.PIPE).stdout.decode().split()
    return float(out[0]), float(out[1]), int(out[2]), int(out[3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--clang", default="clang++-22")
    parser.add_argument("--cuda-path", default="/usr/local/cuda")
    parser.add_argument("--emit", nargs=2, metavar=("SHAPE", "N"),
                        help="print one generated input and exit")
    parser.add_argument("--only", nargs="*", help="shapes to run (default: all)")
    parser.add_argument("--sizes", nargs="*", type=int, help="override the sizes")
    args = parser.parse_args()

    if args.emit:
        shape, n = args.emit
        if shape not in SHAPES:
            sys.exit("pathological.py: unknown shape %r" % shape)
        sys.stdout.write(SHAPES[shape][0](int(n)))
        return

    streamlife = os.path.join(args.build_dir, "bin", "streamlife")
    cuda = ["-x", "cuda", "--cuda-host-only", "-nocudalib",
            "--cuda-path=" + args.cuda_path]
    print("| shape | N | streamlife s | MB | exit | warnings | -fsyntax-only s | MB | time ratio | memory ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for shape, (make, sizes) in SHAPES.items():
            if args.only and shape not in args.only:
                continue
            for n in args.sizes or sizes:
                path = os.path.join(tmp, "%s-%d.cu" % (shape, n))
                with open(path, "w") as f:
                    f.write(make(n))
                t, m, rc, w = measure_isolated([streamlife, "check", path, "--"] + cuda)
                pt, pm, _, _ = measure_isolated([args.clang, "-fsyntax-only"] + cuda + [path])
                print("| %s | %d | %.2f | %.0f | %d | %d | %.2f | %.0f | %.2f | %.2f |"
                      % (shape, n, t, m, rc, w, pt, pm, t / pt if pt else 0, m / pm if pm else 0))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
