// The tokenizer's fast path in native code: events as Kineto writes them, straight from the
// bytes into a column batch (src/ingest/tokenizer.ts, fastEvent and fastArgs, is the reference
// and the only source of meaning).
//
// The JavaScript tokenizer stays the one reader of the grammar: this code only replays what it
// has been taught. Every label, args object and args mode it has not been told the id of is
// handed back as a question (status NEED_*), the tokenizer answers it with its own tables, and
// the event is read again. Everything else the fast path does not take — an escape, a non-ASCII
// byte, a bare word, a first ts before the time origin is known, a syntax error, the end of the
// buffer — stops at the event's `{` (status AT_EVENT), and the JavaScript tokenizer reads that
// event itself, with its repairs and diagnostics. So the rows written here are the rows the
// JavaScript fast path would write, bit for bit; test/native-events.test.ts checks that.
//
// Why native: the JavaScript fast path visits every byte of the text in a JIT-compiled loop,
// about 0.5 GB/s on this project's machine, and V8 spends much of a one-shot CLI run compiling
// it. Here the strings (most of the bytes) are scanned 16 bytes at a time.

#include <node_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace {

constexpr uint8_t QUOTE = 0x22, COMMA = 0x2c, COLON = 0x3a, LBRACE = 0x7b, RBRACE = 0x7d, LBRACKET = 0x5b,
                  RBRACKET = 0x5d, MINUS = 0x2d, PLUS = 0x2b, DOT = 0x2e, BACKSLASH = 0x5c;

// Byte classes, as json-bytes.ts and tokenizer.ts define them.
struct ByteClasses {
  uint8_t ws[256] = {};
  uint8_t plain[256] = {};  // printable ASCII but `"` and `\`
  uint8_t bare[256] = {};   // bytes a bare word is made of
  ByteClasses() {
    ws[0x20] = ws[0x0a] = ws[0x0d] = ws[0x09] = 1;
    for (int c = 0x20; c < 0x80; c++) plain[c] = (c == QUOTE || c == BACKSLASH) ? 0 : 1;
    for (int c = 0x41; c <= 0x5a; c++) bare[c] = 1;
    for (int c = 0x61; c <= 0x7a; c++) bare[c] = 1;
    for (int c = 0x30; c <= 0x39; c++) bare[c] = 1;
    bare[0x2f] = 1;
    bare[0x5f] = 1;
  }
};
const ByteClasses BC;

// Event keys (tokenizer.ts K_*).
enum Key { K_OTHER, K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ID, K_BP, K_S, K_ARGS };

// What a run ended on (mirrored in src/ingest/native-events.ts).
enum Status {
  ST_STOPPED = 0,   // after an event not followed by `,` `{`: the tokenizer goes on from io.pos
  ST_AT_EVENT = 1,  // at the `{` of an event the tokenizer reads itself
  ST_FULL = 2,      // the batch is full; flush, then run again from io.pos
  ST_NEED_LABEL = 3,  // the id of the plain label at [io.a, io.b)
  ST_NEED_ARGS = 4,   // the id of the kept args members in ranges[0, 2·io.a)
  ST_NEED_MODE = 5,   // the args mode of ph label io.a, cat label io.b
};

// io slots (Float64Array shared with the tokenizer).
enum Io { IO_COUNT, IO_POS, IO_LAST_END, IO_A, IO_B, IO_SIZE };

constexpr int MODE_SKIP = -1;
constexpr int ARG_NUMBERS = 9;
constexpr int EXT_LOWER_SLOT = ARG_NUMBERS;
constexpr int AN_EXTERNAL_ID = 0;
constexpr double MAX_SAFE = 9007199254740992.0;
constexpr double kNaN = __builtin_nan("");

inline uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x;
  h *= 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

uint64_t hashBytes(const uint8_t* s, size_t n) {
  uint64_t h = 0x2545f4914f6cdd1dULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    std::memcpy(&x, s + i, 8);
    h = mix(h, x);
  }
  uint64_t x = 0;
  std::memcpy(&x, s + i, n - i);
  return mix(h, x);
}

