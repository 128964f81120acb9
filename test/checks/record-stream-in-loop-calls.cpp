// REQUIRES: checker
// RUN: %check_streamlife %s streamlife-record-stream-in-loop -- -std=c++17
//
// A loop that calls a function of the translation unit which calls
// record_stream (itself, or through its own calls, up to three calls below
// it) repeats record_stream once an iteration as surely as a loop that calls
// it itself: the call in the loop is reported, with the story down to the
// record_stream call. A loop nearer the record_stream call is that loop's
// finding, not the outer one's. The same rule as the Python front end's
// (test/checks/python/record-stream-helper-calls.py).

namespace c10 {
struct Stream {};
namespace cuda {
struct CUDAStream {
  operator c10::Stream() const { return {}; }
};
} // namespace cuda
} // namespace c10
namespace at {
using c10::Stream;
class Tensor {
public:
  void record_stream(Stream s) const;
};
} // namespace at

void keep(const at::Tensor &t, c10::Stream s) { t.record_stream(s); }

void keepThrough(const at::Tensor &t, c10::Stream s) { keep(t, s); }

struct Group {
  void transfer(at::Tensor &t, c10::Stream consumer) {
    t.record_stream(consumer);
  }
  void onloadAll(at::Tensor *params, int n, c10::Stream consumer) {
    for (int i = 0; i < n; ++i)
      transfer(params[i], consumer);
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: record_stream on 't' in 'Group::transfer', called inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release [streamlife-record-stream-in-loop]
    // CHECK-NOTES: :[[@LINE-3]]:5: note: inside this loop
    // CHECK-NOTES: :[[@LINE-7]]:5: note: 'Group::transfer' calls record_stream on 't' here
    // CHECK-NOTES: :[[@LINE-8]]:5: note: no automatic fix: instead, keep 't' with an event recorded on the consumer stream after its use in a keepalive queue, and drop it only after the allocation stream waited on that event
  }
};

void twoCallsDeep(at::Tensor (&tensors)[4], c10::Stream consumer) {
  for (const at::Tensor &t : tensors)
    keepThrough(t, consumer);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: record_stream on 't' in 'keep', reached from a call of 'keepThrough' inside a loop, hands buffer reuse to the allocator's event polling; record an event on the consumer stream and make the allocation stream wait on it before the release [streamlife-record-stream-in-loop]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: inside this loop
  // CHECK-NOTES: :[[@LINE-21]]:56: note: 'keepThrough' calls 'keep' here
  // CHECK-NOTES: :[[@LINE-24]]:49: note: 'keep' calls record_stream on 't' here
  // CHECK-NOTES: :[[@LINE-25]]:49: note: no automatic fix
}

void whileLoop(at::Tensor t, c10::Stream s, int n) {
  while (n--)
    keep(t, s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' in 'keep', called inside a loop
}

// A template's instantiation is the function the call runs.
template <typename T> void keepT(const T &t, c10::Stream s) {
  t.record_stream(s);
}

void templateHelper(at::Tensor *ts, int n, c10::Stream s) {
  for (int i = 0; i < n; ++i)
    keepT(ts[i], s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' in 'keepT', called inside a loop
}

// --- not reported ---------------------------------------------------------

// Called once, outside any loop: the API's intended use.
void oneOff(const at::Tensor &t, c10::Stream s) { keep(t, s); }

// A callee that records nothing, and one the unit only declares.
int scale(int x) { return 2 * x; }
void declaredOnly(const at::Tensor &t, c10::Stream s);

void noRecord(const at::Tensor *ts, int n, c10::Stream s) {
  for (int i = 0; i < n; ++i) {
    scale(i);
    declaredOnly(ts[i], s);
  }
}

// The callee's own loop records: that loop is the finding, and an outer
// loop that calls it is not reported again, even when the callee also
// records once before its loop.
void keepAll(const at::Tensor *ts, int n, c10::Stream s) {
  keep(ts[0], s);
  for (int i = 0; i < n; ++i)
    ts[i].record_stream(s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 'ts[i]' inside a loop
}

void epochs(const at::Tensor *ts, int n, c10::Stream s, int epochCount) {
  for (int e = 0; e < epochCount; ++e)
    keepAll(ts, n, s);
}

// The callee calls the recording helper from a loop of its own: that call is
// the finding, not the outer loop's call.
void train(const at::Tensor *batches, int n, c10::Stream s) {
  for (int i = 0; i < n; ++i)
    keep(batches[i], s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' in 'keep', called inside a loop
}

void runEpochs(const at::Tensor *batches, int n, c10::Stream s, int e) {
  while (e--)
    train(batches, n, s);
}

// The function the loop calls and three calls below it are followed; a
// record_stream call further down is not.
void depth3(const at::Tensor &t, c10::Stream s) { keepThrough(t, s); }
void depth4(const at::Tensor &t, c10::Stream s) { depth3(t, s); }
void depth5(const at::Tensor &t, c10::Stream s) { depth4(t, s); }

void threeBelow(const at::Tensor *ts, int n, c10::Stream s) {
  for (int i = 0; i < n; ++i)
    depth4(ts[i], s);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: record_stream on 't' in 'keep', reached from a call of 'depth4' inside a loop
}

void fourBelow(const at::Tensor *ts, int n, c10::Stream s) {
  for (int i = 0; i < n; ++i)
    depth5(ts[i], s);
}

// A lambda written in the helper runs elsewhere.
void keepLater(const at::Tensor &t, c10::Stream s) {
  auto later = [&] { t.record_stream(s); };
  (void)later;
}

void lambdaInHelper(const at::Tensor *ts, int n, c10::Stream s) {
  for (int i = 0; i < n; ++i)
    keepLater(ts[i], s);
}

// Recursion that never records.
int walk(int n) { return n ? walk(n - 1) : 0; }

void recursion(int n) {
  for (int i = 0; i < n; ++i)
    walk(i);
}
