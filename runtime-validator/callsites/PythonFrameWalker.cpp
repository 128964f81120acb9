//===- PythonFrameWalker.cpp - reading the interpreter's own frames -------===//
#include "callsites/PythonFrameWalker.h"

#include "callsites/PythonApi.h"

#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

namespace streamlife {
namespace rt {

namespace {

using Offset = std::ptrdiff_t;
constexpr Offset Unknown = -1;

/// The _PyInterpreterFrame fields a walk reads, fixed by the minor version:
/// compile-time constants in the capture-time loop, which then keeps only the
/// measured offsets in registers (a loop over the runtime Layout spilled five
/// of them and reloaded them at every frame).
// 3.11: f_func, f_globals, f_builtins, f_locals, f_code, frame_obj, previous, prev_instr, stacktop, is_entry, owner
struct Frames311 {
  static constexpr Offset Code = 32, Object = 40, Previous = 48, Instr = 56, Owner = 69;
  static constexpr int OwnerCStack = -1; // 3.11 has no entry frames: the owner is not read
};
// 3.12: f_code, previous, f_funcobj, f_globals, f_builtins, f_locals, frame_obj, prev_instr, stacktop,
//       return_offset, owner
// 3.13: f_executable, previous, f_funcobj, f_globals, f_builtins, f_locals, frame_obj, instr_ptr, stacktop,
//       return_offset, owner
struct Frames312 {
  static constexpr Offset Code = 0, Previous = 8, Object = 48, Instr = 56, Owner = 70;
  static constexpr int OwnerCStack = 3; // entry frames on the C stack: skipped
};

/// Where things are. The _PyInterpreterFrame fields come from the version;
/// the rest is measured by calibrate().
struct Layout {
  int Minor = 0;
  // PyThreadState -> innermost frame: 3.11 and 3.12 keep it in a _PyCFrame
  // the thread state points to, 3.13 in the thread state itself.
  Offset ThreadFrameSlot = Unknown;
  Offset CFrameCurrent = Unknown; ///< Unknown: ThreadFrameSlot holds the frame
  Offset FrameObject = 0; ///< _PyInterpreterFrame.frame_obj (calibration only)
  // PyFrameObject.f_frame, after PyObject_HEAD and f_back (all three versions).
  Offset FrameObjectFrame = 24;
  // PyCodeObject.
  const void *CodeType = nullptr; ///< &PyCode_Type: what a frame's code object must be
  Offset CodeUnits = Unknown; ///< offsetof(co_code_adaptive) == PyCode_Type.tp_basicsize
  Offset CodeFile = Unknown, CodeName = Unknown;
  // str: PyASCIIObject.length and .state are at the same place in all three.
  Offset StrLength = 16, StrState = 32;
  Offset AsciiData = Unknown, CompactData = Unknown;
};

bool versionLayout(int Minor, Layout &L) {
  L.Minor = Minor;
  switch (Minor) {
  case 11:
    L.FrameObject = Frames311::Object;
    L.CFrameCurrent = 8; // after uint8_t use_tracing
    return true;
  case 12:
    L.FrameObject = Frames312::Object;
    L.CFrameCurrent = 0;
    return true;
  case 13:
    L.FrameObject = Frames312::Object;
    L.CFrameCurrent = Unknown;
    return true;
  default:
    return false;
  }
}

/// Set by a successful calibration; read by the walk only after Active.
const PythonApi *Api = nullptr;
Layout TheLayout;
std::atomic<bool> Active{false};

// Memory reads. At capture time the layout is verified, so plain loads; during
// calibration a guess may point anywhere, so process_vm_readv on ourselves,
// which fails with EFAULT instead of faulting.
struct PlainReader {
  template <typename T> bool operator()(const void *At, T &Value) const {
    std::memcpy(&Value, At, sizeof(T));
    return true;
  }
};
struct CheckedReader {
  template <typename T> bool operator()(const void *At, T &Value) const {
    if (!At)
      return false;
    iovec Local{&Value, sizeof(T)};
    iovec Remote{const_cast<void *>(At), sizeof(T)};
    return process_vm_readv(getpid(), &Local, 1, &Remote, 1, 0) == static_cast<ssize_t>(sizeof(T));
  }
};

const char *at(const void *Base, Offset Off) { return static_cast<const char *>(Base) + Off; }

/// The innermost interpreter frame of thread state T, or null.
template <typename Reader> const void *currentFrame(const Reader &Read, const Layout &L, const void *T) {
  const void *Slot = nullptr;
  if (!T || !Read(at(T, L.ThreadFrameSlot), Slot) || !Slot)
    return nullptr;
  if (L.CFrameCurrent == Unknown)
    return Slot;
  const void *Frame = nullptr;
  return Read(at(Slot, L.CFrameCurrent), Frame) ? Frame : nullptr;
}

constexpr int MaxSkippedFrames = 4096;

/// The frames of thread state T, innermost first, with what names them (the
/// code object's name objects and the instruction index), skipping the
/// C-stack entry frames and frames that have not started (both are skipped by
/// PyFrame_GetBack too) and frames whose names cannot be read; Hash gets
/// hashRawPythonFrames of them, mixed in as each is read. Bounded: a frame
/// chain is never cyclic, but a wrong read must not loop forever; a kept frame
/// brings the walk closer to Max, so only the skipped ones are counted.
///
/// rawFramesFrom goes on from frame F, the first Next - Out kept frames in
/// Out already, H their hash and Skipped the frames skipped before F.
/// The instruction's byte offset in Code's code units: one unsigned compare
/// with 1 << 29 rejects a frame that has not started (prev_instr one unit
/// before the first) and a wild one. Code units are two bytes, the offset even.
inline std::uintptr_t instructionBytes(Offset CodeUnits, const void *Code, const void *Instr) {
  return reinterpret_cast<std::uintptr_t>(Instr) - reinterpret_cast<std::uintptr_t>(at(Code, CodeUnits));
}

/// Whether a frame read from the chain (its owner, code and instruction) is
/// one the walk skips: an entry frame of the C stack (3.12 on; 3.11 has none
/// and its owner is not read), no code object, an object that is not one
/// (ob_type), or an instruction outside its code units. The walk
/// (rawFramesFrom) and the compared walk (matchFrames) keep the same frames.
/// CodeType and CodeUnits are the layout's, held by the walk's loop (read
/// through the layout at each frame they cost a capture about 23 instructions).
template <typename Fields, typename Reader>
__attribute__((always_inline)) inline bool skippedFrame(const Reader &Read, const void *CodeType, Offset CodeUnits,
                                                        char Owner, const void *Code, const void *Instr) {
  constexpr bool SkipsEntryFrames = Fields::OwnerCStack >= 0;
  const void *Type = nullptr;
  return (SkipsEntryFrames && Owner == Fields::OwnerCStack) || !Code || !Read(at(Code, 8), Type) ||
         Type != CodeType || instructionBytes(CodeUnits, Code, Instr) >= (std::uintptr_t(1) << 29);
}

template <typename Fields, typename Reader>
int rawFramesFrom(const Reader &Read, const Layout &L, const void *F, int Skipped, RawPythonFrame *Out,
                  RawPythonFrame *Next, int Max, std::uint64_t H, std::uint64_t &Hash) {
  const void *const CodeType = L.CodeType;
  const Offset CodeUnits = L.CodeUnits, CodeFile = L.CodeFile, CodeName = L.CodeName;
  RawPythonFrame *const End = Out + Max;
  for (; F;) {
    // 3.11 has no entry frames on the C stack (OwnerCStack < 0): its walk
    // neither reads nor compares the owner (a load and a compare a frame).
    constexpr bool SkipsEntryFrames = Fields::OwnerCStack >= 0;
    char Owner = 0;
    const void *Code = nullptr, *Instr = nullptr, *Previous = nullptr;
    if (!Read(at(F, Fields::Previous), Previous) ||
        (SkipsEntryFrames && !Read(at(F, Fields::Owner), Owner)) ||
        !Read(at(F, Fields::Code), Code) || !Read(at(F, Fields::Instr), Instr))
      break;
    F = Previous;
    const void *File = nullptr, *Name = nullptr;
    if (skippedFrame<Fields>(Read, CodeType, CodeUnits, Owner, Code, Instr) || !Read(at(Code, CodeFile), File) ||
        !Read(at(Code, CodeName), Name)) {
      if (++Skipped == MaxSkippedFrames)
        break;
      continue;
    }
    std::int64_t Units = static_cast<std::int64_t>(instructionBytes(CodeUnits, Code, Instr) >> 1);
    *Next = RawPythonFrame{Code, File, Name, Units};
    H = mixRawPythonFrame(H, Code, Units);
    if (++Next == End)
      break;
  }
  Hash = H;
  return static_cast<int>(Next - Out);
}

template <typename Fields, typename Reader>
int rawFrames(const Reader &Read, const Layout &L, const void *T, RawPythonFrame *Out, int Max,
              std::uint64_t &Hash) {
  const void *F = Max > 0 ? currentFrame(Read, L, T) : nullptr;
  return rawFramesFrom<Fields>(Read, L, F, 0, Out, Out, Max, RawPythonStackSeed, Hash);
}

/// The first part of a walk compared with a stack read before (Expected):
/// from frame F, the kept frames (as rawFramesFrom keeps them) while they
/// equal Expected's, read and compared, neither stored nor hashed. Returns
/// how many matched; Resume is the first kept frame that differs (null when
/// the walk ended: the chain, the skipped frames' bound or Max), Skipped the
/// frames skipped before it.
template <typename Fields>
__attribute__((noinline)) int matchFrames(const Layout &L, const void *F, const RawPythonFrame *Expected,
                                          int ExpectedN, int Max, const void *&Resume, int &SkippedOut) {
  PlainReader Read;
  const void *const CodeType = L.CodeType;
  const Offset CodeUnits = L.CodeUnits, CodeFile = L.CodeFile, CodeName = L.CodeName;
  constexpr bool SkipsEntryFrames = Fields::OwnerCStack >= 0;
  // E walks Expected, at most Max of its frames.
  const RawPythonFrame *E = Expected;
  const RawPythonFrame *const EndOfExpected = Expected + (ExpectedN < Max ? ExpectedN : Max);
  int Skipped = 0;
  Resume = nullptr;
  while (F) {
    const void *Code, *Instr, *Previous;
    char Owner = 0;
    Read(at(F, Fields::Previous), Previous);
    if (SkipsEntryFrames)
      Read(at(F, Fields::Owner), Owner);
    Read(at(F, Fields::Code), Code);
    Read(at(F, Fields::Instr), Instr);
    const void *Type = nullptr;
    // The expected frame's code object and instruction, compared first as
    // pointers: a frame that matches them is a started frame of a code
    // object (the type is still checked: the object may be another now).
    if (E != EndOfExpected && !(SkipsEntryFrames && Owner == Fields::OwnerCStack) && Code == E->Code &&
        Instr == at(E->Code, CodeUnits + 2 * E->Lasti) && (Read(at(Code, 8), Type), Type == CodeType)) {
      const void *File, *Name;
      Read(at(Code, CodeFile), File);
      Read(at(Code, CodeName), Name);
      if (File != E->File || Name != E->Name) {
        Resume = F;
        break;
      }
      F = Previous;
      ++E;
      continue;
    }
    // Not the expected frame: a frame the walk skips, or the first that differs.
    if (skippedFrame<Fields>(Read, CodeType, CodeUnits, Owner, Code, Instr)) {
      F = Previous;
      if (++Skipped == MaxSkippedFrames)
        break;
      continue;
    }
    // A kept frame beyond Expected's differs; beyond Max kept frames the walk
    // has ended (this frame was read for nothing, once).
    Resume = E == EndOfExpected && ExpectedN >= Max ? nullptr : F;
    break;
  }
  SkippedOut = Skipped;
  return static_cast<int>(E - Expected);
}

/// rawFramesCompared after the first kept frame that differs (or a walk that
/// ended short of Expected): the walk without the comparison, the frames
/// matched copied from Expected. Out of line: the matching capture's path
/// keeps no frame for it.
template <typename Fields>
__attribute__((noinline)) int walkOnUncompared(const Layout &L, RawPythonFrame *Out, int Max, std::uint64_t &Hash,
                                               const RawPythonFrame *Expected, int Matched, const void *Resume,
                                               int Skipped) {
  std::uint64_t H = RawPythonStackSeed;
  for (int I = 0; I < Matched; ++I) {
    Out[I] = Expected[I];
    H = mixRawPythonFrame(H, Expected[I].Code, Expected[I].Lasti);
  }
  if (!Resume) {
    Hash = H;
    return Matched;
  }
  return rawFramesFrom<Fields>(PlainReader(), L, Resume, Skipped, Out, Out + Matched, Max, H, Hash);
}

/// rawFrames compared with Expected (walkRawPythonStackExpecting). Inline
/// there: as a frame of its own it saved and restored six registers a capture.
template <typename Fields>
__attribute__((always_inline)) inline int rawFramesCompared(const Layout &L, const void *T, RawPythonFrame *Out,
                                                            int Max, std::uint64_t &Hash,
                                                            const RawPythonFrame *Expected, int ExpectedN,
                                                            bool &Same) {
  const void *Resume = nullptr;
  int Skipped = 0;
  int Matched = matchFrames<Fields>(L, currentFrame(PlainReader(), L, T), Expected, ExpectedN, Max, Resume, Skipped);
  Same = !Resume && Matched == ExpectedN;
  if (Same)
    return Matched;
  return walkOnUncompared<Fields>(L, Out, Max, Hash, Expected, Matched, Resume, Skipped);
}

/// rawFrames with the layout's frame fields.
template <typename Reader>
int rawFramesOf(const Reader &Read, const Layout &L, const void *T, RawPythonFrame *Out, int Max,
                std::uint64_t &Hash) {
  if (L.Minor == 11)
    return rawFrames<Frames311>(Read, L, T, Out, Max, Hash);
  return rawFrames<Frames312>(Read, L, T, Out, Max, Hash);
}

/// rawFramesCompared with the layout's frame fields.
__attribute__((always_inline)) inline int rawFramesComparedOf(const Layout &L, const void *T, RawPythonFrame *Out,
                                                              int Max, std::uint64_t &Hash,
                                                              const RawPythonFrame *Expected, int ExpectedN,
                                                              bool &Same) {
  if (L.Minor == 11)
    return rawFramesCompared<Frames311>(L, T, Out, Max, Hash, Expected, ExpectedN, Same);
  return rawFramesCompared<Frames312>(L, T, Out, Max, Hash, Expected, ExpectedN, Same);
}

/// A str object's text as UTF-8, read from its compact representation.
template <typename Reader> bool readString(const Reader &Read, const void *Str, std::string &Text) {
  const Layout &L = TheLayout;
  long Length = 0;
  std::uint32_t State = 0;
  if (!Str || !Read(at(Str, L.StrLength), Length) || !Read(at(Str, L.StrState), State) ||
      Length < 0 || Length > 4096)
    return false;
  unsigned Kind = (State >> 2) & 7, Compact = (State >> 5) & 1, Ascii = (State >> 6) & 1;
  if (!Compact || (Kind != 1 && Kind != 2 && Kind != 4))
    return false;
  const char *Data = at(Str, Ascii ? L.AsciiData : L.CompactData);
  Text.clear();
  for (long I = 0; I < Length; ++I) {
    std::uint32_t C = 0;
    if (Kind == 1) {
      std::uint8_t B;
      if (!Read(Data + I, B))
        return false;
      C = B;
    } else if (Kind == 2) {
      std::uint16_t H;
      if (!Read(Data + 2 * I, H))
        return false;
      C = H;
    } else if (!Read(Data + 4 * I, C)) {
      return false;
    }
    if (C < 0x80) {
      Text += static_cast<char>(C);
    } else if (C < 0x800) {
      Text += static_cast<char>(0xC0 | C >> 6);
      Text += static_cast<char>(0x80 | (C & 0x3F));
    } else if (C < 0x10000) {
      Text += static_cast<char>(0xE0 | C >> 12);
      Text += static_cast<char>(0x80 | (C >> 6 & 0x3F));
      Text += static_cast<char>(0x80 | (C & 0x3F));
    } else {
      Text += static_cast<char>(0xF0 | C >> 18);
      Text += static_cast<char>(0x80 | (C >> 12 & 0x3F));
      Text += static_cast<char>(0x80 | (C >> 6 & 0x3F));
      Text += static_cast<char>(0x80 | (C & 0x3F));
    }
  }
  return true;
}

/// What identifies a code object without a reference to it: its address and
/// the addresses of its (immutable) name objects. A code object that dies and
/// is replaced at the same address by another one with other names gets a new
/// id instead of the old one's name.
struct CodeKey {
  const void *Code = nullptr, *File = nullptr, *Name = nullptr;
  bool operator<(const CodeKey &O) const {
    return std::tie(Code, File, Name) < std::tie(O.Code, O.File, O.Name);
  }
  bool operator==(const CodeKey &O) const {
    return Code == O.Code && File == O.File && Name == O.Name;
  }
};

/// Code ids of every thread, named once.
struct NamedCodes {
  std::mutex Lock;
  std::map<CodeKey, std::uint32_t> Ids;
};
NamedCodes &namedCodes() {
  static NamedCodes *Table = new NamedCodes; // outlives exit-time reports
  return *Table;
}

template <typename Reader> std::uint32_t codeIdOf(const Reader &Read, const CodeKey &Key) {
  NamedCodes &T = namedCodes();
  {
    std::lock_guard<std::mutex> Guard(T.Lock);
    if (auto It = T.Ids.find(Key); It != T.Ids.end())
      return It->second;
  }
  std::string File, Function;
  if (!readString(Read, Key.File, File))
    File = "?";
  if (!readString(Read, Key.Name, Function))
    Function = "?";
  std::uint32_t Id = addPythonCode(std::move(File), std::move(Function));
  std::lock_guard<std::mutex> Guard(T.Lock);
  return T.Ids.emplace(Key, Id).first->second; // a racing thread's id wins; ours stays unused
}

/// Per-thread direct-mapped caches, so that a capture in a steady loop is a
/// few loads per frame and no lock.
struct ThreadCaches {
  struct CodeSlot {
    CodeKey Key;
    std::uint32_t Id = 0;
  };
  struct LineSlot {
    std::uint32_t Code = 0;
    int Lasti = -1;
    std::uint32_t Line = 0;
  };
  std::array<CodeSlot, 1024> Codes{};
  std::array<LineSlot, 4096> Lines{};
};
thread_local std::unique_ptr<ThreadCaches> Caches;

std::size_t mix(std::uintptr_t V) { return static_cast<std::size_t>((V ^ V >> 17) * 0x9E3779B97F4A7C15ull >> 40); }

/// Names one frame from what identifies it (its code key and instruction).
template <typename Reader>
void describeKey(const Reader &Read, ThreadCaches &C, const CodeKey &Key, int Lasti, PyFrameRef &Ref) {
  auto &CodeSlot = C.Codes[mix(reinterpret_cast<std::uintptr_t>(Key.Code)) % C.Codes.size()];
  if (!(CodeSlot.Key == Key) || !CodeSlot.Id)
    CodeSlot = {Key, codeIdOf(Read, Key)};
  Ref.Code = CodeSlot.Id;
  auto &LineSlot = C.Lines[mix(std::uintptr_t(Ref.Code) << 20 ^ std::uintptr_t(Lasti)) % C.Lines.size()];
  if (LineSlot.Code != Ref.Code || LineSlot.Lasti != Lasti) {
    int Line = Api->CodeAddr2Line(const_cast<void *>(Key.Code), Lasti * 2);
    LineSlot = {Ref.Code, Lasti, Line > 0 ? static_cast<std::uint32_t>(Line) : 0};
  }
  Ref.Line = LineSlot.Line;
}

ThreadCaches &threadCaches() {
  if (!Caches)
    Caches = std::make_unique<ThreadCaches>();
  return *Caches;
}

template <typename Reader> void describe(const Reader &Read, const RawPythonFrame &F, PyFrameRef &Ref) {
  describeKey(Read, threadCaches(), CodeKey{F.Code, F.File, F.Name}, static_cast<int>(F.Lasti), Ref);
}

// ---- calibration (GIL held) -------------------------------------------------

struct Ref { // owns one new reference
  PyObj *P = nullptr;
  explicit Ref(PyObj *P) : P(P) {
    if (!P)
      Api->ErrClear();
  }
  ~Ref() {
    if (P)
      Api->DecRef(P);
  }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
};

std::string utf8Of(PyObj *Str) {
  const char *Text = Str ? Api->UnicodeAsUTF8(Str) : nullptr;
  if (!Text) {
    Api->ErrClear();
    return "?";
  }
  return Text;
}

/// The offset in [From, To) of the first pointer-sized slot of Object equal to Value.
Offset findSlot(const void *Object, Offset From, Offset To, const void *Value) {
  CheckedReader Read;
  for (Offset Off = From; Off + 8 <= To; Off += 8) {
    const void *Slot = nullptr;
    if (Read(at(Object, Off), Slot) && Slot == Value)
      return Off;
  }
  return Unknown;
}

/// The offset of Bytes inside Object's first Limit bytes.
Offset findBytes(const void *Object, Offset From, Offset Limit, const void *Bytes, std::size_t Size) {
  CheckedReader Read;
  for (Offset Off = From; Off + static_cast<Offset>(Size) <= Limit; Off += 4) {
    char Buffer[64];
    bool Ok = Size <= sizeof(Buffer);
    for (std::size_t I = 0; Ok && I < Size; ++I)
      Ok = Read(at(Object, Off + static_cast<Offset>(I)), Buffer[I]);
    if (Ok && !std::memcmp(Buffer, Bytes, Size))
      return Off;
  }
  return Unknown;
}

bool learnStrings(Layout &L, std::string &Why) {
  // ASCII: "streamlife!" as 1-byte data right after PyASCIIObject.
  static const char Ascii[] = "streamlife-ascii";
  Ref A(Api->UnicodeFromKindAndData(1, Ascii, sizeof(Ascii) - 1));
  // Not ASCII but 1 byte per character (kind 1), after PyCompactUnicodeObject.
  static const unsigned char Latin1[] = {0xE9, 's', 't', 'r', 'e', 'a', 'm', 'l', 'i', 'f', 'e'};
  Ref B(Api->UnicodeFromKindAndData(1, Latin1, sizeof(Latin1)));
  if (!A.P || !B.P)
    return (Why = "cannot create calibration strings"), false;
  L.AsciiData = findBytes(A.P, 24, 128, Ascii, sizeof(Ascii) - 1);
  L.CompactData = findBytes(B.P, 24, 160, Latin1, sizeof(Latin1));
  if (L.AsciiData == Unknown || L.CompactData == Unknown)
    return (Why = "str layout not recognized"), false;
  CheckedReader Read;
  std::string Text;
  if (!readString(Read, A.P, Text) || Text != Ascii)
    return (Why = "ascii str read back wrong"), false;
  // 2- and 4-byte kinds share the compact header: verify both read back.
  static const std::uint16_t Ucs2[] = {0x3b1, 0x3b2, 's'};
  static const std::uint32_t Ucs4[] = {0x1F600, 'x'};
  Ref C(Api->UnicodeFromKindAndData(2, Ucs2, 3)), D(Api->UnicodeFromKindAndData(4, Ucs4, 2));
  if (!readString(Read, B.P, Text) || Text != utf8Of(B.P) || !C.P || !readString(Read, C.P, Text) ||
      Text != utf8Of(C.P) || !D.P || !readString(Read, D.P, Text) || Text != utf8Of(D.P))
    return (Why = "non-ascii str read back wrong"), false;
  return true;
}

bool learnCode(Layout &L, PyObj *Code, std::string &Why) {
  Ref Basic(Api->GetAttrString(Api->CodeType, "__basicsize__"));
  long Size = Basic.P ? Api->LongAsLong(Basic.P) : -1;
  if (Size < 64 || Size > 1024)
    return (Why = "code object size not recognized"), false;
  L.CodeUnits = Size;
  Ref File(Api->GetAttrString(Code, "co_filename")), Name(Api->GetAttrString(Code, "co_name"));
  if (!File.P || !Name.P)
    return (Why = "code object without co_filename/co_name"), false;
  L.CodeFile = findSlot(Code, 16, Size, File.P);
  L.CodeName = findSlot(Code, 16, Size, Name.P);
  if (L.CodeFile == Unknown || L.CodeName == Unknown)
    return (Why = "co_filename/co_name not found in the code object"), false;
  return true;
}

bool learnThreadState(Layout &L, const void *T, PyObj *FrameObject, std::string &Why) {
  CheckedReader Read;
  const void *Innermost = nullptr, *Back = nullptr;
  if (!Read(at(FrameObject, L.FrameObjectFrame), Innermost) ||
      !Read(at(Innermost, L.FrameObject), Back) || Back != FrameObject)
    return (Why = "frame object does not point at its interpreter frame"), false;
  for (Offset Off = 0; Off < 1024 && L.ThreadFrameSlot == Unknown; Off += 8) {
    const void *Slot = nullptr, *Frame = nullptr;
    if (!Read(at(T, Off), Slot) || !Slot)
      continue;
    if (L.CFrameCurrent == Unknown ? Slot == Innermost
                                   : Read(at(Slot, L.CFrameCurrent), Frame) && Frame == Innermost)
      L.ThreadFrameSlot = Off;
  }
  if (L.ThreadFrameSlot == Unknown)
    return (Why = "current frame not found in the thread state"), false;
  return true;
}

/// Walks the current stack with the capture-time code (through checked reads)
/// and with the C API, and demands the same code objects, names and lines.
bool verifyWalk(const void *T, PyObj *FrameObject, std::string &Why) {
  CheckedReader Read;
  RawPythonFrame Raw[MaxPythonFrames];
  std::uint64_t Hash = 0;
  int N = rawFramesOf(Read, TheLayout, T, Raw, MaxPythonFrames, Hash);
  std::vector<std::unique_ptr<Ref>> Backs; // frames from PyFrame_GetBack are new references
  PyObj *F = FrameObject;
  int I = 0;
  for (; F && I < MaxPythonFrames; ++I) {
    Ref Code(Api->FrameGetCode(F));
    std::string At = "frame " + std::to_string(I) + ": ";
    if (I >= N)
      return (Why = At + "the C API sees more frames than the walker"), false;
    if (Raw[I].Code != Code.P)
      return (Why = At + "another code object"), false;
    PyFrameRef Mine;
    describe(Read, Raw[I], Mine);
    PyFrameText Text = describePythonFrame(Mine);
    Ref File(Api->GetAttrString(Code.P, "co_filename")), Name(Api->GetAttrString(Code.P, "co_name"));
    int Line = Api->FrameGetLineNumber(F);
    if (Text.File != utf8Of(File.P) || Text.Function != utf8Of(Name.P))
      return (Why = At + "names differ"), false;
    if (Line < 0 || Mine.Line != static_cast<std::uint32_t>(Line))
      return (Why = At + "line " + std::to_string(Mine.Line) + ", the C API says " + std::to_string(Line)),
             false;
    Backs.push_back(std::make_unique<Ref>(Api->FrameGetBack(F)));
    F = Backs.back()->P;
  }
  if (I < MaxPythonFrames && I != N)
    return (Why = "the walker sees more frames than the C API"), false;
  if (I < 2)
    return (Why = "too few frames to verify the layout"), false;
  if (Hash != hashRawPythonFrames(Raw, N))
    return (Why = "the walk's stack hash differs from its frames'"), false;
  return true;
}

} // namespace

bool calibratePythonFrameWalker(std::string &Why) {
  static std::mutex Once;
  std::lock_guard<std::mutex> Guard(Once);
  if (Active.load(std::memory_order_acquire))
    return true;
  const PythonApi &Bound = pythonApi();
  if (!Bound.WalkerOk)
    return (Why = "the Python C API is not in the process"), false;
  Api = &Bound;
  int Major = 0, Minor = 0;
  const char *Version = Api->GetVersion();
  Layout L;
  if (!Version || std::sscanf(Version, "%d.%d", &Major, &Minor) != 2 || Major != 3 ||
      !versionLayout(Minor, L))
    return (Why = "CPython " + std::to_string(Major) + "." + std::to_string(Minor) +
                  ": frame layout not known (3.11 to 3.13)"),
           false;
  PyObj *T = Api->ThreadStateGet();
  PyObj *Frame = Api->EvalGetFrame();
  if (!T || !Frame)
    return (Why = "no Python frame to calibrate with"), false;
  if (Api->ThisThreadState() != T)
    return (Why = "the thread's own thread state is not the current one"), false;
  Ref Code(Api->FrameGetCode(Frame));
  L.CodeType = Api->CodeType;
  TheLayout = L; // the readers below use it; nobody walks before Active is set
  if (!Code.P || !learnStrings(TheLayout, Why) || !learnCode(TheLayout, Code.P, Why) ||
      !learnThreadState(TheLayout, T, Frame, Why) || !verifyWalk(T, Frame, Why)) {
    if (Why.empty())
      Why = "no code object for the current frame";
    TheLayout = Layout();
    return false;
  }
  Active.store(true, std::memory_order_release);
  return true;
}

bool pythonFrameWalkerActive() { return Active.load(std::memory_order_acquire); }

std::string pythonFrameWalkerVersion() {
  return pythonFrameWalkerActive() ? "CPython 3." + std::to_string(TheLayout.Minor) : std::string();
}

int walkPythonStack(PyFrameRef *Out, int Max) {
  RawPythonFrame Raw[MaxPythonFrames];
  std::uint64_t Hash;
  int N = walkRawPythonStack(Raw, Max, Hash);
  describeRawPythonStack(Raw, N, Out);
  return N;
}

int walkRawPythonStack(RawPythonFrame *Out, int Max, std::uint64_t &Hash) {
  Hash = RawPythonStackSeed;
  if (!Active.load(std::memory_order_acquire) || Max <= 0)
    return 0;
  const void *T = Api->ThisThreadState(); // a thread-local lookup; no GIL needed
  return T ? rawFramesOf(PlainReader(), TheLayout, T, Out, Max < MaxPythonFrames ? Max : MaxPythonFrames, Hash) : 0;
}

int walkRawPythonStackExpecting(const RawPythonFrame *Expected, int ExpectedN, RawPythonFrame *Out, int Max,
                                std::uint64_t &Hash, bool &Same) {
  Hash = RawPythonStackSeed;
  Same = false;
  if (!Active.load(std::memory_order_acquire) || Max <= 0)
    return 0;
  const void *T = Api->ThisThreadState(); // a thread-local lookup; no GIL needed
  return T ? rawFramesComparedOf(TheLayout, T, Out, Max < MaxPythonFrames ? Max : MaxPythonFrames, Hash, Expected,
                                 ExpectedN, Same)
           : 0;
}

namespace {
bool testingLayout(const SyntheticPythonLayout &S, Layout &L) {
  if (!versionLayout(S.Minor, L))
    return false;
  L.ThreadFrameSlot = S.ThreadFrameSlot;
  L.CFrameCurrent = S.CFrameCurrent;
  L.CodeType = S.CodeType;
  L.CodeUnits = S.CodeUnits;
  L.CodeFile = S.CodeFile;
  L.CodeName = S.CodeName;
  return true;
}
} // namespace

int walkRawPythonStackForTesting(const SyntheticPythonLayout &S, const void *ThreadState, RawPythonFrame *Out,
                                 int Max, std::uint64_t &Hash) {
  Hash = RawPythonStackSeed;
  Layout L;
  if (!testingLayout(S, L) || Max <= 0)
    return 0;
  return rawFramesOf(PlainReader(), L, ThreadState, Out, Max < MaxPythonFrames ? Max : MaxPythonFrames, Hash);
}

int walkRawPythonStackExpectingForTesting(const SyntheticPythonLayout &S, const void *ThreadState,
                                          const RawPythonFrame *Expected, int ExpectedN, RawPythonFrame *Out,
                                          int Max, std::uint64_t &Hash, bool &Same) {
  Hash = RawPythonStackSeed;
  Same = false;
  Layout L;
  if (!testingLayout(S, L) || Max <= 0)
    return 0;
  return rawFramesComparedOf(L, ThreadState, Out, Max < MaxPythonFrames ? Max : MaxPythonFrames, Hash, Expected,
                             ExpectedN, Same);
}

std::uint64_t hashRawPythonFrames(const RawPythonFrame *Raw, int N) {
  std::uint64_t H = RawPythonStackSeed;
  for (int I = 0; I < N; ++I)
    H = mixRawPythonFrame(H, Raw[I].Code, Raw[I].Lasti);
  return H;
}

void describeRawPythonStack(const RawPythonFrame *Raw, int N, PyFrameRef *Out) {
  if (N <= 0)
    return;
  PlainReader Read;
  ThreadCaches &C = threadCaches();
  for (int I = 0; I < N; ++I)
    describeKey(Read, C, CodeKey{Raw[I].Code, Raw[I].File, Raw[I].Name}, static_cast<int>(Raw[I].Lasti), Out[I]);
}

} // namespace rt
} // namespace streamlife