// Bytes → id, open addressing; the keys are copied into one arena.
class ByteTable {
 public:
  ByteTable() : slots_(1 << 12) {}

  int find(const uint8_t* s, size_t n, uint64_t h) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& sl = slots_[i];
      if (sl.id < 0) return -1;
      if (sl.hash == h && sl.len == n && std::memcmp(arena_.data() + sl.off, s, n) == 0) return sl.id;
    }
  }

  void insert(const uint8_t* s, size_t n, uint64_t h, int id) {
    if (find(s, n, h) >= 0) return;
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

// The columns of the batch being written (views into one ArrayBuffer, see ColumnBatchWriter).
struct Columns {
  int32_t *ph = nullptr, *cat = nullptr, *name = nullptr, *pidLabel = nullptr, *tidLabel = nullptr,
          *flowIdLabel = nullptr, *bp = nullptr, *s = nullptr, *args = nullptr;
  double *pid = nullptr, *tid = nullptr, *tsNs = nullptr, *durNs = nullptr, *flowId = nullptr,
         *argNumbers = nullptr, *offsets = nullptr;
};

class EventReader {
 public:
  // Taught once: the known args keys (their bytes), each one's argNumbers slot (or −1), and
  // each args mode's mask of dropped known keys.
  std::vector<std::string> knownKeys;
  std::vector<int> keySlot;
  std::vector<uint32_t> dropMask;
  Columns col;
  double* io = nullptr;
  int32_t* ranges = nullptr;
  size_t rangesCap = 0;

  ByteTable labels;
  ByteTable argsTable;
  std::vector<int> labelIsX;  // by label id: 1 when the label is "X"
  std::vector<std::vector<int>> modes;  // [ph][cat] → mode + 2, 0 unknown

  // The args of the last NEED_ARGS, kept for addArgs.
  std::string pendingArgs;
  uint64_t pendingHash = 0;

  void addLabel(const uint8_t* s, size_t n, int id) {
    labels.insert(s, n, hashBytes(s, n), id);
    if (id >= 0) {
      if (static_cast<size_t>(id) >= labelIsX.size()) labelIsX.resize(id + 1, 0);
      labelIsX[id] = (n == 1 && s[0] == 'X') ? 1 : 0;
    }
  }
  void addArgs(int id) { argsTable.insert(reinterpret_cast<const uint8_t*>(pendingArgs.data()), pendingArgs.size(), pendingHash, id); }
  void setMode(int ph, int cat, int mode) {
    if (static_cast<size_t>(ph) >= modes.size()) modes.resize(ph + 1);
    std::vector<int>& row = modes[ph];
    if (static_cast<size_t>(cat) >= row.size()) row.resize(cat + 1, 0);
    row[cat] = mode + 2;
  }

  // Events from the `{` at p (local to b[0, end)) into rows n, n + 1, … < cap.
  int run(const uint8_t* b, int64_t p, int64_t end, int n, int cap, double base, bool hasOrigin, double origin) {
    b_ = b;
    end_ = end;
    hasOrigin_ = hasOrigin;
    origin_ = origin;
    int count = 0;
    int status;
    double lastEnd = -1;
    for (;;) {
      if (n >= cap) {
        status = ST_FULL;
        break;
      }
      int64_t r = event(p, n);
      if (r < 0) {
        status = static_cast<int>(-r);
        break;
      }
      if (col.offsets != nullptr) {
        col.offsets[2 * n] = base + static_cast<double>(p);
        col.offsets[2 * n + 1] = base + static_cast<double>(r);
      }
      n++;
      count++;
      lastEnd = static_cast<double>(r);
      int64_t q = skipWs(r);
      if (q >= end || b[q] != COMMA) {
        p = r;
        status = ST_STOPPED;
        break;
      }
      q = skipWs(q + 1);
      if (q >= end || b[q] != LBRACE) {
        p = r;
        status = ST_STOPPED;
        break;
      }
      p = q;
    }
    io[IO_COUNT] = count;
    io[IO_POS] = static_cast<double>(p);
    io[IO_LAST_END] = lastEnd;
    return status;
  }

 private:
  const uint8_t* b_ = nullptr;
  int64_t end_ = 0;
  bool hasOrigin_ = false;
  double origin_ = 0;
  int64_t numEnd_ = 0;

  // A −status for event(): stop there.
  static constexpr int64_t stop(Status s) { return -static_cast<int64_t>(s); }

  int64_t skipWs(int64_t p) const {
    while (p < end_ && BC.ws[b_[p]]) p++;
    return p;
  }

  // The first byte at or after p that is not PLAIN (or end).
  int64_t scanPlain(int64_t p) const {
    const uint8_t* b = b_;
    const int64_t end = end_;
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8(static_cast<char>(QUOTE));
    const __m128i bs = _mm_set1_epi8(static_cast<char>(BACKSLASH));
    const __m128i lo = _mm_set1_epi8(0x20);
    while (p + 16 <= end) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + p));
      // Signed compare: bytes from 0x80 are negative, so below 0x20 too.
      __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)), _mm_cmplt_epi8(x, lo));
      int m = _mm_movemask_epi8(bad);
      if (m != 0) return p + __builtin_ctz(static_cast<unsigned>(m));
      p += 16;
    }
