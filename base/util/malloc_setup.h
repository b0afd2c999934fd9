#pragma once
// glibc's malloc hands free memory at the top of its heap back to the OS once more than
// M_TRIM_THRESHOLD bytes are free there, and it sets that threshold to twice the largest
// mmap()ed block freed so far. A training step frees and re-allocates the same activations
// every step; with the small thresholds a Fathom process ends up with, every step returned
// pages to the OS and faulted them in again (bench_train tiny: ~4,000 minor page faults per
// step, against a few hundred for the same step in PyTorch's Python process, whose allocation
// history differs). keep_freed_memory() fixes both thresholds instead, and up to 1 GiB of free
// heap is kept. Blocks of 32 MiB and more -- glibc's largest mmap threshold, which a language
// model's logits and their gradient pass (128 x 32 tokens x 8,000 words: 131 MB) -- come from
// the heap too (M_MMAP_MAX 0): mmap()ed, each was returned to the OS when freed and faulted in
// again at the next step (lm-small: 160,000 minor faults a step, ~0 after). Measured in
// docs/performance.md: the tiny step a few percent faster, a Multi30k language model's
// training ~25 % faster. The price: the resident set stays near its peak instead of shrinking
// between steps, and the heap keeps the holes between big blocks (peak RSS +20 % there).

namespace fathom {

// Call once, early, in a process that trains; false when not glibc (nothing changed).
bool keep_freed_memory();

}  // namespace fathom
