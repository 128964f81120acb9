//===- PythonFrameWalkerTest.cpp - the capture-time walk on synthetic frames ===//
//
// The frame walker's capture-time loop (callsites/PythonFrameWalker.cpp) reads
// a version's frame fields at compile-time offsets, takes the instruction as
// an unsigned byte offset and hashes each frame as it reads it. Here it walks
// synthetic interpreter frames in plain memory, laid out as CPython 3.11 and
// 3.12 lay them out, and must give exactly what the walk it replaced gave (a
// straightforward reading of every frame with the runtime layout, the
// instruction index by signed division) and the hash that
// hashRawPythonFrames computes from those frames afterwards.
//
//===----------------------------------------------------------------------===//
#include "callsites/PythonCallSites.h"
#include "callsites/PythonFrameWalker.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <random>
#include <vector>

using namespace streamlife::rt;

namespace {

/// The frame fields of a version, as the walk before this one read them from
/// its runtime layout.
struct VersionFields {
  int Minor;
  std::ptrdiff_t Code, Previous, Instr, Owner;
  int OwnerCStack;
};
constexpr VersionFields V311{11, 32, 48, 56, 69, -1};
constexpr VersionFields V312{12, 0, 8, 56, 70, 3};

constexpr std::ptrdiff_t CodeUnits = 0xC0, CodeFile = 0x68, CodeName = 0x70;
constexpr std::int64_t MaxUnits = std::int64_t(1) << 28; // the walk's bound on an instruction index

/// What one synthetic frame is.
enum class Kind { Code, EntryFrame, NotStarted, NotCode, NoCode };

struct SyntheticInterpreter {
  VersionFields V;
  char CodeTypeObject = 0, OtherTypeObject = 0;
  std::deque<std::vector<char>> Memory; // frames, code objects, thread state: stable addresses
  const void *ThreadState = nullptr;

  explicit SyntheticInterpreter(VersionFields V) : V(V) {}

  char *block(std::size_t Size) {
    Memory.emplace_back(Size + 16, 0);
    auto Address = reinterpret_cast<std::uintptr_t>(Memory.back().data());
    return reinterpret_cast<char *>((Address + 15) & ~std::uintptr_t(15)); // aligned as objects are
  }
  template <typename T> static void put(char *At, std::ptrdiff_t Off, T Value) {
    std::memcpy(At + Off, &Value, sizeof(T));
  }
  char *codeObject(bool IsCode, const void *File, const void *Name) {
    char *Code = block(256);
    put<const void *>(Code, 8, IsCode ? &CodeTypeObject : &OtherTypeObject);
    put<const void *>(Code, CodeFile, File);
    put<const void *>(Code, CodeName, Name);
    return Code;
  }
  /// A frame chain from innermost to outermost; the thread state points at its first frame.
  void stack(const std::vector<char *> &Frames) {
    for (std::size_t I = 0; I < Frames.size(); ++I)
      put<const void *>(Frames[I], V.Previous, I + 1 < Frames.size() ? Frames[I + 1] : nullptr);
    char *T = block(64);
    put<const void *>(T, 16, Frames.empty() ? nullptr : Frames.front());
    ThreadState = T;
  }
  char *frame(const void *Code, const void *Instr, char Owner) {
    char *F = block(96);
    put<const void *>(F, V.Code, Code);
    put<const void *>(F, V.Instr, Instr);
    put<char>(F, V.Owner, Owner);
    return F;
  }
  SyntheticPythonLayout layout() const {
    SyntheticPythonLayout L;
    L.Minor = V.Minor;
    L.ThreadFrameSlot = 16;
    L.CFrameCurrent = -1;
    L.CodeType = &CodeTypeObject;
    L.CodeUnits = CodeUnits;
    L.CodeFile = CodeFile;
    L.CodeName = CodeName;
    return L;
  }