#endif
    while (p < end && BC.plain[b[p]]) p++;
    return p;
  }

  // A plain string's label id: the string at p (its opening quote). Returns the position after
  // the closing quote, or a stop.
  int64_t label(int64_t p, int* id) {
    int64_t s = p + 1;
    int64_t e = scanPlain(s);
    if (e >= end_ || b_[e] != QUOTE) return stop(ST_AT_EVENT);
    if (e == s) {
      *id = 0;
      return e + 1;
    }
    size_t n = static_cast<size_t>(e - s);
    int found = labels.find(b_ + s, n, hashBytes(b_ + s, n));
    if (found < 0) {
      io[IO_A] = static_cast<double>(s);
      io[IO_B] = static_cast<double>(e);
      return stop(ST_NEED_LABEL);
    }
    *id = found;
    return e + 1;
  }

  // tokenizer.ts plainInt: an integer of at most 15 digits, not followed by `.`/`e`/`E`.
  double plainInt(int64_t p) {
    const uint8_t* b = b_;
    bool neg = b[p] == MINUS;
    int64_t e = neg ? p + 1 : p;
    int64_t ds = e;
    double acc = 0;
    while (e < end_) {
      int d = static_cast<int>(b[e]) - 48;
      if (d < 0 || d > 9) break;
      acc = acc * 10 + d;
      e++;
    }
    int64_t nd = e - ds;
    if (nd == 0 || nd > 15 || e >= end_) return kNaN;
    uint8_t t = b[e];
    if (t == DOT || t == 0x65 || t == 0x45) return kNaN;
    numEnd_ = e;
    return neg ? -acc : acc;
  }

  // tokenizer.ts plainTime: decimal µs → exact integer ns, ts relative to the time origin.
  double plainTime(int64_t p, bool isTs) {
    static const int NS_PER_DIGIT[3] = {100, 10, 1};
    const uint8_t* b = b_;
    bool neg = b[p] == MINUS;
    int64_t e = neg ? p + 1 : p;
    int64_t ds = e;
    double acc = 0;
    int d = 0;
    while (e < end_ && (d = static_cast<int>(b[e]) - 48) >= 0 && d <= 9) {
      acc = acc * 10 + d;
      e++;
    }
    if (e == ds) return kNaN;
    double frac = 0;
    if (e < end_ && b[e] == DOT) {
      int64_t fs = ++e;
      while (e < end_ && (d = static_cast<int>(b[e]) - 48) >= 0 && d <= 9) {
        int64_t k = e++ - fs;
        if (k < 3) frac += d * NS_PER_DIGIT[k];
        else if (k == 3 && d >= 5) frac++;
      }
    }
    if (e >= end_) return kNaN;
    uint8_t x = b[e];
    if (x == 0x65 || x == 0x45 || acc >= MAX_SAFE) return kNaN;
    double us = neg ? -acc : acc;
    double r;
    if (isTs) {
      // The origin is set by the tokenizer's own first ts (it bails here before).
      if (!hasOrigin_) return kNaN;
      r = (us - origin_) * 1000 + (neg ? -frac : frac);
    } else {
      r = neg ? -(acc * 1000 + frac) : acc * 1000 + frac;
    }
    numEnd_ = e;
    return r == 0 ? 0 : r;
  }

  // A plain key string at p then `:` (skipPlain's plainKey): the value's position, or −1.
  int64_t plainKey(int64_t p) const {
    if (b_[p] != QUOTE) return -1;
    p = scanPlain(p + 1);
    if (p >= end_ || b_[p] != QUOTE) return -1;
    p = skipWs(p + 1);
    if (p >= end_ || b_[p] != COLON) return -1;
    return skipWs(p + 1);
  }

  // tokenizer.ts skipPlain: a value of plain strings, numbers, true/false/null, arrays and
  // objects up to 30 deep; the position after it, or −1.
  int64_t skipPlain(int64_t p) const {
    const uint8_t* b = b_;
    const int64_t end = end_;
    int depth = 0;
    uint32_t objects = 0;
    uint8_t c = 0;
    for (;;) {
      // A value at p.
      if (p >= end) return -1;
      c = b[p];
      if (c == QUOTE) {
        p = scanPlain(p + 1);
        if (p >= end || b[p] != QUOTE) return -1;
        p++;
      } else if ((c >= 48 && c <= 57) || c == MINUS) {
        if (c == MINUS) p++;
        int64_t ds = p;
        while (p < end && b[p] >= 48 && b[p] <= 57) p++;
        if (p == ds || p >= end) return -1;
        c = b[p];
        if (c == DOT) {
          p++;
          while (p < end && b[p] >= 48 && b[p] <= 57) p++;
          if (p >= end) return -1;
          c = b[p];
        }
        if (c == 0x65 || c == 0x45) {
          p++;
          if (p < end && (b[p] == PLUS || b[p] == MINUS)) p++;
          int64_t es = p;
          while (p < end && b[p] >= 48 && b[p] <= 57) p++;
          if (p == es || p >= end) return -1;
        }
      } else if (c == LBRACKET || c == LBRACE) {
        if (depth == 30) return -1;
        depth++;
        objects = c == LBRACE ? (objects << 1) | 1 : objects << 1;
        p = skipWs(p + 1);
        if (p >= end) return -1;
        c = b[p];
        if (c == ((objects & 1) ? RBRACE : RBRACKET)) {
          p++;
          depth--;
          objects >>= 1;
        } else {
          if (objects & 1) {
            p = plainKey(p);
            if (p < 0) return -1;
          }
          continue;
        }
      } else {
        int n = c == 0x66 ? 5 : 4;
        if (p + n >= end || BC.bare[b[p + n]]) return -1;
        if (c == 0x6e) {
          if (b[p + 1] != 0x75 || b[p + 2] != 0x6c || b[p + 3] != 0x6c) return -1;
        } else if (c == 0x74) {
          if (b[p + 1] != 0x72 || b[p + 2] != 0x75 || b[p + 3] != 0x65) return -1;
        } else if (c == 0x66) {
          if (b[p + 1] != 0x61 || b[p + 2] != 0x6c || b[p + 3] != 0x73 || b[p + 4] != 0x65) return -1;
        } else {
          return -1;
        }
        p += n;
      }
      // After a value: close levels, or a comma and the next element.
      bool next = false;
      while (!next) {
        if (depth == 0) return p;
        p = skipWs(p);
        if (p >= end) return -1;
        c = b[p];
        uint8_t close = (objects & 1) ? RBRACE : RBRACKET;
        if (c == close) {
          p++;
          depth--;
          objects >>= 1;
          continue;
        }
        if (c != COMMA) return -1;
        p = skipWs(p + 1);
        if (p >= end) return -1;
        if (b[p] == close) {
          p++;
          depth--;
          objects >>= 1;
          continue;
        }
        if (objects & 1) {
          p = plainKey(p);
          if (p < 0) return -1;
        }
        next = true;
      }
    }
  }

  static int eventKeyCode(const uint8_t* k, int64_t len) {
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

  // The known key b[s, e), or −1 (InternContext.knownKey).
  int knownKey(int64_t s, int64_t e) const {
    size_t n = static_cast<size_t>(e - s);
    for (size_t k = 0; k < knownKeys.size(); k++) {
      const std::string& kb = knownKeys[k];
      if (kb.size() == n && std::memcmp(kb.data(), b_ + s, n) == 0) return static_cast<int>(k);
    }
    return -1;
  }

  // tokenizer.ts fastEvent: the event at start into row n; the position after its `}` or a stop.
  int64_t event(int64_t start, int n) {
    const uint8_t* b = b_;
    const int64_t end = end_;
    Columns& w = col;
    w.ph[n] = 0;
    w.cat[n] = 0;
    w.name[n] = 0;
    w.pid[n] = kNaN;
    w.pidLabel[n] = 0;
    w.tid[n] = kNaN;
    w.tidLabel[n] = 0;
    w.tsNs[n] = kNaN;
    w.durNs[n] = kNaN;
    w.flowId[n] = kNaN;
    w.flowIdLabel[n] = -1;
    w.bp[n] = -1;
    w.s[n] = -1;
    w.args[n] = -1;
    double* an = w.argNumbers + static_cast<int64_t>(n) * ARG_NUMBERS;
    for (int k = 0; k < ARG_NUMBERS; k++) an[k] = kNaN;
    int ph = 0, cat = 0;
    bool phSeen = false, catSeen = false, argsSeen = false;
    int64_t p = skipWs(start + 1);
    if (p >= end) return stop(ST_AT_EVENT);
    for (;;) {
      if (b[p] != QUOTE) return stop(ST_AT_EVENT);
      int64_t ks = p + 1;
      int64_t q = scanPlain(ks);
      if (q >= end || b[q] != QUOTE) return stop(ST_AT_EVENT);
      int kc = eventKeyCode(b + ks, q - ks);
      p = skipWs(q + 1);
      if (p >= end || b[p] != COLON) return stop(ST_AT_EVENT);
      p = skipWs(p + 1);
      if (p >= end) return stop(ST_AT_EVENT);
      uint8_t c = b[p];
      switch (kc) {
        case K_PH:
        case K_CAT:
        case K_NAME:
        case K_BP:
        case K_S: {
          if (c != QUOTE) return stop(ST_AT_EVENT);
          int id = 0;
          int64_t r = label(p, &id);
          if (r < 0) return r;
          p = r;
          if (kc == K_PH) {
            ph = id;
            phSeen = true;
            w.ph[n] = id;
          } else if (kc == K_CAT) {
            cat = id;
            catSeen = true;
            w.cat[n] = id;
          } else if (kc == K_NAME) {
            w.name[n] = id;
          } else if (kc == K_BP) {
            w.bp[n] = id;
          } else {
            w.s[n] = id;
          }
          break;
        }
        case K_PID:
        case K_TID:
        case K_ID: {
          double v = plainInt(p);
          if (v != v) return stop(ST_AT_EVENT);
          p = numEnd_;
          if (kc == K_PID) {
            w.pid[n] = v;
            w.pidLabel[n] = -1;
          } else if (kc == K_TID) {
            w.tid[n] = v;
            w.tidLabel[n] = -1;
          } else {
            w.flowId[n] = v;
            w.flowIdLabel[n] = -1;
          }
          break;
        }
        case K_TS:
        case K_DUR: {
          double v = plainTime(p, kc == K_TS);
          if (v != v) return stop(ST_AT_EVENT);
          if (kc == K_TS) w.tsNs[n] = v;
          else w.durNs[n] = v;
          p = numEnd_;
          break;
        }
        case K_ARGS: {
          if (c != LBRACE || argsSeen || !phSeen) return stop(ST_AT_EVENT);
          if (!catSeen && static_cast<size_t>(ph) < labelIsX.size() && labelIsX[ph]) return stop(ST_AT_EVENT);
          int mode = 0;
          if (static_cast<size_t>(ph) < modes.size() && static_cast<size_t>(cat) < modes[ph].size()) mode = modes[ph][cat];
          if (mode == 0) {
            io[IO_A] = ph;
            io[IO_B] = cat;
            return stop(ST_NEED_MODE);
          }
          int64_t r = args(p, mode - 2, n);
          if (r < 0) return r;
          p = r;
          argsSeen = true;
          break;
        }
        default:
          p = skipPlain(p);
          if (p < 0) return stop(ST_AT_EVENT);
      }
      p = skipWs(p);
      if (p >= end) return stop(ST_AT_EVENT);
      uint8_t d = b[p];
      if (d == COMMA) {
        p = skipWs(p + 1);
        if (p >= end) return stop(ST_AT_EVENT);
        if (b[p] == RBRACE) return p + 1;  // trailing comma: tolerated
        continue;
      }
      if (d == RBRACE) return p + 1;
      return stop(ST_AT_EVENT);
    }
  }

  // tokenizer.ts fastArgs: the args object at p into row n.
  int64_t args(int64_t p, int mode, int n) {
    const uint8_t* b = b_;
    const int64_t end = end_;
    double* an = col.argNumbers + static_cast<int64_t>(n) * ARG_NUMBERS;
    const bool keyed = mode >= 0;
    const uint32_t drop = keyed ? dropMask[mode] : 0;
    double extLower = kNaN;
    bool extUpperSet = false;
    size_t nr = 0;
    p = skipWs(p + 1);
    if (p >= end) return stop(ST_AT_EVENT);
    if (b[p] == RBRACE) {
      p++;
    } else {
      for (;;) {
        if (b[p] != QUOTE) return stop(ST_AT_EVENT);
        int64_t ms = p;
        int64_t ks = p + 1;
        int64_t q = scanPlain(ks);
        if (q >= end || b[q] != QUOTE) return stop(ST_AT_EVENT);
        int kc = knownKey(ks, q);
        p = skipWs(q + 1);
        if (p >= end || b[p] != COLON) return stop(ST_AT_EVENT);
        p = skipWs(p + 1);
        if (p >= end) return stop(ST_AT_EVENT);
        int slot = kc >= 0 ? keySlot[kc] : -1;
        if (slot >= 0) {
          double v = plainInt(p);
          if (v != v) return stop(ST_AT_EVENT);
          if (slot == EXT_LOWER_SLOT) {
            extLower = v;
          } else {
            an[slot] = v;
            if (slot == AN_EXTERNAL_ID) extUpperSet = true;
          }
          p = numEnd_;
        } else {
          p = skipPlain(p);
          if (p < 0) return stop(ST_AT_EVENT);
        }
        if (keyed && (kc < 0 || (drop & (1u << kc)) == 0)) {
          if (2 * nr + 2 > rangesCap) return stop(ST_AT_EVENT);
          ranges[2 * nr] = static_cast<int32_t>(ms);
          ranges[2 * nr + 1] = static_cast<int32_t>(p);
          nr++;
        }
        p = skipWs(p);
        if (p >= end) return stop(ST_AT_EVENT);
        uint8_t d = b[p];
        if (d == COMMA) {
          p = skipWs(p + 1);
          if (p >= end) return stop(ST_AT_EVENT);
          if (b[p] == RBRACE) {
            p++;
            break;
          }
          continue;
        }
        if (d == RBRACE) {
          p++;
          break;
        }
        return stop(ST_AT_EVENT);
      }
    }
    if (!extUpperSet) an[AN_EXTERNAL_ID] = extLower;
    if (keyed) {
      pendingArgs.clear();
      for (size_t k = 0; k < nr; k++) pendingArgs.append(reinterpret_cast<const char*>(b + ranges[2 * k]), ranges[2 * k + 1] - ranges[2 * k]);
      const uint8_t* key = reinterpret_cast<const uint8_t*>(pendingArgs.data());
      pendingHash = hashBytes(key, pendingArgs.size());
      int id = argsTable.find(key, pendingArgs.size(), pendingHash);
      if (id < 0) {
        io[IO_A] = static_cast<double>(nr);
        return stop(ST_NEED_ARGS);
      }
      col.args[n] = id;
    }
    return p;
  }
};

