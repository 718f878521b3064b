// One event as Kineto writes it, read from its bytes alone (tokenizer.ts fastEvent and
// fastArgs, less everything that needs the tokenizer's tables): its labels as byte spans with
// their hashes, in the order they are written; its numbers; the args members its args mode
// keeps, with their hash. Making the row from a record (label and args ids, the time origin) is
// the reader's part (fast-events.cc). Reading a record needs no state but the known args keys
// and the args policy, so it runs on any thread: records of the next chunks are read on a
// thread of their own while the tokenizer reads this one.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "json-scan.h"

namespace kinetoscope {

constexpr int ARG_NUMBERS = 11;  // event-columns.ts ARG_NUMBER_KEYS
constexpr int EXT_LOWER_SLOT = ARG_NUMBERS;
constexpr int AN_EXTERNAL_ID = 0;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Event keys (tokenizer.ts K_*).
enum Key : uint8_t { K_OTHER, K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ID, K_BP, K_S, K_ARGS };

inline uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x;
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

inline uint64_t load8(const uint8_t* s) {
  uint64_t x;
  std::memcpy(&x, s, 8);
  return x;
}
inline uint32_t load4(const uint8_t* s) {
  uint32_t x;
  std::memcpy(&x, s, 4);
  return x;
}

// Two independent lanes of 8 bytes: the multiplies of one step do not wait for each other. The
// last bytes are read as words overlapping the ones before, not one by one.
inline uint64_t hashBytes(const uint8_t* s, size_t n) {
  uint64_t a = 0x2545f4914f6cdd1dULL ^ n;
  uint64_t b = 0x9e3779b97f4a7c15ULL;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a = (a ^ load8(s + i)) * 0xff51afd7ed558ccdULL;
    b = (b ^ load8(s + i + 8)) * 0xc4ceb9fe1a85ec53ULL;
    a ^= a >> 32;
    b ^= b >> 29;
  }
  uint64_t x, y;
  size_t rest = n - i;
  if (rest > 8) {
    x = load8(s + i);
    y = load8(s + n - 8);
  } else if (n >= 8) {
    x = load8(s + n - 8);
    y = 0;
  } else if (n >= 4) {
    x = load4(s);
    y = load4(s + n - 4);
  } else {
    x = n > 0 ? (static_cast<uint64_t>(s[0]) << 16) | (static_cast<uint64_t>(s[n / 2]) << 8) | s[n - 1] : 0;
    y = 0;
  }
  return mix(mix(a, x) ^ b, y);
}

// Whether the first and the last sizeof(W) bytes of a and b agree (sizeof(W) ≤ n): for
// n ≤ 2 · sizeof(W), whether all n do.
template <typename W>
inline bool sameEnds(const char* a, const uint8_t* b, size_t n) {
  W x0, y0, x1, y1;
  std::memcpy(&x0, a, sizeof(W));
  std::memcpy(&y0, b, sizeof(W));
  std::memcpy(&x1, a + n - sizeof(W), sizeof(W));
  std::memcpy(&y1, b + n - sizeof(W), sizeof(W));
  return ((x0 ^ y0) | (x1 ^ y1)) == 0;
}

// Whether a[0, n) and b[0, n) are equal. Args keys are mostly short (`External id`, `stream`):
// compared as two overlapping words, without a call to memcmp.
inline bool sameBytes(const char* a, const uint8_t* b, size_t n) {
  if (n > 16) return std::memcmp(a, b, n) == 0;
  if (n >= 8) return sameEnds<uint64_t>(a, b, n);
  if (n >= 4) return sameEnds<uint32_t>(a, b, n);
  for (size_t i = 0; i < n; i++)
    if (static_cast<uint8_t>(a[i]) != b[i]) return false;
  return true;
}

// The args keys compared by their bytes (InternContext.knownKeys) and each one's argNumbers slot.
class KnownKeys {
 public:
  std::vector<std::string> keys;
  std::vector<int> slot;

  void index() {
    std::memset(byLengthAndFirst_, -1, sizeof byLengthAndFirst_);
    for (size_t k = 0; k < keys.size(); k++) {
      size_t n = keys[k].size();
      if (n >= 64) continue;
      int8_t& at = byLengthAndFirst_[(n << 8) | (n > 0 ? static_cast<uint8_t>(keys[k][0]) : QUOTE)];
      at = at == -1 ? static_cast<int8_t>(k) : -2;
    }
  }