  /// The walk as it was before the capture-time loop: field by field from the
  /// runtime layout, the index by signed division, the same skips.
  int referenceWalk(RawPythonFrame *Out, int Max) const {
    auto Read = [](const void *At, std::ptrdiff_t Off, auto &Value) {
      std::memcpy(&Value, static_cast<const char *>(At) + Off, sizeof(Value));
    };
    const void *F = nullptr;
    Read(ThreadState, 16, F);
    int N = 0;
    for (int Steps = 0; F && N < Max && Steps < 4096; ++Steps) {
      char Owner = 0;
      const void *Code = nullptr, *Instr = nullptr, *Previous = nullptr;
      Read(F, V.Owner, Owner);
      Read(F, V.Code, Code);
      Read(F, V.Instr, Instr);
      Read(F, V.Previous, Previous);
      const void *Type = nullptr;
      if (Code)
        Read(Code, 8, Type);
      if (Owner != V.OwnerCStack && Code && Type == &CodeTypeObject) {
        std::int64_t Units = (static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(Instr)) -
                              static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(Code) + CodeUnits)) /
                             2;
        if (Units >= 0 && Units < MaxUnits) {
          const void *File = nullptr, *Name = nullptr;
          Read(Code, CodeFile, File);
          Read(Code, CodeName, Name);
          Out[N++] = RawPythonFrame{Code, File, Name, Units};
        }
      }
      F = Previous;
    }
    return N;
  }
};

/// Builds a stack of the given kinds; Lasti of each code frame from Indices.
void build(SyntheticInterpreter &S, const std::vector<Kind> &Kinds, const std::vector<std::int64_t> &Indices,
           std::vector<char *> *CodeObjects = nullptr) {
  static const char Files[4] = {}, Names[4] = {};
  std::vector<char *> Frames;
  for (std::size_t I = 0; I < Kinds.size(); ++I) {
    char *Code = S.codeObject(Kinds[I] != Kind::NotCode, &Files[I % 4], &Names[(I / 4) % 4]);
    if (CodeObjects)
      CodeObjects->push_back(Code);
    std::int64_t Index = Kinds[I] == Kind::NotStarted ? -1 : Indices[I];
    auto Instr = reinterpret_cast<const void *>(reinterpret_cast<std::uintptr_t>(Code) + CodeUnits + 2 * Index);
    char Owner = Kinds[I] == Kind::EntryFrame ? static_cast<char>(S.V.OwnerCStack) : 0;
    // 3.11 has no entry frames (its walk does not read the owner): a frame
    // that has not started stands in for one.
    if (Kinds[I] == Kind::EntryFrame && S.V.OwnerCStack < 0)
      Instr = reinterpret_cast<const void *>(reinterpret_cast<std::uintptr_t>(Code) + CodeUnits - 2);
    Frames.push_back(S.frame(Kinds[I] == Kind::NoCode ? nullptr : Code, Instr, Owner));
  }
  S.stack(Frames);
}

void expectSameWalk(const SyntheticInterpreter &S, int Max, const char *What) {
  RawPythonFrame Fast[MaxPythonFrames], Slow[MaxPythonFrames];
  std::uint64_t Hash = 0;
  int N = walkRawPythonStackForTesting(S.layout(), S.ThreadState, Fast, Max, Hash);
  int Expected = S.referenceWalk(Slow, Max);
  ASSERT_EQ(N, Expected) << What;
  EXPECT_EQ(std::memcmp(Fast, Slow, sizeof(RawPythonFrame) * static_cast<std::size_t>(N)), 0) << What;
  EXPECT_EQ(Hash, hashRawPythonFrames(Slow, Expected)) << What;
}

TEST(PythonFrameWalkerTest, EveryKindOfFrameAsTheReferenceWalkReadsIt) {
  for (VersionFields V : {V311, V312}) {
    SyntheticInterpreter S(V);
    std::vector<char *> Codes;
    build(S,
          {Kind::Code, Kind::EntryFrame, Kind::Code, Kind::NotStarted, Kind::NotCode, Kind::NoCode, Kind::Code,
           Kind::Code},
          {0, 5, 7, 0, 3, 2, MaxUnits - 1, MaxUnits}, &Codes);
    RawPythonFrame Out[MaxPythonFrames];
    std::uint64_t Hash = 0;
    int N = walkRawPythonStackForTesting(S.layout(), S.ThreadState, Out, MaxPythonFrames, Hash);
    ASSERT_EQ(N, 3) << V.Minor;
    EXPECT_EQ(Out[0].Code, Codes[0]);
    EXPECT_EQ(Out[0].Lasti, 0);
    EXPECT_EQ(Out[N - 2].Code, Codes[2]);
    EXPECT_EQ(Out[N - 2].Lasti, 7);
    EXPECT_EQ(Out[N - 1].Code, Codes[6]); // the largest index kept, the next one dropped
    EXPECT_EQ(Out[N - 1].Lasti, MaxUnits - 1);
    EXPECT_EQ(Hash, hashRawPythonFrames(Out, N));
    expectSameWalk(S, MaxPythonFrames, "every kind");
  }
}