// ---------------------------------------------------------------------------------------------
// Node-API glue. The reader is a JavaScript object wrapping an EventReader:
//   new NativeEventReader(knownKeys: Uint8Array[], keySlot: Int32Array, dropMasks: Int32Array,
//                         io: Float64Array, ranges: Int32Array)
//   .setColumns(i32: Int32Array[9], f64: Float64Array[7])   // ph cat name pidLabel tidLabel flowIdLabel bp s args;
//                                                          // pid tid tsNs durNs flowId argNumbers offsets|undefined
//   .run(bytes, p, end, n, cap, base, hasOrigin, origin) → status
//   .addLabel(bytes, s, e, id)  .addArgs(id)  .setMode(ph, cat, mode)

#define CHECK(call)                                              \
  do {                                                           \
    if ((call) != napi_ok) {                                     \
      napi_throw_error(env, nullptr, "native event reader: " #call); \
      return nullptr;                                            \
    }                                                            \
  } while (0)

template <typename T>
bool typedArray(napi_env env, napi_value v, T** data, size_t* length) {
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  napi_typedarray_type type;
  void* d = nullptr;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &type, length, &d, &ab, &off) != napi_ok) return false;
  *data = static_cast<T*>(d);
  return true;
}

EventReader* self(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv) {
  napi_value thisArg;
  void* data = nullptr;
  if (napi_get_cb_info(env, info, argc, argv, &thisArg, nullptr) != napi_ok) return nullptr;
  if (napi_unwrap(env, thisArg, &data) != napi_ok) return nullptr;
  return static_cast<EventReader*>(data);
}

