// Bytes → id, open addressing, the keys copied into one arena: the reader's mirror of the
// tokenizer's label and args tables (it holds only what the tokenizer taught it).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kinetoscope {

class ByteTable {
 public:
  ByteTable() : slots_(1 << 12) {}

  // The id of the bytes s[0, n) of hash h, or −1.
  int find(const uint8_t* s, size_t n, uint64_t h) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& sl = slots_[i];
      if (sl.id < 0) return -1;
      if (sl.hash == h && sl.len == n && std::memcmp(arena_.data() + sl.off, s, n) == 0) return sl.id;
    }
  }

  // The id of the concatenation of b[r[0], r[1]), b[r[2], r[3]), … (nr ranges, n bytes in
  // all) of hash h, or −1.
  int findRanges(const uint8_t* b, const uint32_t* r, size_t nr, size_t n, uint64_t h) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& sl = slots_[i];
      if (sl.id < 0) return -1;
      if (sl.hash != h || sl.len != n) continue;
      const char* a = arena_.data() + sl.off;
      size_t k = 0;
      for (; k < nr; k++) {
        size_t len = r[2 * k + 1] - r[2 * k];
        if (std::memcmp(a, b + r[2 * k], len) != 0) break;
        a += len;
      }
      if (k == nr) return sl.id;
    }
  }

  void insert(const uint8_t* s, size_t n, uint64_t h, int id) {
    if (id < 0 || find(s, n, h) >= 0) return;
    if ((used_ + 1) * 2 > slots_.size()) grow();
    size_t off = arena_.size();
    arena_.append(reinterpret_cast<const char*>(s), n);
    place(Slot{h, off, n, id});
    used_++;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t off = 0;
    size_t len = 0;
    int id = -1;
  };
  void place(const Slot& s) {
    size_t mask = slots_.size() - 1;
    size_t i = s.hash & mask;
    while (slots_[i].id >= 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.id >= 0) place(s);
  }
  std::vector<Slot> slots_;
  std::string arena_;
  size_t used_ = 0;
};

}  // namespace kinetoscope
