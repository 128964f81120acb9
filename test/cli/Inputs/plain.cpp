// Input of the CLI tests: plain C++ with nothing to report.
int add(int a, int b) { return a + b; }