double number(napi_env env, napi_value v) {
  double d = 0;
  napi_get_value_double(env, v, &d);
  return d;
}

napi_value Construct(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_value thisArg;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &thisArg, nullptr));
  if (argc < 5) {
    napi_throw_type_error(env, nullptr, "native event reader: 5 arguments expected");
    return nullptr;
  }
  auto* r = new EventReader();
  uint32_t nk = 0;
  napi_get_array_length(env, argv[0], &nk);
  for (uint32_t i = 0; i < nk; i++) {
    napi_value k;
    napi_get_element(env, argv[0], i, &k);
    uint8_t* d = nullptr;
    size_t len = 0;
    if (!typedArray(env, k, &d, &len)) len = 0;
    r->knownKeys.emplace_back(reinterpret_cast<const char*>(d), len);
  }
  int32_t* slots = nullptr;
  size_t ns = 0;
  int32_t* masks = nullptr;
  size_t nm = 0;
  size_t nio = 0;
  if (!typedArray(env, argv[1], &slots, &ns) || !typedArray(env, argv[2], &masks, &nm) ||
      !typedArray(env, argv[3], &r->io, &nio) || nio < IO_SIZE || !typedArray(env, argv[4], &r->ranges, &r->rangesCap) ||
      ns < r->knownKeys.size()) {
    delete r;
    napi_throw_type_error(env, nullptr, "native event reader: bad arguments");
    return nullptr;
  }
  r->keySlot.assign(slots, slots + r->knownKeys.size());
  for (size_t i = 0; i < nm; i++) r->dropMask.push_back(static_cast<uint32_t>(masks[i]));
  // The io and ranges arrays are held by the JavaScript object for as long as it lives.
  CHECK(napi_wrap(env, thisArg, r, [](napi_env, void* d, void*) { delete static_cast<EventReader*>(d); }, nullptr, nullptr));
  return thisArg;
}

