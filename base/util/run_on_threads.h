#pragma once
// A fan-out without a pool: work(0) on the calling thread, work(1) .. work(threads - 1) on
// threads of their own, all joined before it returns. A throw on any of them reaches the caller
// (the first, by thread number), where a throw on a bare std::thread would end the process.
#include <functional>

namespace fathom {

void run_on_threads(int threads, const std::function<void(int)>& work);

}  // namespace fathom
