//===--- PythonApiTable.cpp - streamlife ----------------------------------===//

#include "PythonApiTable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"

namespace streamlife::python {
namespace {

using VK = ValueKind;

constexpr PyOperand none() { return {}; }
constexpr PyOperand arg(int Position, llvm::StringRef Keyword = "") {
  return {Position, Keyword};
}
constexpr PyOperand kw(llvm::StringRef Keyword) { return {-1, Keyword}; }

// Functions, by qualified name. Every stream and event API has its
// torch.cuda, torch (device-generic) and torch.accelerator spellings.
const PyApiRow FunctionRows[] = {
    {"torch.cuda.Stream", VK::Unknown, PyOp::CreateStream},
    {"torch.cuda.streams.Stream", VK::Unknown, PyOp::CreateStream},
    {"torch.Stream", VK::Unknown, PyOp::CreateStream},
    {"torch.cuda.current_stream", VK::Unknown, PyOp::CurrentStream},
    {"torch.cuda.default_stream", VK::Unknown, PyOp::CurrentStream},
    {"torch.accelerator.current_stream", VK::Unknown, PyOp::CurrentStream},
    {"torch.cuda.stream", VK::Unknown, PyOp::StreamContext, arg(0, "stream")},
    {"torch.cuda.StreamContext", VK::Unknown, PyOp::StreamContext, arg(0, "stream")},
    {"torch.cuda.set_stream", VK::Unknown, PyOp::SetStream, arg(0, "stream")},
    {"torch.accelerator.set_stream", VK::Unknown, PyOp::SetStream, arg(0, "stream")},
    {"torch.cuda.Event", VK::Unknown, PyOp::CreateEvent},
    {"torch.cuda.streams.Event", VK::Unknown, PyOp::CreateEvent},
    {"torch.Event", VK::Unknown, PyOp::CreateEvent},
    // CUDA graph capture: the context synchronizes the device on entry and
    // captures its body into the graph instead of running it.
    {"torch.cuda.graph", VK::Unknown, PyOp::GraphCapture},
    {"torch.cuda.graphs.graph", VK::Unknown, PyOp::GraphCapture},
    {"torch.cuda.synchronize", VK::Unknown, PyOp::SyncDevice},
    {"torch.accelerator.synchronize", VK::Unknown, PyOp::SyncDevice},
    // Tensor factories: CUDA tensors when a device is given that is not
    // a literal "cpu"/"meta" (checked by the lowering).
    {"torch.empty", VK::Unknown, PyOp::Factory},
    {"torch.zeros", VK::Unknown, PyOp::Factory},
    {"torch.ones", VK::Unknown, PyOp::Factory},
    {"torch.full", VK::Unknown, PyOp::Factory},
    {"torch.rand", VK::Unknown, PyOp::Factory},
    {"torch.randn", VK::Unknown, PyOp::Factory},
    {"torch.randint", VK::Unknown, PyOp::Factory},
    {"torch.arange", VK::Unknown, PyOp::Factory},
    {"torch.linspace", VK::Unknown, PyOp::Factory},
    {"torch.eye", VK::Unknown, PyOp::Factory},
    {"torch.tensor", VK::Unknown, PyOp::Factory},
    {"torch.empty_strided", VK::Unknown, PyOp::Factory},
    {"torch.as_tensor", VK::Unknown, PyOp::Factory},
    // The device module's pin_memory(t) (DeepSpeed's accelerator): a
    // page-locked copy of a host tensor.
    {"torch.cuda.pin_memory", VK::Unknown, PyOp::PinMemory},
    {"torch.from_numpy", VK::Unknown, PyOp::Factory},
    // A tensor over a Python buffer (bytes, a memoryview): host memory.
    {"torch.frombuffer", VK::Unknown, PyOp::Factory},
    {"torch.empty_like", VK::Unknown, PyOp::FactoryLike},
    {"torch.zeros_like", VK::Unknown, PyOp::FactoryLike},
    {"torch.ones_like", VK::Unknown, PyOp::FactoryLike},
    {"torch.full_like", VK::Unknown, PyOp::FactoryLike},
    {"torch.rand_like", VK::Unknown, PyOp::FactoryLike},
    {"torch.randn_like", VK::Unknown, PyOp::FactoryLike},
    // Collectives: on the process group's stream; with async_op=True the
    // caller orders itself after them through the returned work handle.
    {"torch.distributed.all_reduce", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.all_gather", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.all_gather_into_tensor", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.reduce_scatter", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.reduce_scatter_tensor", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.all_to_all", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.all_to_all_single", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.broadcast", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.reduce", VK::Unknown, PyOp::Collective, {}, {}, kw("async_op")},
    {"torch.distributed.isend", VK::Unknown, PyOp::Collective, {}, {}, arg(0)},
    {"torch.distributed.irecv", VK::Unknown, PyOp::Collective, {}, {}, arg(0)},
    // ProcessGroupNCCL's barrier is an all-reduce on the current stream
    // whose wait synchronizes that stream with the host.
    {"torch.distributed.barrier", VK::Unknown, PyOp::Barrier, {}, {}, kw("async_op")},
    // Comparisons that return a Python bool: the host waits for them.
    {"torch.equal", VK::Unknown, PyOp::HostRead},
    {"torch.allclose", VK::Unknown, PyOp::HostRead},
    {"torch.is_nonzero", VK::Unknown, PyOp::HostRead},
    {"torch.cuda.is_available", VK::Unknown, PyOp::NoOp},
    {"torch.cuda.device_count", VK::Unknown, PyOp::NoOp},
    {"torch.device", VK::Unknown, PyOp::NoOp},
    {"torch.no_grad", VK::Unknown, PyOp::NoOp},
    {"torch.is_tensor", VK::Unknown, PyOp::NoOp},
    {"torch.manual_seed", VK::Unknown, PyOp::NoOp},
};

// Methods, by name and receiver kind. An Unknown receiver kind in a row
// means "whatever the receiver" (the name alone says what it is).
const PyApiRow MethodRows[] = {
    {".record_event", VK::Stream, PyOp::RecordEvent, none(), arg(0, "event")},
    {".wait_event", VK::Stream, PyOp::WaitEvent, none(), arg(0, "event")},
    {".wait_stream", VK::Stream, PyOp::WaitStream, arg(0, "stream")},
    {".synchronize", VK::Stream, PyOp::Synchronize},
    {".synchronize", VK::Event, PyOp::Synchronize},
    {".record", VK::Event, PyOp::RecordEvent, arg(0, "stream")},
    {".wait", VK::Event, PyOp::WaitEvent, arg(0, "stream")},
    {".wait", VK::Work, PyOp::WaitWork},
    {".query", VK::Stream, PyOp::NoOp},
    {".query", VK::Event, PyOp::NoOp},
    {".elapsed_time", VK::Event, PyOp::NoOp},
    {".record_stream", VK::Tensor, PyOp::RecordStream, arg(0, "stream")},
    // Views: share the base's block, enqueue nothing.
    {".view", VK::Tensor, PyOp::View},
    {".view_as", VK::Tensor, PyOp::View},
    {".reshape", VK::Tensor, PyOp::View},
    {".as_strided", VK::Tensor, PyOp::View},
    {".narrow", VK::Tensor, PyOp::View},
    {".select", VK::Tensor, PyOp::View},
    {".transpose", VK::Tensor, PyOp::View},
    {".permute", VK::Tensor, PyOp::View},
    {".t", VK::Tensor, PyOp::View},
    {".expand", VK::Tensor, PyOp::View},
    {".expand_as", VK::Tensor, PyOp::View},
    {".squeeze", VK::Tensor, PyOp::View},
    {".unsqueeze", VK::Tensor, PyOp::View},
    {".flatten", VK::Tensor, PyOp::View},
    {".unflatten", VK::Tensor, PyOp::View},
    {".detach", VK::Tensor, PyOp::View},
    {".split", VK::Tensor, PyOp::View},
    {".chunk", VK::Tensor, PyOp::View},
    {".unbind", VK::Tensor, PyOp::View},
    {".diagonal", VK::Tensor, PyOp::View},
    {".untyped_storage", VK::Tensor, PyOp::View},
    // Copies to a device: a new tensor on the current stream.
    {".to", VK::Tensor, PyOp::ToDevice, arg(0, "device")},
    {".cuda", VK::Tensor, PyOp::ToDevice},
    {".clone", VK::Tensor, PyOp::TensorOp},
    {".contiguous", VK::Tensor, PyOp::TensorOp},
    // Reads that block the host until the current stream has computed them.
    {".item", VK::Tensor, PyOp::HostRead},
    {".tolist", VK::Tensor, PyOp::HostRead},
    {".cpu", VK::Tensor, PyOp::HostRead},
    {".numpy", VK::Tensor, PyOp::HostRead},
    // Page-locked copies of host tensors: host memory, not device blocks.
    {".pin_memory", VK::Unknown, PyOp::PinMemory},
    // Metadata: no work, not a tensor.
    {".size", VK::Tensor, PyOp::Metadata},
    {".dim", VK::Tensor, PyOp::Metadata},
    {".numel", VK::Tensor, PyOp::Metadata},
    {".nelement", VK::Tensor, PyOp::Metadata},
    {".stride", VK::Tensor, PyOp::Metadata},
    {".data_ptr", VK::Tensor, PyOp::Metadata},
    {".storage", VK::Tensor, PyOp::Metadata},
    // t.new_empty(shape): a new tensor with t's options; t is not read.
    {".new_empty", VK::Tensor, PyOp::FactoryLike},
    {".new_zeros", VK::Tensor, PyOp::FactoryLike},
    {".new_ones", VK::Tensor, PyOp::FactoryLike},
    {".new_full", VK::Tensor, PyOp::FactoryLike},
    {".storage_offset", VK::Tensor, PyOp::Metadata},
    {".element_size", VK::Tensor, PyOp::Metadata},
    {".is_contiguous", VK::Tensor, PyOp::Metadata},
    {".get_device", VK::Tensor, PyOp::Metadata},
    {".type", VK::Tensor, PyOp::Metadata},
    {".register_hook", VK::Tensor, PyOp::Metadata},
    {".requires_grad_", VK::Tensor, PyOp::Metadata},
    {".retain_grad", VK::Tensor, PyOp::Metadata},
};

} // namespace

const PyApiRow *classifyFunction(llvm::StringRef QualifiedName) {
  for (const PyApiRow &Row : FunctionRows)
    if (Row.Pattern == QualifiedName)
      return &Row;
  return nullptr;
}

const PyApiRow *classifyMethod(llvm::StringRef Method, ValueKind Receiver) {
  const PyApiRow *OnlyCandidate = nullptr;
  unsigned Candidates = 0;
  for (const PyApiRow &Row : MethodRows) {
    if (Row.Pattern.drop_front() != Method)
      continue;
    if (Row.Receiver == Receiver || Row.Receiver == ValueKind::Unknown)
      return &Row;
    OnlyCandidate = &Row;
    ++Candidates;
  }
  // An unknown receiver: trust the name when only one kind of receiver has
  // such a method; a tensor method on an unknown receiver is taken as a
  // tensor's (uses of non-tensors do nothing).
  if (Receiver == ValueKind::Unknown && Candidates == 1)
    return OnlyCandidate;
  return nullptr;
}

bool isTensorLibraryFunction(llvm::StringRef QualifiedName) {
  if (QualifiedName.starts_with("torch.cuda.") ||
      QualifiedName.starts_with("torch.distributed.") ||
      QualifiedName.starts_with("torch.accelerator.") ||
      QualifiedName.starts_with("torch.profiler.") ||
      QualifiedName.starts_with("torch.autograd.") ||
      QualifiedName.starts_with("torch.utils.") ||
      QualifiedName.starts_with("torch.nn.init."))
    return false;
  return QualifiedName.starts_with("torch.") &&
         QualifiedName.count('.') == 1
         ? true
         : QualifiedName.starts_with("torch.nn.functional.") ||
               QualifiedName.starts_with("torch.ops.");
}

bool isHostOnlyLibraryFunction(llvm::StringRef QualifiedName) {
  static const llvm::StringSet<> HostOnlyModules = {
      "time",     "math",     "os",       "sys",    "random", "logging",
      "warnings", "re",       "json",     "datetime", "platform", "uuid",
      "string",   "textwrap", "statistics"};
  return QualifiedName.contains('.') &&
         HostOnlyModules.count(QualifiedName.split('.').first);
}

std::optional<bool> cudaDeviceAnswer(llvm::StringRef QualifiedName) {
  // DeepSpeed's CUDA accelerator: is_synchronized_device() is False, and
  // resolves_data_dependency() returns it (only HPU's returns True).
  static const std::pair<llvm::StringLiteral, bool> Answers[] = {
      {"torch.cuda.resolves_data_dependency", false},
      {"torch.cuda.is_synchronized_device", false},
  };
  for (const auto &[Name, Answer] : Answers)
    if (QualifiedName == Name)
      return Answer;
  return std::nullopt;
}

bool allocatesOnly(const PyApiRow &Row) {
  static const llvm::StringLiteral Empty[] = {
      "torch.empty", "torch.empty_strided", "torch.empty_like", ".new_empty"};
  return llvm::is_contained(Empty, Row.Pattern);
}

unsigned apiTableSize() {
  return std::size(FunctionRows) + std::size(MethodRows);
}

} // namespace streamlife::python