/// A random stack of up to 47 frames of every kind (code objects three times
/// as often as each other kind), its instruction indices mostly anywhere in a
/// code object, a quarter at the edges of the walker's range.
void buildRandomStack(SyntheticInterpreter &S, std::mt19937 &Random) {
  const Kind Kinds[] = {Kind::Code, Kind::Code, Kind::Code, Kind::EntryFrame, Kind::NotStarted, Kind::NotCode,
                        Kind::NoCode};
  const std::int64_t Edges[] = {0, 1, MaxUnits - 1, MaxUnits, MaxUnits + 1};
  std::size_t Depth = Random() % 48;
  std::vector<Kind> Stack;
  std::vector<std::int64_t> Indices;
  for (std::size_t I = 0; I < Depth; ++I) {
    Stack.push_back(Kinds[Random() % 7]);
    Indices.push_back(Random() % 4 ? static_cast<std::int64_t>(Random() % 5000) : Edges[Random() % 5]);
  }
  build(S, Stack, Indices);
}

TEST(PythonFrameWalkerTest, RandomStacksMatchTheReferenceWalkAndHash) {
  std::mt19937 Random(20261203);
  for (VersionFields V : {V311, V312}) {
    for (int Round = 0; Round < 300; ++Round) {
      SyntheticInterpreter S(V);
      buildRandomStack(S, Random);
      int Max = 1 + static_cast<int>(Random() % MaxPythonFrames);
      expectSameWalk(S, Max, ("round " + std::to_string(Round) + ", 3." + std::to_string(V.Minor)).c_str());
    }
  }
}

TEST(PythonFrameWalkerTest, AnEmptyThreadGivesNoFramesAndTheSeed) {
  SyntheticInterpreter S(V312);
  S.stack({});
  RawPythonFrame Out[MaxPythonFrames];
  std::uint64_t Hash = 0;
  EXPECT_EQ(walkRawPythonStackForTesting(S.layout(), S.ThreadState, Out, MaxPythonFrames, Hash), 0);
  EXPECT_EQ(Hash, hashRawPythonFrames(Out, 0));
}

/// A chain that a wrong read made cyclic still ends: at Max kept frames, or
/// after a bounded number of skipped ones.
TEST(PythonFrameWalkerTest, ACyclicChainEnds) {
  for (Kind K : {Kind::Code, Kind::NotCode, Kind::EntryFrame}) {
    SyntheticInterpreter S(V312);
    std::vector<char *> Codes;
    build(S, {K}, {3}, &Codes);
    char *Frame = nullptr;
    std::memcpy(&Frame, static_cast<const char *>(S.ThreadState) + 16, sizeof(Frame));
    SyntheticInterpreter::put<const void *>(Frame, V312.Previous, Frame); // its own caller
    RawPythonFrame Out[MaxPythonFrames];
    std::uint64_t Hash = 0;
    int N = walkRawPythonStackForTesting(S.layout(), S.ThreadState, Out, MaxPythonFrames, Hash);
    EXPECT_EQ(N, K == Kind::Code ? MaxPythonFrames : 0);
    EXPECT_EQ(Hash, hashRawPythonFrames(Out, N));
  }
}

/// The walk's hash is what the remembered call sites are found by: a stack
/// remembered under the hash of its frames is found under the walk's.
TEST(PythonFrameWalkerTest, TheWalksHashFindsTheRememberedStack) {
  SyntheticInterpreter S(V312);
  build(S, {Kind::Code, Kind::EntryFrame, Kind::Code, Kind::Code}, {4, 0, 9, 12});
  RawPythonFrame Out[MaxPythonFrames];
  std::uint64_t Hash = 0;
  int N = walkRawPythonStackForTesting(S.layout(), S.ThreadState, Out, MaxPythonFrames, Hash);
  ASSERT_EQ(N, 3);
  RawStackMemory Memory;
  Memory.remember(1, 2, Out, N, hashRawPythonFrames(Out, N), 77);
  EXPECT_EQ(Memory.find(1, 2, Out, N, Hash), 77u);
}

} // namespace

