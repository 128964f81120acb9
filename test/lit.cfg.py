# Root lit configuration for streamlife. Suites:
#   checks/  clang-tidy plugin tests (CHECK-MESSAGES / CHECK-NOTES, see check_streamlife.py)
#   cli/     `streamlife check` / `streamlife run` behaviour: formats, exit codes, bad input
#   unit/    GoogleTest binaries (own lit.cfg.py, GoogleTest format)
#   gpu/     tests that need a CUDA GPU: UNSUPPORTED (and counted) elsewhere
import os
import re
import shutil
import subprocess

import lit.formats

config.name = "streamlife"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".cu", ".test", ".c"]
config.excludes = ["Inputs", "unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "README.md"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.streamlife_obj_root, "test")
# The checker tests (checks/) run on our mock CUDA and PyTorch headers in this
# suite (checks/lit.local.cfg), and again on the real headers in the suite of
# tier "real", streamlife-real-headers: the same files, only those that parse
# CUDA or PyTorch headers.
header_tier = getattr(config, "streamlife_header_tier", "mock")
if header_tier == "real":
    config.name = "streamlife-real-headers"
    config.test_source_root = os.path.join(os.path.dirname(__file__), "checks")
    config.test_exec_root = os.path.join(config.streamlife_obj_root, "test", "real-headers")
    config.excludes = ["Inputs", "python", "lit.local.cfg"]
    for _name in sorted(os.listdir(config.test_source_root)):
        _path = os.path.join(config.test_source_root, _name)
        if os.path.isfile(_path) and os.path.splitext(_name)[1] in config.suffixes:
            with open(_path, errors="replace") as _f:
                if not re.search(r"%cuda_args|%torch_include|%cuda_include", _f.read()):
                    config.excludes.append(_name)

llvm_bin = "/usr/lib/llvm-22/bin"
path = os.pathsep.join([os.path.join(config.streamlife_obj_root, "bin"), llvm_bin,
                        config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path
# Tests must not pick up a user's .clang-tidy from above the build tree.
config.environment["CLANG_NO_DEFAULT_CONFIG"] = "1"

obj = config.streamlife_obj_root
src = config.streamlife_src_root
plugin = os.path.join(obj, "lib", "StreamlifeTidyModule.so")
cli = os.path.join(obj, "bin", "streamlife")
runtime_lib = os.path.join(obj, "lib", "libstreamlife_rt.so")

# Runs per repeated GPU test of a Python example (test/gpu/python-*.test): 20,
# or what --param python_runs=N says (a time-limited device session).
config.substitutions.append(("%{runs}", lit_config.params.get("python_runs", "20")))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%clang_tidy", config.clang_tidy))
config.substitutions.append(("%streamlife_src", src))
config.substitutions.append(("%streamlife_plugin", plugin))
config.substitutions.append(("%streamlife_rt", runtime_lib))
config.substitutions.append(("%streamlife_obj", obj))
config.substitutions.append(("%streamlife", cli))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%cuda_path", config.cuda_root))
config.substitutions.append(("%examples", os.path.join(src, "examples")))
# The shared reference material (the seed) beside the clone, as in CI; a
# worktree one level deeper finds it one level up.
shared = next((d for d in (os.path.join(os.path.dirname(src), "shared"),
                           os.path.join(os.path.dirname(os.path.dirname(src)), "shared"))
               if os.path.isdir(d)), os.path.join(os.path.dirname(src), "shared"))
config.substitutions.append(("%shared", shared))
config.substitutions.append(("%example_bin", os.path.join(obj, "examples")))
config.substitutions.append(("%gpu_programs", os.path.join(obj, "test", "gpu-programs")))
config.substitutions.append(("%nvcc", config.nvcc or "nvcc"))
# The trace-event format validator and the headless-Chromium check of the
# pictures `streamlife timeline --svg` draws.
config.substitutions.append(("%check_trace",
    "%s %s" % (config.python, os.path.join(src, "test", "check_trace_events.py"))))
config.substitutions.append(("%svg_in_chromium",
    "%s %s" % (config.python, os.path.join(src, "test", "svg_in_chromium.py"))))
config.substitutions.append(("%check_streamlife_py",
    "%s %s --streamlife=%s --filecheck=%s" % (
        config.python, os.path.join(src, "test", "check_streamlife.py"), cli, config.filecheck)))
config.substitutions.append(("%check_streamlife",
    "%s %s --clang-tidy=%s --plugin=%s --filecheck=%s --cuda-path=%s" % (
        config.python, os.path.join(src, "test", "check_streamlife.py"), config.clang_tidy,
        plugin, config.filecheck, config.cuda_root)))

# Common clang arguments for parsing .cu files host-side against the real toolkit.
cuda_args = "-x cuda --cuda-host-only -nocudalib --cuda-path=%s" % config.cuda_root
config.substitutions.append(("%cuda_args", cuda_args))
config.substitutions.append(("%cuda_include", "-I%s" % os.path.join(config.cuda_root, "include")))

if config.streamlife_build_checker and os.path.exists(plugin):
    config.available_features.add("checker")
if config.streamlife_build_runtime:
    config.available_features.add("runtime")
# The package's dependencies come from dpkg-shlibdeps (dpkg-dev).
if shutil.which("dpkg-deb") and shutil.which("dpkg-shlibdeps") and shutil.which("cpack"):
    config.available_features.add("cpack-deb")
# Debian's package checker: the package test runs it where it is installed
# (scripts/test.sh installs it) and is reported unsupported elsewhere.
if shutil.which("lintian"):
    config.available_features.add("lintian")
# Symbolizers the runtime validator runs for file:line in reports.
_llvm_symbolizer = shutil.which("llvm-symbolizer", path=llvm_bin) or shutil.which("llvm-symbolizer")
if _llvm_symbolizer:
    config.available_features.add("llvm-symbolizer")
    config.substitutions.append(("%llvm_symbolizer", _llvm_symbolizer))
if shutil.which("addr2line"):
    config.available_features.add("addr2line")
if shutil.which("groff"):
    config.available_features.add("groff")
if shutil.which("zsh"):
    config.available_features.add("zsh")
# Debian's chromium renders the timeline pictures (test/cli/timeline-chromium.test);
# scripts/test.sh installs it when that test is to run.
if any(shutil.which(b) for b in ("chromium", "chromium-browser")):
    config.available_features.add("chromium")
# strace delivers a signal at a chosen system call (an interrupted --fix).
if shutil.which("strace"):
    config.available_features.add("strace")
# The pre-commit framework (Debian's pre-commit): the README's snippet is run
# with it where it is installed (scripts/test.sh installs it).
if shutil.which("pre-commit"):
    config.available_features.add("pre-commit")
# The seed post (its demo script is extracted at test time, never copied).
if os.path.exists(os.path.join(shared, "seed", "000_5406c5372570b562.txt")):
    config.available_features.add("seed")
if os.path.exists(os.path.join(config.cuda_root, "include", "cuda_runtime.h")):
    config.available_features.add("cuda-headers")
# Tests of what another user can do to our files (owned by nobody) need to
# give files away: only root can; elsewhere they are reported as unsupported.
if os.geteuid() == 0 and shutil.which("setpriv"):
    config.available_features.add("root")
# nvcc's release ("nvcc-13.0"): the option table of tool/check is generated
# from that release's `nvcc --help`.
if config.nvcc and os.path.exists(config.nvcc):
    try:
        _nvcc_version = subprocess.run([config.nvcc, "--version"], capture_output=True, text=True,
                                       timeout=60).stdout
        _release = re.search(r"release (\d+\.\d+)", _nvcc_version)
        if _release:
            config.available_features.add("nvcc-" + _release.group(1))
    except (OSError, subprocess.SubprocessError):
        pass
# The validator interposes cuBLAS/cuBLASLt when their headers were there to
# build against (runtime-validator/intercept/CMakeLists.txt).
if os.path.exists(os.path.join(config.cuda_root, "include", "cublasLt.h")):
    config.available_features.add("math-libraries")
# A file system that fills up: a small tmpfs in a private mount namespace
# (unshare -rm), where the kernel allows unprivileged user namespaces.
try:
    if subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode == 0:
        config.available_features.add("mount-namespace")
except (OSError, subprocess.SubprocessError):
    pass


def _has_cuda_gpu():
    """True when a CUDA GPU answers; GPU tests are UNSUPPORTED (counted) otherwise."""
    if os.environ.get("STREAMLIFE_NO_GPU"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


# The interpreters whose frame layout the runtime validator's frame walker
# knows (runtime-validator/callsites/PythonFrameWalker.h): tests that demand the
# walker need one; elsewhere they are reported as unsupported.
try:
    _py_version = subprocess.run(
        [config.python, "-c", "import sys; print(sys.implementation.name, sys.version_info[:2])"],
        capture_output=True, text=True, timeout=30).stdout.strip()
    if _py_version in ("cpython (3, 11)", "cpython (3, 12)", "cpython (3, 13)"):
        config.available_features.add("python-frame-walker")
except (OSError, subprocess.SubprocessError):
    pass

if _has_cuda_gpu():
    config.available_features.add("cuda-gpu")
    try:
        import importlib.util
        for module, feature in (("torch", "torch-gpu"), ("cupy", "cupy-gpu")):
            if importlib.util.find_spec(module) is not None:
                config.available_features.add(feature)
    except Exception:
        pass
    # The oracle of the parity tests (test/gpu/*-parity.test).
    if shutil.which("compute-sanitizer") or os.path.exists(
            os.path.join(config.cuda_root, "bin", "compute-sanitizer")):
        config.available_features.add("compute-sanitizer")
config.substitutions.append(("%compute_sanitizer",
    shutil.which("compute-sanitizer") or os.path.join(config.cuda_root, "bin", "compute-sanitizer")))


# PyTorch's C++ headers, found as scripts/torch-headers.sh finds them (an
# installed PyTorch, STREAMLIFE_TORCH_INCLUDE, or the tarball beside the
# repository, unpacked into the build tree, never committed). Without them the
# ATen tier is skipped, and says so with its count; a source asked for
# explicitly and broken is an error.
def _torch_include_dirs():
    env = dict(os.environ, STREAMLIFE_BUILD_DIR=obj)
    if not env.get("STREAMLIFE_TORCH_HEADERS_TARBALL") and os.path.exists(config.torch_headers_tarball):
        env["STREAMLIFE_TORCH_HEADERS_TARBALL"] = config.torch_headers_tarball
    found = subprocess.run(["bash", os.path.join(src, "scripts", "torch-headers.sh")],
                           capture_output=True, text=True, env=env)
    if found.returncode == 3:
        return None
    if found.returncode != 0:
        lit_config.fatal("PyTorch C++ headers: " + found.stderr.strip())
    return found.stdout.split()


def _tests_requiring(feature):
    """How many tests of this suite name FEATURE in their REQUIRES line (in
    this suite, checks/ runs on the mock headers, which provide it)."""
    count = 0
    for top in (("",) if header_tier == "real" else ("cli", "gpu")):
        for dirpath, dirnames, filenames in os.walk(os.path.join(config.test_source_root, top)):
            dirnames[:] = [d for d in dirnames if d not in config.excludes]
            for name in filenames:
                if os.path.splitext(name)[1] not in config.suffixes:
                    continue
                if name in config.excludes:
                    continue
                with open(os.path.join(dirpath, name), errors="replace") as f:
                    if any("REQUIRES:" in line and feature in line.split("REQUIRES:", 1)[1]
                           for line in f):
                        count += 1
    return count


def _skipped_tier(name, feature, why):
    n = _tests_requiring(feature)
    lit_config.note("streamlife: %s tier skipped: %d test%s (%s)" % (name, n, "" if n == 1 else "s", why))


torch_dirs = _torch_include_dirs()
if torch_dirs:
    config.available_features.add("torch-headers")
    config.substitutions.append(("%torch_include", " ".join("-I" + d for d in torch_dirs)))
else:
    _skipped_tier("ATen real-header" if header_tier == "real" else "ATen", "torch-headers",
                  "no PyTorch C++ headers: install PyTorch for python3 or name its python with "
                  "STREAMLIFE_PYTHON=PYTHON, or set STREAMLIFE_TORCH_INCLUDE=DIR, torch's include folder")
if header_tier == "real" and "cuda-headers" not in config.available_features:
    _skipped_tier("CUDA real-header", "cuda-headers", "no CUDA toolkit headers in %s" % config.cuda_root)
if header_tier == "mock" and "seed" not in config.available_features:
    _skipped_tier("seed", "seed", "no seed post in %s/seed" % shared)