napi_value SetColumns(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  EventReader* r = self(env, info, &argc, argv);
  if (r == nullptr || argc < 2) return nullptr;
  int32_t** i32[9] = {&r->col.ph, &r->col.cat, &r->col.name, &r->col.pidLabel, &r->col.tidLabel, &r->col.flowIdLabel, &r->col.bp, &r->col.s, &r->col.args};
  double** f64[7] = {&r->col.pid, &r->col.tid, &r->col.tsNs, &r->col.durNs, &r->col.flowId, &r->col.argNumbers, &r->col.offsets};
  for (uint32_t i = 0; i < 9; i++) {
    napi_value v;
    size_t len;
    napi_get_element(env, argv[0], i, &v);
    if (!typedArray(env, v, i32[i], &len)) *i32[i] = nullptr;
  }
  for (uint32_t i = 0; i < 7; i++) {
    napi_value v;
    size_t len;
    napi_get_element(env, argv[1], i, &v);
    if (!typedArray(env, v, f64[i], &len)) *f64[i] = nullptr;
  }
  return nullptr;
}

napi_value Run(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  EventReader* r = self(env, info, &argc, argv);
  if (r == nullptr || argc < 8 || r->col.ph == nullptr) {
    napi_throw_error(env, nullptr, "native event reader: run before setColumns");
    return nullptr;
  }
  uint8_t* bytes = nullptr;
  size_t len = 0;
  if (!typedArray(env, argv[0], &bytes, &len)) {
    napi_throw_type_error(env, nullptr, "native event reader: bytes expected");
    return nullptr;
  }
  int64_t p = static_cast<int64_t>(number(env, argv[1]));
  int64_t end = static_cast<int64_t>(number(env, argv[2]));
  if (end > static_cast<int64_t>(len)) end = static_cast<int64_t>(len);
  bool hasOrigin = false;
  napi_get_value_bool(env, argv[6], &hasOrigin);
  int status = r->run(bytes, p, end, static_cast<int>(number(env, argv[3])), static_cast<int>(number(env, argv[4])), number(env, argv[5]), hasOrigin,
                      number(env, argv[7]));
  napi_value out;
  CHECK(napi_create_int32(env, status, &out));
  return out;
}

