// A table of our own for row-mutants.test: two C++ rows, two Python rows and
// lines that are not rows.
void Model::addRows() {
  add("cudaKept", use(0, -1, 1));
  add("cudaSpare", use(0, -1, 1)); // no test reads it
  add(Name, Computed);             // not a literal row: never deleted
}
const PyApiRow Rows[] = {
    {"torch.kept", VK::Unknown, PyOp::Factory},
    {".spare", VK::Tensor, PyOp::View},
};