  // The known key k[0, n), or −1 (InternContext.knownKey): by its length and first byte.
  int find(const uint8_t* k, size_t n) const {
    if (n < 64) {
      int i = byLengthAndFirst_[(n << 8) | (n > 0 ? k[0] : QUOTE)];
      if (i == -1) return -1;
      if (i >= 0) return sameBytes(keys[i].data(), k, n) ? i : -1;
    }
    for (size_t i = 0; i < keys.size(); i++)
      if (keys[i].size() == n && std::memcmp(keys[i].data(), k, n) == 0) return static_cast<int>(i);
    return -1;
  }

 private:
  // [length · 256 + first byte] → the key's index, −1 none, −2 several.
  int8_t byLengthAndFirst_[64 * 256];
};

constexpr int MODE_SKIP = -1;

// What the reader is told once: the known args keys, and the args policy (InternContext:
// which args members each kind of event keeps).
struct ReadConfig {
  KnownKeys known;
  std::vector<uint32_t> dropMask;  // per args mode: the known keys it drops
  // Complete (`X`) events by `cat`, other phases by `ph`: the args mode (InternContext.modeOf).
  std::vector<std::pair<std::string, int>> completeModes, phaseModes;
  int completeDefault = MODE_SKIP, phaseDefault = MODE_SKIP;

  static int lookup(const std::vector<std::pair<std::string, int>>& table, const uint8_t* s, size_t n, int dflt) {
    for (const auto& [key, mode] : table)
      if (key.size() == n && std::memcmp(key.data(), s, n) == 0) return mode;
    return dflt;
  }
  // The args mode of an event of these plain ph and cat label bytes.
  int modeOf(const uint8_t* ph, size_t phLen, const uint8_t* cat, size_t catLen) const {
    if (phLen == 1 && ph[0] == 'X') return lookup(completeModes, cat, catLen, completeDefault);
    return lookup(phaseModes, ph, phLen, phaseDefault);
  }
};

struct LabelRef {
  Key key;
  uint32_t start;  // after the opening quote
  uint32_t len;
  uint64_t hash;
};

struct EventRecord {
  int64_t start = 0;
  int64_t end = -1;  // just after the `}`; −1: the fast path does not take this event
  uint8_t nLabels = 0;
  bool hasPid = false, hasTid = false, hasId = false, hasTs = false, hasDur = false, hasArgs = false;
  LabelRef labels[5];  // ph cat name bp s, in the order written (each at most once)
  double pid = kNaN, tid = kNaN, flowId = kNaN, durNs = kNaN;
  TimeText ts{};
  double an[ARG_NUMBERS];
  int phLabel = -1, catLabel = -1;  // index into labels
  // The args members the mode keeps (interned by their bytes): their ranges at kept[keptOff …],
  // two per member, their length and the hash of their bytes.
  int mode = MODE_SKIP;
  uint32_t keptOff = 0, keptCount = 0, argsLen = 0;
  uint64_t argsHash = 0;
};

inline int eventKeyCode(const uint8_t* k, int64_t len) {
  switch (len) {
    case 1:
      return k[0] == 's' ? K_S : K_OTHER;
    case 2:
      if (k[0] == 'p' && k[1] == 'h') return K_PH;
      if (k[0] == 't' && k[1] == 's') return K_TS;
      if (k[0] == 'i' && k[1] == 'd') return K_ID;
      if (k[0] == 'b' && k[1] == 'p') return K_BP;
      return K_OTHER;
    case 3:
      if (k[1] == 'i' && k[2] == 'd') {
        if (k[0] == 'p') return K_PID;
        if (k[0] == 't') return K_TID;
        return K_OTHER;
      }
      if (k[0] == 'c' && k[1] == 'a' && k[2] == 't') return K_CAT;
      if (k[0] == 'd' && k[1] == 'u' && k[2] == 'r') return K_DUR;
      return K_OTHER;
    case 4:
      if (std::memcmp(k, "name", 4) == 0) return K_NAME;
      if (std::memcmp(k, "args", 4) == 0) return K_ARGS;
      return K_OTHER;
    default:
      return K_OTHER;
  }
}

