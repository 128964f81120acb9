//===- FastUnwind.cpp - a return-address table over the DWARF unwinder ----===//
#include "callsites/FastUnwind.h"

#include <execinfo.h>
#include <pthread.h>
#include <unwind.h>

#include <atomic>
#include <cstdint>

namespace streamlife {
namespace rt {

#if defined(__x86_64__)

namespace {
// (internal linkage; used by the trampoline's implementation below as well)

// What the table knows about one return address: how far the CFA of the
// function it returns into lies above that function's stack pointer at the
// call, or that the stack ends there, or that the distance varies.
constexpr std::int64_t Unknown = 0;
constexpr std::int64_t Variable = -1;
constexpr std::int64_t Outermost = -2;

constexpr std::size_t TableSize = 1 << 16; // return addresses; a power of two
constexpr unsigned RecheckEvery = 256;     // captures per thread between full unwinds

struct Entry {
  std::atomic<std::uintptr_t> Pc{0};
  std::atomic<std::int64_t> Step{Unknown};
};
Entry Table[TableSize];
std::atomic<std::size_t> FastCount{0}, SlowCount{0}, Known{0}, VariableCount{0};

std::size_t slotOf(std::uintptr_t Pc) { return (Pc * 0x9E3779B97F4A7C15ull) >> 48 & (TableSize - 1); }

std::int64_t lookup(std::uintptr_t Pc) {
  for (std::size_t I = slotOf(Pc), Probes = 0; Probes < 16; I = (I + 1) & (TableSize - 1), ++Probes) {
    std::uintptr_t Key = Table[I].Pc.load(std::memory_order_acquire);
    if (Key == Pc)
      return Table[I].Step.load(std::memory_order_acquire);
    if (Key == 0)
      return Unknown;
  }
  return Unknown;
}

void learn(std::uintptr_t Pc, std::int64_t Step) {
  for (std::size_t I = slotOf(Pc), Probes = 0; Probes < 16; I = (I + 1) & (TableSize - 1), ++Probes) {
    std::uintptr_t Key = Table[I].Pc.load(std::memory_order_acquire);
    if (Key == 0 && Table[I].Pc.compare_exchange_strong(Key, Pc, std::memory_order_acq_rel)) {
      Table[I].Step.store(Step, std::memory_order_release);
      Known.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (Key == Pc) {
      std::int64_t Old = Table[I].Step.load(std::memory_order_acquire);
      if (Old == Unknown || Step == Outermost)
        Table[I].Step.store(Step, std::memory_order_release); // the stack ends here: no step needed
      else if (Old != Step && Old != Variable && Old != Outermost) {
        Table[I].Step.store(Variable, std::memory_order_release);
        VariableCount.fetch_add(1, std::memory_order_relaxed);
      }
      return;
    }
  }
  // A full neighbourhood: this address stays unknown (full unwinds for it).
}

struct StackBounds {
  std::uintptr_t Low = 0, High = 0;
};

StackBounds threadStack() {
  static thread_local StackBounds B;
  static thread_local bool Known = false;
  if (!Known) {
    pthread_attr_t Attr;
    if (pthread_getattr_np(pthread_self(), &Attr) == 0) {
      void *Addr = nullptr;
      std::size_t Size = 0;
      if (pthread_attr_getstack(&Attr, &Addr, &Size) == 0) {
        B.Low = reinterpret_cast<std::uintptr_t>(Addr);
        B.High = B.Low + Size;
      }
      pthread_attr_destroy(&Attr);
    }
    Known = true;
  }
  return B;
}

struct Walk {
  void **Frames;
  int Max;
  int Skip;
  int N = 0;
  int Seen = 0;
  std::uintptr_t PrevSp = 0;
  std::uintptr_t PrevPc = 0;
  bool PrevSignal = false;
  bool Truncated = false;
};

// Inside _Unwind_Backtrace's callback a context's CFA is still the CALLEE's
// (libgcc updates it after the callback), i.e. this frame's stack pointer at
// its call. So the distance for frame k's return address is known at frame
// k + 1: the difference of the two stack pointers.
_Unwind_Reason_Code onFrame(_Unwind_Context *Ctx, void *Arg) {
  Walk &W = *static_cast<Walk *>(Arg);
  int BeforeInsn = 0;
  std::uintptr_t Pc = _Unwind_GetIPInfo(Ctx, &BeforeInsn);
  std::uintptr_t Sp = _Unwind_GetCFA(Ctx);
  if (Pc == 0) // past the outermost frame (_start, clone)
    return _URC_END_OF_STACK;
  int Index = W.Seen++;
  if (Index >= 1) {
    // A signal frame's "return address" is no call site; a stack that does
    // not grow upwards here is no ordinary call either.
    if (W.PrevSignal || Sp <= W.PrevSp)
      learn(W.PrevPc, Variable);
    else
      learn(W.PrevPc, static_cast<std::int64_t>(Sp - W.PrevSp));
  }
  W.PrevSp = Sp;
  W.PrevPc = Pc;
  W.PrevSignal = BeforeInsn != 0;
  if (Index < W.Skip)
    return _URC_NO_REASON;
  if (W.N >= W.Max) {
    W.Truncated = true;
    return _URC_END_OF_STACK;
  }
  W.Frames[W.N++] = reinterpret_cast<void *>(Pc);
  return _URC_NO_REASON;
}

__attribute__((noinline)) int slowWalk(void **Frames, int Max, int Skip) {
  SlowCount.fetch_add(1, std::memory_order_relaxed);
  Walk W{Frames, Max, Skip + 1}; // + this function's own frame
  _Unwind_Backtrace(onFrame, &W);
  if (!W.Truncated && W.PrevPc)
    learn(W.PrevPc, Outermost); // the stack ended here
  return W.N;
}

} // namespace

/// Calls slowWalk so that it cannot become a tail call (which would take the
/// caller's frame off the stack that the skip count assumes).
#define STREAMLIFE_NO_TAIL_CALL(N) __asm__ __volatile__("" : "+r"(N))

__attribute__((noinline)) int slowBacktrace(void **Frames, int Max) {
  int N = Max > 0 ? slowWalk(Frames, Max, 1) : 0; // skip slowBacktrace itself
  STREAMLIFE_NO_TAIL_CALL(N);
  return N;
}

} // namespace rt
} // namespace streamlife

// fastBacktrace is a two-instruction trampoline: at its entry %rsp points at
// the caller's return address, so the caller's stack pointer after the call
// (our CFA) is %rsp + 8. GCC's __builtin_dwarf_cfa() does not give that
// reliably (measured 16 bytes off in a -fPIC build). The jump keeps the
// caller's return address in place for the implementation, which thus sees
// the same frames a call would.
extern "C" __attribute__((visibility("hidden"), used, noinline)) int
streamlife_fast_backtrace(void **Frames, int Max, std::uintptr_t Cfa);

__asm__(".text\n"
        ".globl _ZN10streamlife2rt13fastBacktraceEPPvi\n"
        ".hidden _ZN10streamlife2rt13fastBacktraceEPPvi\n"
        ".type _ZN10streamlife2rt13fastBacktraceEPPvi, @function\n"
        "_ZN10streamlife2rt13fastBacktraceEPPvi:\n"
        "  leaq 8(%rsp), %rdx\n"
        "  jmp streamlife_fast_backtrace\n"
        ".size _ZN10streamlife2rt13fastBacktraceEPPvi, .-_ZN10streamlife2rt13fastBacktraceEPPvi\n");

extern "C" int streamlife_fast_backtrace(void **Frames, int Max, std::uintptr_t Cfa) {
  using namespace streamlife::rt;
  if (Max <= 0)
    return 0;
  static thread_local unsigned SinceFull = 0;
  if (++SinceFull >= RecheckEvery) { // re-learn: catches frames whose size varies
    SinceFull = 0;
    int Full = slowWalk(Frames, Max, 1);
    STREAMLIFE_NO_TAIL_CALL(Full);
    return Full;
  }
  StackBounds Stack = threadStack();
  std::uintptr_t Sp = Cfa;
  std::uintptr_t Pc = *reinterpret_cast<const std::uintptr_t *>(Cfa - 8);
  int N = 0;
  while (Pc && N < Max) {
    Frames[N++] = reinterpret_cast<void *>(Pc);
    if (N == Max)
      break;
    std::int64_t Step = lookup(Pc);
    if (Step == Outermost)
      break;
    std::uintptr_t Next = Sp + static_cast<std::uintptr_t>(Step);
    if (Step <= 0 || Stack.High == 0 || Next < Sp + 8 || Next > Stack.High || Next - 8 < Stack.Low) {
      int Full = slowWalk(Frames, Max, 1);
      STREAMLIFE_NO_TAIL_CALL(Full);
      return Full;
    }
    Pc = *reinterpret_cast<const std::uintptr_t *>(Next - 8);
    Sp = Next;
  }
  FastCount.fetch_add(1, std::memory_order_relaxed);
  return N;
}

namespace streamlife {
namespace rt {

FastUnwindStats fastUnwindStats() {
  FastUnwindStats S;
  S.Fast = FastCount.load();
  S.Slow = SlowCount.load();
  S.KnownAddresses = Known.load();
  S.Variable = VariableCount.load();
  return S;
}

#else // not x86-64: glibc's unwinder

int fastBacktrace(void **Frames, int Max) { return slowBacktrace(Frames, Max); }

__attribute__((noinline)) int slowBacktrace(void **Frames, int Max) {
  void *All[256];
  int N = backtrace(All, Max + 1 > 256 ? 256 : Max + 1);
  int Out = 0;
  for (int I = 1; I < N && Out < Max; ++I)
    Frames[Out++] = All[I];
  return Out;
}

FastUnwindStats fastUnwindStats() { return {}; }

#endif

} // namespace rt
} // namespace streamlife
