#pragma once
// glibc's malloc hands free memory at the top of its heap back to the OS once more than
// M_TRIM_THRESHOLD bytes are free there, and it sets that threshold to twice the largest
// mmap()ed block freed so far. A training step frees and re-allocates the same activations
// every step; with the small thresholds a Fathom process ends up with, every step returned
// pages to the OS and faulted them in again (bench_train tiny: ~4,000 minor page faults per
// step, against a few hundred for the same step in PyTorch's Python process, whose allocation
// history differs). keep_freed_memory() fixes both thresholds instead: blocks below 32 MiB
// (glibc's largest dynamic mmap threshold) come from the heap, and up to 1 GiB of free heap
// is kept. Then ~0 faults per step, and the tiny step a few percent faster on a loaded
// 2-core machine (docs/performance.md). The price: the resident set stays near its peak
// instead of shrinking between steps.

namespace fathom {

// Call once, early, in a process that trains; false when not glibc (nothing changed).
bool keep_freed_memory();

}  // namespace fathom
