//===- PythonStacksTest.cpp - Python frames in call sites and reports -----===//
//
// callsites/PythonStacks.h and its use by CallSites (reportFrames, callSiteKey)
// and the block summary text, with fake code objects: no Python needed.
//
//===----------------------------------------------------------------------===//
#include "callsites/CallSites.h"
#include "callsites/PythonStacks.h"
#include "report/CallSiteNames.h"
#include "report/FindingText.h"

#include <gtest/gtest.h>

using namespace streamlife::rt;

namespace {

int FakeCodes[4];

struct PythonStacksTest : ::testing::Test {
  PythonStacksTest() {
    Torch = internPythonCode(&FakeCodes[0], "/usr/lib/python3/dist-packages/torch/cuda/streams.py",
                             "wait_event");
    Pipeline = internPythonCode(&FakeCodes[1], "/home/u/pipeline.py", "forward");
    Main = internPythonCode(&FakeCodes[2], "/home/u/pipeline.py", "<module>");
    Stdlib = internPythonCode(&FakeCodes[3], "/usr/lib/python3.12/contextlib.py", "__exit__");
  }
  ~PythonStacksTest() override { setShadowStackForTesting(nullptr, 0); }
  std::uint32_t Torch, Pipeline, Main, Stdlib;
};

TEST_F(PythonStacksTest, CodesAreNamedOnce) {
  EXPECT_EQ(internPythonCode(&FakeCodes[1], "other", "other"), Pipeline);
  PyFrameText T = describePythonFrame(PyFrameRef{Pipeline, 12});
  EXPECT_EQ(T.File, "/home/u/pipeline.py");
  EXPECT_EQ(T.Function, "forward");
  EXPECT_EQ(T.Line, 12u);
  EXPECT_EQ(formatPythonFrame(PyFrameRef{Pipeline, 12}), "forward (/home/u/pipeline.py:12)");
  EXPECT_EQ(formatPythonFrame(PyFrameRef{0, 3}), "(<unknown file>:3)");
}

TEST_F(PythonStacksTest, LibraryFilesAreTorchAndTheStandardLibrary) {
  EXPECT_TRUE(isLibraryPythonFile("/x/lib/python3.12/site-packages/torch/cuda/__init__.py"));
  EXPECT_TRUE(isLibraryPythonFile("/usr/lib/python3/dist-packages/torch/functional.py"));
  EXPECT_TRUE(isLibraryPythonFile("/usr/lib/python3.12/contextlib.py"));
  EXPECT_TRUE(isLibraryPythonFile("/x/lib/python3.12/site-packages/cupy/cuda/memory.py"));
  EXPECT_TRUE(isLibraryPythonFile("/x/lib/python3.12/site-packages/cupy_backends/cuda/api.py"));
  EXPECT_TRUE(isLibraryPythonFile("/opt/streamlife/share/streamlife/python/sitecustomize.py"));
  EXPECT_FALSE(isLibraryPythonFile("/home/me/cupy_pipeline.py"));
  EXPECT_FALSE(isLibraryPythonFile("/home/me/sitecustomize.py"));
  EXPECT_TRUE(isLibraryPythonFile("<frozen importlib._bootstrap>"));
  EXPECT_FALSE(isLibraryPythonFile("/home/u/pipeline.py"));
  EXPECT_FALSE(isLibraryPythonFile("/x/lib/python3.12/site-packages/transformers/model.py"));
  EXPECT_FALSE(isLibraryPythonFile("/home/u/torch_utils/torch/helpers.py"));
}

TEST_F(PythonStacksTest, CaptureCopiesTheShadowStackInnermostFirst) {
  PyFrameRef Stack[] = {{Main, 40}, {Pipeline, 12}, {Torch, 99}}; // outermost first
  setShadowStackForTesting(Stack, 3);
  PyFrameRef Out[MaxPythonFrames];
  ASSERT_EQ(capturePythonStack(Out, MaxPythonFrames), 3);
  EXPECT_EQ(Out[0], (PyFrameRef{Torch, 99}));
  EXPECT_EQ(Out[2], (PyFrameRef{Main, 40}));
  EXPECT_EQ(capturePythonStack(Out, 2), 2);
  setShadowStackForTesting(nullptr, 0);
  EXPECT_EQ(capturePythonStack(Out, MaxPythonFrames), 0) << "no Python: native frames are used";
}

TEST_F(PythonStacksTest, ReportsStartAtTheInnermostUserFrame) {
  OpRecord R;
  R.Python = {{Torch, 99}, {Stdlib, 5}, {Pipeline, 12}, {Main, 40}};
  std::vector<std::string> Frames = reportFrames(R, 4);
  ASSERT_EQ(Frames.size(), 2u);
  EXPECT_EQ(Frames[0], "forward (/home/u/pipeline.py:12)");
  EXPECT_EQ(Frames[1], "<module> (/home/u/pipeline.py:40)");
  EXPECT_EQ(reportFrames(R, 1).size(), 1u);
  // Only library frames: show them rather than nothing.
  OpRecord Lib;
  Lib.Python = {{Torch, 99}};
  EXPECT_EQ(reportFrames(Lib, 4).front(), "wait_event (/usr/lib/python3/dist-packages/torch/cuda/streams.py:99)");
}

TEST_F(PythonStacksTest, SiteKeysAreTheInnermostUserPythonLine) {
  OpRecord A, B, C, D;
  A.Name = B.Name = C.Name = D.Name = 7;
  A.Python = {{Torch, 99}, {Pipeline, 12}, {Main, 40}};
  B.Python = {{Torch, 50}, {Pipeline, 12}, {Main, 41}}; // same user line, other callers
  C.Python = {{Torch, 99}, {Pipeline, 13}, {Main, 40}}; // another user line
  D.Python = A.Python;
  D.Name = 8; // another operation at the same line
  EXPECT_EQ(callSiteKey(A), callSiteKey(B));
  EXPECT_NE(callSiteKey(A), callSiteKey(C));
  EXPECT_NE(callSiteKey(A), callSiteKey(D));
}

TEST_F(PythonStacksTest, InterningKeepsPythonStacksApart) {
  OpTable Ops;
  NameId Name = Ops.internName("cuLaunchKernel");
  PyFrameRef One[] = {{Pipeline, 12}};
  PyFrameRef Two[] = {{Pipeline, 13}};
  OpId A = Ops.intern(Name, nullptr, 0, One, 1);
  EXPECT_EQ(Ops.intern(Name, nullptr, 0, One, 1), A);
  EXPECT_NE(Ops.intern(Name, nullptr, 0, Two, 1), A);
  EXPECT_NE(Ops.intern(Name, nullptr, 0), A);
  EXPECT_EQ(Ops.op(A).Python.size(), 1u);
  // The same call under another name (a generic-scan access) keeps its Python stack.
  OpId Renamed = Ops.sameStack(A, Ops.internName("other"));
  EXPECT_NE(Renamed, A);
  ASSERT_EQ(Ops.op(Renamed).Python.size(), 1u);
  EXPECT_EQ(Ops.op(Renamed).Python[0], One[0]);
}

TEST(BlockSummaryLine, SaysWhatCycledAndWhatWasHeldBack) {
  BlockSiteSummary S;
  S.Allocator = "PyTorch caching allocator";
  S.Site = "all_gather (/x/demo.py:29)";
  S.Allocations = 1;
  S.DistinctBlocks = 1;
  S.PeakLiveBlocks = 1;
  EXPECT_EQ(blockSummaryLine(S),
            "streamlife: blocks: all_gather (/x/demo.py:29): 1 allocation, 1 distinct block, at "
            "most 1 alive at once, no bytes held back after release (PyTorch caching allocator)");
  S.Allocations = 800;
  S.DistinctBlocks = 128;
  S.PeakLiveBlocks = 4;
  S.PeakHeldBackBytes = 201326592;
  EXPECT_EQ(blockSummaryLine(S),
            "streamlife: blocks: all_gather (/x/demo.py:29): 800 allocations, 128 distinct blocks, "
            "at most 4 alive at once, up to 201326592 bytes (192.0 MiB) held back after release "
            "(record_stream) (PyTorch caching allocator)");
}

} // namespace
