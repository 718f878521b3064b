// The model's once-per-trace loops over a whole table, for the native addon to run in place of
// the JavaScript ones: src/model/time-order.ts `mergeRuns`, src/model/nesting.ts `nest` and
// src/model/linking.ts `firstOpByExternalId`, which are the reference. They run once, over
// every host event, before V8 has optimised them (~4–8, ~7 and ~5 ms of the 169 MB trace's
// load); here they take ~1 ms each. Same inputs, same results: test/model/table-kernels.test.ts.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// For each finite named[g]: the first row i (in row order) with kind[i] == want and
// ids[i] == named[g] (numbers compared as JavaScript's === does), else −1; −1 for the others.
inline void firstRowWithId(const uint8_t* kind, const double* ids, size_t rows, uint8_t want, const double* named, size_t n, int32_t* out) {
  // The named ids in an open-addressing table: slot → index into named of the id's first place.
  size_t cap = 16;
  while (cap < 2 * n) cap <<= 1;
  const size_t mask = cap - 1;
  std::vector<int32_t> slot(cap, -1);
  std::vector<int32_t> first(n, -1);  // per named index: the row found, for its first place only
  auto bitsOf = [](double x) {
    if (x == 0) x = 0;  // −0 === 0
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  };
  auto hashOf = [](uint64_t b) { return static_cast<size_t>((b ^ (b >> 29)) * 0x9e3779b97f4a7c15ull >> 17); };
  // The slot of x: where it is, or the free one where it goes.
  auto find = [&](double x) {
    size_t h = hashOf(bitsOf(x)) & mask;
    while (slot[h] >= 0 && named[slot[h]] != x) h = (h + 1) & mask;
    return h;
  };
  for (size_t g = 0; g < n; g++) {
    if (!std::isfinite(named[g])) continue;
    size_t h = find(named[g]);
    if (slot[h] < 0) slot[h] = static_cast<int32_t>(g);
  }
  for (size_t i = 0; i < rows; i++) {
    if (kind[i] != want || !std::isfinite(ids[i])) continue;
    size_t h = find(ids[i]);
    if (slot[h] >= 0 && first[slot[h]] < 0) first[slot[h]] = static_cast<int32_t>(i);
  }
  for (size_t g = 0; g < n; g++) out[g] = std::isfinite(named[g]) ? first[slot[find(named[g])]] : -1;
}

}  // namespace kinetoscope