// The eight bytes at a key's opening quote, little-endian, masked to the pattern's length: a
// key Kineto writes, with its closing quote and colon. Sets *kc and returns the pattern's length
// (the colon included), or 0.
constexpr uint64_t keyWord(const char* t, int n) {
  uint64_t x = 0;
  for (int i = n - 1; i >= 0; i--) x = (x << 8) | static_cast<uint8_t>(t[i]);
  return x;
}
constexpr uint64_t lowBytes(int n) { return n >= 8 ? ~0ULL : (1ULL << (8 * n)) - 1; }
inline int quotedEventKey(uint64_t w, int* kc) {
  struct Pat { uint64_t word, mask; int len, key; };
  static constexpr Pat pats[] = {
      {keyWord("\"ph\":", 5), lowBytes(5), 5, K_PH},     {keyWord("\"cat\":", 6), lowBytes(6), 6, K_CAT},
      {keyWord("\"name\":", 7), lowBytes(7), 7, K_NAME}, {keyWord("\"pid\":", 6), lowBytes(6), 6, K_PID},
      {keyWord("\"tid\":", 6), lowBytes(6), 6, K_TID},   {keyWord("\"ts\":", 5), lowBytes(5), 5, K_TS},
      {keyWord("\"dur\":", 6), lowBytes(6), 6, K_DUR},   {keyWord("\"args\":", 7), lowBytes(7), 7, K_ARGS},
  };
  for (const Pat& t : pats)
    if ((w & t.mask) == t.word) {
      *kc = t.key;
      return t.len;
    }
  return 0;
}

// fastArgs, less the interning: the args object at p into r (numbers, kept members).
inline int64_t scanArgs(const JsonScan& s, const ReadConfig& cfg, int64_t p, EventRecord& r, std::vector<uint32_t>& kept) {
  const uint8_t* b = s.b;
  const int64_t end = s.end;
  const bool keyed = r.mode >= 0;
  const uint32_t drop = keyed ? cfg.dropMask[r.mode] : 0;
  uint64_t h = 0x51ed270b2f6cd4a3ULL;
  uint32_t total = 0;
  double extLower = kNaN;
  bool extUpperSet = false;
  p = s.skipWs(p + 1);
  if (p >= end) return -1;
  if (b[p] == RBRACE) {
    p++;
  } else {
    for (;;) {
      if (b[p] != QUOTE) return -1;
      int64_t ms = p;
      int64_t ks = p + 1;
      int64_t q = s.scanPlain(ks);
      if (q >= end || b[q] != QUOTE) return -1;
      int kc = cfg.known.find(b + ks, static_cast<size_t>(q - ks));
      p = s.skipWs(q + 1);
      if (p >= end || b[p] != COLON) return -1;
      p = s.skipWs(p + 1);
      if (p >= end) return -1;
      int slot = kc >= 0 ? cfg.known.slot[kc] : -1;
      if (slot >= 0) {
        double v;
        if (!s.plainInt(p, &v, &p)) return -1;
        if (slot == EXT_LOWER_SLOT) {
          extLower = v;
        } else {
          r.an[slot] = v;
          if (slot == AN_EXTERNAL_ID) extUpperSet = true;
        }
      } else {
        p = s.skipPlain(p);
        if (p < 0) return -1;
      }
      if (keyed && (kc < 0 || (drop & (1u << kc)) == 0)) {
        kept.push_back(static_cast<uint32_t>(ms));
        kept.push_back(static_cast<uint32_t>(p));
        total += static_cast<uint32_t>(p - ms);
        h = mix(h, hashBytes(b + ms, static_cast<size_t>(p - ms)));
      }
      p = s.skipWs(p);
      if (p >= end) return -1;
      uint8_t d = b[p];
      if (d == COMMA) {
        p = s.skipWs(p + 1);
        if (p >= end) return -1;
        if (b[p] == RBRACE) {  // trailing comma: tolerated
          p++;
          break;
        }
        continue;
      }
      if (d == RBRACE) {
        p++;
        break;
      }
      return -1;
    }
  }
  if (!extUpperSet) r.an[AN_EXTERNAL_ID] = extLower;
  r.argsLen = total;
  r.argsHash = mix(h, total);
  return p;
}

