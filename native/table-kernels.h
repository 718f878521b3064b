// Two of the model's once-per-trace loops over a whole table, for the native addon to run in
// place of the JavaScript ones: src/model/time-order.ts `mergeRuns` and src/model/nesting.ts
// `nest`, which are the reference. They run once, over every host event, when V8 has not yet
// optimised them (~4–8 ms and ~7 ms of the 169 MB trace's load); here they take ~1 ms.
// Same inputs, same results: test/table-kernels.test.ts holds them equal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kinetoscope {

// Row x strictly before row y: earlier start, or (endDesc) the same start and a later end.
inline bool before(int32_t x, int32_t y, const double* s, const double* d, bool endDesc) {
  const double sx = s[x], sy = s[y];
  if (sx != sy) return sx < sy;
  return endDesc && sx + d[x] > sy + d[y];
}

// o[bounds[k], bounds[k + 1]) are runs in order; merges them pairwise, round after round, into
// one run in order (a stable merge: at equal keys the left run's row first), as mergeRuns does.
inline void mergeRuns(int32_t* o, std::vector<int32_t> bounds, const double* s, const double* d, bool endDesc) {
  std::vector<int32_t> left;
  while (bounds.size() > 2) {
    std::vector<int32_t> next{bounds[0]};
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      if (r + 2 >= bounds.size()) {
        next.push_back(bounds[r + 1]);
        continue;
      }
      const int32_t a = bounds[r], m = bounds[r + 1], b = bounds[r + 2];
      next.push_back(b);
      // The left run moves aside; the right one stays in place until taken.
      left.assign(o + a, o + m);
      size_t i = 0;
      const size_t mEnd = left.size();
      int32_t j = m, k = a;
      while (i < mEnd && j < b) {
        if (before(o[j], left[i], s, d, endDesc)) o[k++] = o[j++];
        else o[k++] = left[i++];
      }
      while (i < mEnd) o[k++] = left[i++];
    }
    bounds.swap(next);
  }
}

struct NestCounts {
  double partial;
  double latestEndNs;
};

// Torch's nesting walk over the rows in (thread, start, end descending, row) order: each row's
// parent (−1: none), depth, first child and next sibling, which the caller has filled with −1,
// 0, −1, −1. Returns the rows that start inside the top of the stack but end after it, and the
// latest end of any row (at least 0; NaN once an end is NaN), as nest does.
inline NestCounts nest(const int32_t* order, size_t n, const int32_t* thread, const double* s, const double* d, int32_t* parent, int32_t* depth,
                       int32_t* firstChild, int32_t* nextSibling) {
  std::vector<int32_t> stack, lastChild;
  stack.reserve(64);
  lastChild.reserve(64);
  int64_t top = -1;
  int32_t currentThread = -1;
  double partial = 0, latestEndNs = 0;
  for (size_t k = 0; k < n; k++) {
    const int32_t i = order[k];
    if (thread[i] != currentThread) {
      currentThread = thread[i];
      top = -1;
    }
    const double st = s[i];
    const double e = st + d[i];
    if (e > latestEndNs || e != e) latestEndNs = e;
    while (top >= 0) {
      const int32_t p = stack[top];
      const double pEnd = s[p] + d[p];
      if (st >= pEnd || e > pEnd) {
        if (st < pEnd && e > pEnd) partial++;
        top--;
        continue;
      }
      parent[i] = p;
      depth[i] = depth[p] + 1;
      const int32_t last = lastChild[top];
      if (last == -1) firstChild[p] = i;
      else nextSibling[last] = i;
      lastChild[top] = i;
      break;
    }
    top++;
    if (static_cast<size_t>(top) == stack.size()) {
      stack.push_back(i);
      lastChild.push_back(-1);
    } else {
      stack[top] = i;
      lastChild[top] = -1;
    }
  }
  return NestCounts{partial, latestEndNs};
}

}  // namespace kinetoscope
