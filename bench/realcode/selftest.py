#!/usr/bin/env python3
"""Self-test of the mutation engines on small programs of our own: each
engine must find exactly the expected sites (every operator where its
precondition holds, none where it does not), and, when a built streamlife is
given, streamlife must report every mutant of these simple shapes (a mutant
it cannot see here would be a defect of the engine, not a miss).

usage: selftest.py [--build-dir build] [--torch-include DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mutate_cpp  # noqa: E402
import mutate_python  # noqa: E402
import precision  # noqa: E402

PYTHON = '''import torch


def pipeline(n):
    s = torch.cuda.Stream()
    buf = torch.empty(n, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = buf * 2
        ev = s.record_event()
    nxt = torch.zeros(n, device="cuda")
    torch.cuda.current_stream().wait_event(ev)
    del buf
    return y, nxt


def offload(t: torch.Tensor, s):
    t.record_stream(s)


def offload_one(t, s):
    offload(t, s)


def offload_each(ts, s):
    for t in ts:
        t.record_stream(s)


def offload_groups(groups, s):
    offload_each(groups[0], s)


class Batch:
    def record_stream(self, s):
        pass


def batch_keep(batch: Batch, s):
    batch.record_stream(s)


def batch_once(batch, s):
    batch_keep(batch, s)


def param_keep(p: torch.nn.Parameter, s):
    p.data.record_stream(s)


def param_once(p, s):
    param_keep(p, s)


def kept(n, s, keep):
    buf = torch.empty(n, device="cuda")
    with torch.cuda.stream(s):
        y = buf * 2
        ev = s.record_event()
    torch.cuda.current_stream().wait_event(ev)
    keep.append(buf)
    del buf


def pinned(w, s):
    rows = w.pin_memory()
    with torch.cuda.stream(s):
        y = rows * 2
        ev = s.record_event()
    torch.cuda.current_stream().wait_event(ev)
    del rows


def synchronized(n, s):
    buf = torch.empty(n, device="cuda")
    with torch.cuda.stream(s):
        y = buf * 2
        ev = s.record_event()
    torch.cuda.current_stream().wait_event(ev)
    torch.cuda.synchronize()
    del buf


def waited_before_and_after(n, s):
    s.wait_stream(torch.cuda.current_stream())
    buf = torch.empty(n, device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = buf * 2
    return y


def constructed_in_between(n, s, fp8):
    buf = torch.empty(n, device="cuda")
    ids = torch.tensor([1, 2], device="cuda")
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = buf * 2
        z = ids * 2
    return y, z
'''
PYTHON_EXPECTED = {("drop-wait", "pipeline"), ("free-before-wait", "pipeline"), ("early-event", "pipeline"),
                   ("drop-fresh-wait", "pipeline"), ("record-stream-loop", "offload"),
                   ("record-stream-call-loop", "offload_one"), ("record-stream-call-loop", "param_once")}

CUDA = '''#include <cuda_runtime.h>

__global__ void k(int *p) { p[0] = 1; }

void pipeline(cudaStream_t a, cudaStream_t c, cudaEvent_t e, cudaEvent_t f) {
  int *p;
  cudaMallocAsync(&p, 64, a);
  cudaEventRecord(f, a);
  cudaStreamWaitEvent(c, f, 0);
  k<<<1, 1, 0, c>>>(p);
  cudaEventRecord(e, c);
  cudaStreamWaitEvent(a, e, 0);
  cudaFreeAsync(p, a);
}

void synchronized(cudaStream_t a, cudaStream_t c, cudaEvent_t e) {
  int *p;
  cudaMallocAsync(&p, 64, a);
  cudaStreamSynchronize(a);
  k<<<1, 1, 0, c>>>(p);
  cudaEventRecord(e, c);
  cudaStreamWaitEvent(a, e, 0);
  cudaStreamSynchronize(c);
  cudaFreeAsync(p, a);
}
'''
CUDA_EXPECTED = {("drop-wait", "pipeline"), ("free-before-wait", "pipeline"), ("early-event", "pipeline"),
                 ("drop-fresh-wait", "pipeline")}

ATEN = '''#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

void pipeline(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  auto cur = at::cuda::getCurrentCUDAStream();
  auto buf = at::empty({16}, x.options());
  at::cuda::CUDAEvent ready;
  ready.record(cur);
  ready.block(side);
  {
    c10::cuda::CUDAStreamGuard guard(side);
    buf.add_(1);
  }
  at::cuda::CUDAEvent done;
  done.record(side);
  done.block(cur);
}

at::Tensor escapes(const at::Tensor& x) {
  auto side = at::cuda::getStreamFromPool();
  auto buf = at::empty({16}, x.options());
  {
    c10::cuda::CUDAStreamGuard guard(side);
    buf.add_(1);
  }
  at::cuda::CUDAEvent done;
  done.record(side);
  done.block(at::cuda::getCurrentCUDAStream());
  return buf;
}

void rs(at::Tensor t, c10::cuda::CUDAStream s) {
  t.record_stream(s);
}

// Two devices: the tensor is made on dst's current stream, the copy runs on
// the source device's, which waits for an event recorded on dst's.
void peer(const at::Tensor& src, c10::DeviceIndex dst) {
  auto out = at::empty_like(src, src.options().device(at::Device(at::kCUDA, dst)));
  const auto src_index = src.get_device();
  auto copy = at::cuda::getCurrentCUDAStream(src_index);
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream(dst));
  ready.block(copy);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), src.nbytes(), cudaMemcpyDeviceToDevice, copy);
  copy.synchronize();
}

// One device named: its current stream is the current stream, so the event
// orders nothing new and dropping its wait is no bug (no site).
void oneDevice(const at::Tensor& x) {
  auto out = at::empty_like(x);
  auto s = at::cuda::getCurrentCUDAStream(x.get_device());
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  ready.block(s);
  cudaMemcpyAsync(out.data_ptr(), x.data_ptr(), x.nbytes(), cudaMemcpyDeviceToDevice, s);
}

// A `_like` factory without a device follows its operand's device, which a
// function naming two devices does not know: no site.
void followsOperand(const at::Tensor& src, c10::DeviceIndex dst) {
  auto out = at::empty_like(src);
  auto copy = at::cuda::getCurrentCUDAStream(dst);
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream(src.get_device()));
  ready.block(copy);
  cudaMemcpyAsync(out.data_ptr(), src.data_ptr(), src.nbytes(), cudaMemcpyDeviceToDevice, copy);
  copy.synchronize();
}
'''
ATEN_EXPECTED = {("drop-wait", "pipeline"), ("drop-fresh-wait", "pipeline"), ("record-stream-loop", "rs"),
                 ("drop-fresh-wait", "peer")}

# libcudf's fork/join of pool streams over an RMM vector, reached through a
# span: checked on the RMM/cudf mock headers of the checker's tests.
RMM = '''#include <cudf/detail/utilities/stream_pool.hpp>
#include <cudf/detail/utilities/vector_factories.hpp>
#include <cudf/utilities/span.hpp>
#include <rmm/device_uvector.hpp>

void engine(cudf::device_span<int> out, rmm::cuda_stream_view stream);

void split(cudf::device_span<int const> in, rmm::cuda_stream_view stream) {
  auto results = cudf::detail::make_device_uvector_async(in, stream, rmm::mr::get_current_device_resource());
  cudf::device_span<int> view = results;
  auto streams = cudf::detail::fork_streams(stream, 2);
  engine(view.subspan(0, 1), streams[0]);
  engine(view.subspan(1, 1), streams[1]);
  cudf::detail::join_streams(streams, stream);
}

rmm::device_uvector<int> handed(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<int> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 1);
  engine(v, streams[0]);
  cudf::detail::join_streams(streams, stream);
  return v;
}

void synced(rmm::cuda_stream_view stream, std::size_t n) {
  rmm::device_uvector<int> v(n, stream);
  auto streams = cudf::detail::fork_streams(stream, 1);
  engine(v, streams[0]);
  cudaDeviceSynchronize();
  cudf::detail::join_streams(streams, stream);
}
'''
RMM_EXPECTED = {("drop-wait", "split")}
MOCKS = os.path.join(HERE, "..", "..", "test", "checks", "Inputs")


def check_sites(name, got, expected):
    sites = {(m.operator, m.function) for m in got}
    ok = sites == expected
    print(f"{'ok' if ok else 'FAIL'}: {name} sites {sorted(sites)}")
    if not ok:
        print(f"    expected {sorted(expected)}")
    return ok


def check_flagged(name, mutants, cmd_of, suffix, original):
    """Every mutant must add a warning of an expected check that the
    unmutated file does not have (mutants keep the line count, so a warning
    is its line and check): a warning the file already gives elsewhere says
    nothing about the mutant."""
    ok = True
    with tempfile.TemporaryDirectory() as d:
        def warnings(path, text):
            with open(path, "w") as f:
                f.write(text)
            out = subprocess.run(cmd_of(path), capture_output=True, text=True)
            found = set()
            for line in out.stdout.splitlines():
                w = re.match(r".*?:(\d+):\d+: warning: .*\[([a-z0-9-]+)\]$", line)
                if w:
                    found.add((int(w.group(1)), w.group(2)))
            return found
        before = warnings(os.path.join(d, f"original{suffix}"), original)
        for i, m in enumerate(mutants):
            added = warnings(os.path.join(d, f"mutant{i}{suffix}"), "\n".join(m.lines)) - before
            checks = {check for _, check in added}
            hit = bool(checks & m.expected)
            ok &= hit
            print(f"{'ok' if hit else 'FAIL'}: {name} {m.operator} in {m.function}: streamlife reports "
                  f"{sorted(checks) or 'nothing'}")
    return ok


def check_syntax_cache(clangxx):
    """The compiler baseline is reused only for the same compiler, command
    line and file text: a changed file or flag is compiled again."""
    if not os.access(clangxx, os.X_OK):
        print(f"skipped: the syntax cache ({clangxx} not found)")
        return True
    ok = True
    with tempfile.TemporaryDirectory() as d:
        tools = precision.Tools(streamlife=None, clangxx=clangxx, python=sys.executable, pyflakes=None,
                                cuda="/usr/local/cuda", timeout=60, syntax_cache=os.path.join(d, "cache"))
        path = os.path.join(d, "t.cpp")

        def baseline(text, flags):
            with open(path, "w") as f:
                f.write(text)
            rc, _, _, _, _, _, cached = precision.syntax_baseline(
                tools, [clangxx, "-fsyntax-only"] + flags + [path], path, d)
            return rc, cached
        steps = [("first run", "int f() { return 1; }\n", [], (0, False)),
                 ("same file and flags", "int f() { return 1; }\n", [], (0, True)),
                 ("other flags", "int f() { return 1; }\n", ["-DX=1"], (0, False)),
                 ("edited file", "int f() { return x; }\n", [], (1, False)),
                 ("edited file again", "int f() { return x; }\n", [], (1, True))]
        for name, text, flags, want in steps:
            got = baseline(text, flags)
            hit = got == want
            ok &= hit
            print(f"{'ok' if hit else 'FAIL'}: syntax cache, {name}: (exit status, cached) {got}, expected {want}")
    return ok


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(HERE, "..", "..", "build"))
    p.add_argument("--torch-include", help="the unpacked PyTorch headers' include/ (for the ATen shapes)")
    p.add_argument("--clangxx", default="/usr/lib/llvm-22/bin/clang++")
    o = p.parse_args(argv)
    py = mutate_python.FileMutator("t.py", "t.py", PYTHON).mutants()
    cu = mutate_cpp.FileModel("t.cu", CUDA).mutants()
    at = mutate_cpp.FileModel("t.cpp", ATEN).mutants()
    rm = mutate_cpp.FileModel("t.cu", RMM).mutants()
    ok = check_sites("python", py, PYTHON_EXPECTED)
    ok &= check_sites("cuda runtime", cu, CUDA_EXPECTED)
    ok &= check_sites("aten", at, ATEN_EXPECTED)
    ok &= check_sites("rmm", rm, RMM_EXPECTED)
    ok &= check_syntax_cache(o.clangxx)
    streamlife = os.path.join(o.build_dir, "bin", "streamlife")
    if os.access(streamlife, os.X_OK):
        ok &= check_flagged("python", py, lambda f: [streamlife, "check", f], ".py", PYTHON)
        ok &= check_flagged("cuda runtime", cu, lambda f: [streamlife, "check", f], ".cu", CUDA)
        cuda_mock = os.path.join(MOCKS, "cuda")
        ok &= check_flagged("rmm", rm, lambda f: [streamlife, "check", f, "--", "-x", "cuda", "--cuda-host-only",
                                                  "-nocudalib", "-nocudainc", "--cuda-path=" + cuda_mock, "-isystem",
                                                  cuda_mock, "-include", "cuda_runtime.h", "-std=c++17",
                                                  "-I" + os.path.join(MOCKS, "rmm")], ".cu", RMM)
        if o.torch_include:
            ti = o.torch_include
            ok &= check_flagged("aten", at, lambda f: [streamlife, "check", f, "--", "-std=c++17", "-I" + ti,
                                                       "-I" + os.path.join(ti, "torch", "csrc", "api", "include"),
                                                       "-I/usr/local/cuda/include"], ".cpp", ATEN)
        else:
            print("skipped: aten mutants through streamlife (no --torch-include)")
    else:
        print(f"skipped: mutants through streamlife ({streamlife} not built)")
    print("selftest: " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