/// A walk compared with a stack read before (walkRawPythonStackExpecting,
/// what a capture does with the stack it expects): Same exactly when the plain
/// walk gives those frames, else the plain walk's frames, count and hash, on
/// random stacks against their own frames, the frames changed in one field,
/// cut short, made longer, another stack's, and no expectation.
TEST(PythonFrameWalkerTest, TheComparedWalkIsThePlainWalk) {
  std::mt19937 Random(20261204);
  std::size_t SameSeen = 0, DifferentSeen = 0;
  for (VersionFields V : {V311, V312}) {
    std::vector<RawPythonFrame> Other;
    for (int Round = 0; Round < 400; ++Round) {
      SyntheticInterpreter S(V);
      buildRandomStack(S, Random);
      const int Max = Random() % 3 ? MaxPythonFrames : 1 + static_cast<int>(Random() % MaxPythonFrames);
      RawPythonFrame Plain[MaxPythonFrames];
      std::uint64_t PlainHash = 0;
      const int PlainN = walkRawPythonStackForTesting(S.layout(), S.ThreadState, Plain, Max, PlainHash);
      // The full stack's frames (an expectation may be longer than Max).
      RawPythonFrame Full[MaxPythonFrames];
      std::uint64_t FullHash = 0;
      const int FullN = walkRawPythonStackForTesting(S.layout(), S.ThreadState, Full, MaxPythonFrames, FullHash);
      for (int Variant = 0; Variant < 7; ++Variant) {
        std::vector<RawPythonFrame> Expected(Full, Full + FullN);
        switch (Variant) {
        case 0: // the same frames
          break;
        case 1: // one field of one frame changed
          if (!Expected.empty()) {
            RawPythonFrame &F = Expected[Random() % Expected.size()];
            switch (Random() % 4) {
            case 0: F.Code = static_cast<const char *>(F.Code) + 16; break;
            case 1: F.File = static_cast<const char *>(F.File) + 1; break;
            case 2: F.Name = static_cast<const char *>(F.Name) + 1; break;
            case 3: F.Lasti += 1 + Random() % 3; break;
            }
          }
          break;
        case 2: // cut short
          Expected.resize(Expected.empty() ? 0 : Random() % Expected.size());
          break;
        case 3: // one frame more
          Expected.push_back(Expected.empty() ? RawPythonFrame{&Random, &Random, &Random, 3} : Expected.front());
          break;
        case 4: // the previous round's stack
          Expected = Other;
          break;
        case 5: // no expectation
          Expected.clear();
          break;
        case 6: // the frames up to Max only
          Expected.assign(Plain, Plain + PlainN);
          break;
        }
        RawPythonFrame Out[MaxPythonFrames];
        std::uint64_t Hash = 0;
        bool Same = false;
        const int N = walkRawPythonStackExpectingForTesting(S.layout(), S.ThreadState, Expected.data(),
                                                            static_cast<int>(Expected.size()), Out, Max, Hash, Same);
        const std::string What = "3." + std::to_string(V.Minor) + ", round " + std::to_string(Round) +
                                 ", variant " + std::to_string(Variant);
        const bool Equal = Expected.size() == static_cast<std::size_t>(PlainN) &&
                           (PlainN == 0 || !std::memcmp(Expected.data(), Plain, sizeof(RawPythonFrame) * PlainN));
        ASSERT_EQ(Same, Equal) << What;
        ASSERT_EQ(N, PlainN) << What;
        if (Same) {
          ++SameSeen;
          continue;
        }
        ++DifferentSeen;
        ASSERT_EQ(Hash, PlainHash) << What;
        for (int I = 0; I < N; ++I) {
          ASSERT_EQ(Out[I].Code, Plain[I].Code) << What << ", frame " << I;
          ASSERT_EQ(Out[I].File, Plain[I].File) << What << ", frame " << I;
          ASSERT_EQ(Out[I].Name, Plain[I].Name) << What << ", frame " << I;
          ASSERT_EQ(Out[I].Lasti, Plain[I].Lasti) << What << ", frame " << I;
        }
      }
      Other.assign(Full, Full + FullN);
    }
  }
  EXPECT_GT(SameSeen, 500u);
  EXPECT_GT(DifferentSeen, 1500u);
}