// fastEvent, less the interning: the event at start into r (kept args ranges appended); the
// position after its `}`, or −1 (ranges rolled back) where the fast path gives up.
inline int64_t scanEvent(const JsonScan& s, const ReadConfig& cfg, int64_t start, EventRecord& r, std::vector<uint32_t>& kept) {
  const uint8_t* b = s.b;
  const int64_t end = s.end;
  // Field by field: the labels array needs no clearing, and a whole new record is a copy of
  // 300 bytes per event.
  r.start = start;
  r.end = -1;
  r.nLabels = 0;
  r.hasPid = r.hasTid = r.hasId = r.hasTs = r.hasDur = r.hasArgs = false;
  r.pid = r.tid = r.flowId = r.durNs = kNaN;
  r.phLabel = r.catLabel = -1;
  r.mode = MODE_SKIP;
  r.keptOff = static_cast<uint32_t>(kept.size());
  r.keptCount = r.argsLen = 0;
  r.argsHash = 0;
  for (int k = 0; k < ARG_NUMBERS; k++) r.an[k] = kNaN;
  uint32_t seen = 0;  // bit per label key
  int64_t p = s.skipWs(start + 1);
  if (p >= end) return -1;
  for (;;) {
    if (b[p] != QUOTE) break;
    int kc;
    // Kineto writes each key right before its colon: `"ph":`, `"cat":` …, recognised from the
    // word at the quote; anything else is read byte by byte.
    int known = p + 8 <= end ? quotedEventKey(load8(b + p), &kc) : 0;
    if (known > 0) {
      p = s.skipWs(p + known);
    } else {
      int64_t ks = p + 1;
      int64_t q = s.scanPlain(ks);
      if (q >= end || b[q] != QUOTE) break;
      kc = eventKeyCode(b + ks, q - ks);
      p = s.skipWs(q + 1);
      if (p >= end || b[p] != COLON) break;
      p = s.skipWs(p + 1);
    }
    if (p >= end) break;
    uint8_t c = b[p];
    switch (kc) {
      case K_PH:
      case K_CAT:
      case K_NAME:
      case K_BP:
      case K_S: {
        // A repeated label key is interned twice by the JavaScript reader: left to it.
        if (c != QUOTE || (seen & (1u << kc))) return kept.resize(r.keptOff), -1;
        seen |= 1u << kc;
        int64_t ls = p + 1;
        int64_t le = s.scanPlain(ls);
        if (le >= end || b[le] != QUOTE) return kept.resize(r.keptOff), -1;
        if (kc == K_PH) r.phLabel = r.nLabels;
        if (kc == K_CAT) r.catLabel = r.nLabels;
        size_t n = static_cast<size_t>(le - ls);
        r.labels[r.nLabels++] = LabelRef{static_cast<Key>(kc), static_cast<uint32_t>(ls), static_cast<uint32_t>(n), hashBytes(b + ls, n)};
        p = le + 1;
        break;
      }
      case K_PID:
      case K_TID:
      case K_ID: {
        double v;
        if (!s.plainInt(p, &v, &p)) return kept.resize(r.keptOff), -1;
        if (kc == K_PID) {
          r.pid = v;
          r.hasPid = true;
        } else if (kc == K_TID) {
          r.tid = v;
          r.hasTid = true;
        } else {
          r.flowId = v;
          r.hasId = true;
        }
        break;
      }
      case K_TS: {
        if (!s.plainTime(p, &r.ts, &p)) return kept.resize(r.keptOff), -1;
        r.hasTs = true;
        break;
      }
      case K_DUR: {
        TimeText t;
        if (!s.plainTime(p, &t, &p)) return kept.resize(r.keptOff), -1;
        r.durNs = t.durNs();
        r.hasDur = true;
        break;
      }
      case K_ARGS: {
        // The args mode is known when ph (and, for X events, cat) came first, as Kineto writes them.
        if (c != LBRACE || r.hasArgs || r.phLabel < 0) return kept.resize(r.keptOff), -1;
        const LabelRef& ph = r.labels[r.phLabel];
        if (r.catLabel < 0 && ph.len == 1 && b[ph.start] == 'X') return kept.resize(r.keptOff), -1;
        const uint8_t* cat = r.catLabel >= 0 ? b + r.labels[r.catLabel].start : b;
        r.mode = cfg.modeOf(b + ph.start, ph.len, cat, r.catLabel >= 0 ? r.labels[r.catLabel].len : 0);
        p = scanArgs(s, cfg, p, r, kept);
        if (p < 0) return kept.resize(r.keptOff), -1;
        r.hasArgs = true;
        break;
      }
      default:
        p = s.skipPlain(p);
        if (p < 0) return kept.resize(r.keptOff), -1;
    }
    p = s.skipWs(p);
    if (p >= end) break;
    uint8_t d = b[p];
    if (d == COMMA) {
      p = s.skipWs(p + 1);
      if (p >= end) break;
      if (b[p] == RBRACE) {  // trailing comma: tolerated
        r.end = p + 1;
        break;
      }
      continue;
    }
    if (d == RBRACE) r.end = p + 1;
    break;
  }
  if (r.end < 0) {
    kept.resize(r.keptOff);
    return -1;
  }
  r.keptCount = static_cast<uint32_t>(kept.size() - r.keptOff) / 2;
  return r.end;
}

}  // namespace kinetoscope