napi_value AddLabel(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  EventReader* r = self(env, info, &argc, argv);
  uint8_t* bytes = nullptr;
  size_t len = 0;
  if (r == nullptr || argc < 4 || !typedArray(env, argv[0], &bytes, &len)) return nullptr;
  auto s = static_cast<size_t>(number(env, argv[1]));
  auto e = static_cast<size_t>(number(env, argv[2]));
  if (s > e || e > len) return nullptr;
  r->addLabel(bytes + s, e - s, static_cast<int>(number(env, argv[3])));
  return nullptr;
}

napi_value AddArgs(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  EventReader* r = self(env, info, &argc, argv);
  if (r != nullptr && argc >= 1) r->addArgs(static_cast<int>(number(env, argv[0])));
  return nullptr;
}

napi_value SetMode(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  EventReader* r = self(env, info, &argc, argv);
  if (r != nullptr && argc >= 3) r->setMode(static_cast<int>(number(env, argv[0])), static_cast<int>(number(env, argv[1])), static_cast<int>(number(env, argv[2])));
  return nullptr;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"setColumns", nullptr, SetColumns, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"run", nullptr, Run, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"addLabel", nullptr, AddLabel, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"addArgs", nullptr, AddArgs, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"setMode", nullptr, SetMode, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_value cls;
  if (napi_define_class(env, "NativeEventReader", NAPI_AUTO_LENGTH, Construct, nullptr, 5, methods, &cls) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, "NativeEventReader", cls) != napi_ok) return nullptr;
  return exports;
}
