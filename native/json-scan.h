// Byte-level reading of JSON text as Kineto writes it: the tokenizer's fast-path primitives
// (src/ingest/tokenizer.ts skipPlain, plainKey, plainInt, plainTime; src/ingest/json-bytes.ts
// PLAIN), each giving up (−1 / false) wherever the JavaScript one does. Const and stateless
// over one span of bytes, so any thread may read with it.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define KINETOSCOPE_SSE2 1
#endif
#if defined(_MSC_VER)
#include <intrin.h>
#endif

namespace kinetoscope {

constexpr uint8_t QUOTE = 0x22, COMMA = 0x2c, COLON = 0x3a, LBRACE = 0x7b, RBRACE = 0x7d, LBRACKET = 0x5b,
                  RBRACKET = 0x5d, MINUS = 0x2d, PLUS = 0x2b, DOT = 0x2e, BACKSLASH = 0x5c;
constexpr double MAX_SAFE = 9007199254740992.0;  // 2^53

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
inline const ByteClasses BC;

// A decimal µs number as plainTime reads it: ts and dur are made from these exactly as the
// JavaScript reader makes them (double arithmetic on exact integers). The rule is
// src/ingest/time-text.ts's (readPlainUs, PlainUs, plainTsNs), mirrored here to the
// bit; test/cli/native-reader.test.ts ("tricky times") pins the two readers to the same ns.
struct TimeText {
  double acc;     // the integer digits (exact: below 2^53)
  int32_t frac;   // ns from the first three decimals, the fourth rounding half up
  bool neg;
  double us() const { return neg ? -acc : acc; }
  int32_t signedFrac() const { return neg ? -frac : frac; }
  double durNs() const {
    double r = neg ? -(acc * 1000 + frac) : acc * 1000 + frac;
    return r == 0 ? 0 : r;
  }
  double tsNs(double origin) const {
    double r = (us() - origin) * 1000 + signedFrac();
    return r == 0 ? 0 : r;
  }
};

// The index of the lowest set bit of m (m ≠ 0).
inline int lowestBit(unsigned m) {
#if defined(_MSC_VER)
  unsigned long i;
  _BitScanForward(&i, m);
  return static_cast<int>(i);
#else
  return __builtin_ctz(m);
#endif
}

class JsonScan {
 public:
  JsonScan(const uint8_t* b, int64_t end) : b(b), end(end) {}
  const uint8_t* const b;
  const int64_t end;

  int64_t skipWs(int64_t p) const {
    // Mostly one space (after a colon or comma): bytes first.
    for (int k = 0; k < 4; k++) {
      if (p >= end || !BC.ws[b[p]]) return p;
      p++;
    }
#if defined(KINETOSCOPE_SSE2)
    // Kineto indents: runs of a newline and spaces, 16 bytes at a time.
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    while (p + 16 <= end) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + p));
      __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl)), _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab)));
      unsigned m = ~static_cast<unsigned>(_mm_movemask_epi8(w)) & 0xffffu;
      if (m != 0) return p + lowestBit(m);
      p += 16;
    }
#endif
    while (p < end && BC.ws[b[p]]) p++;
    return p;
  }

  // The first byte at or after p that is not PLAIN (or end), 16 bytes at a time.
  int64_t scanPlain(int64_t p) const {
#if defined(KINETOSCOPE_SSE2)
    const __m128i q = _mm_set1_epi8(static_cast<char>(QUOTE));
    const __m128i bs = _mm_set1_epi8(static_cast<char>(BACKSLASH));
    const __m128i lo = _mm_set1_epi8(0x20);
    while (p + 16 <= end) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + p));
      // Signed compare: bytes from 0x80 are negative, so below 0x20 too.
      __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)), _mm_cmplt_epi8(x, lo));
      int m = _mm_movemask_epi8(bad);
      if (m != 0) return p + lowestBit(static_cast<unsigned>(m));
      p += 16;
    }
#endif
    while (p < end && BC.plain[b[p]]) p++;
    return p;
  }

  // plainInt: an integer of at most 15 digits, not followed by `.`/`e`/`E`; *e after it.
  bool plainInt(int64_t p, double* v, int64_t* e) const {
    bool neg = b[p] == MINUS;
    int64_t q = neg ? p + 1 : p;
    int64_t ds = q;
    int64_t acc = 0;
    while (q < end) {
      unsigned d = static_cast<unsigned>(b[q]) - 48u;
      if (d > 9) break;
      if (q - ds < 16) acc = acc * 10 + d;
      q++;
    }
    int64_t nd = q - ds;
    if (nd == 0 || nd > 15 || q >= end) return false;
    uint8_t t = b[q];
    if (t == DOT || t == 0x65 || t == 0x45) return false;
    *e = q;
    double x = static_cast<double>(acc);
    *v = neg ? -x : x;
    return true;
  }

  // plainTime: decimal µs without exponent, below 2^53 µs; *e after it (time-text.ts readPlainUs).
  bool plainTime(int64_t p, TimeText* t, int64_t* e) const {
    static const int NS_PER_DIGIT[3] = {100, 10, 1};
    bool neg = b[p] == MINUS;
    int64_t q = neg ? p + 1 : p;
    int64_t ds = q;
    // Exact in 64 bits up to 18 digits; more are at least 2^53, refused below as in JavaScript.
    int64_t acc = 0;
    int d = 0;
    while (q < end && (d = static_cast<int>(b[q]) - 48) >= 0 && d <= 9) {
      if (q - ds < 18) acc = acc * 10 + d;
      q++;
    }
    if (q == ds) return false;
    double dacc = q - ds > 18 ? MAX_SAFE : static_cast<double>(acc);
    int32_t frac = 0;
    if (q < end && b[q] == DOT) {
      int64_t fs = ++q;
      while (q < end && (d = static_cast<int>(b[q]) - 48) >= 0 && d <= 9) {
        int64_t k = q++ - fs;
        if (k < 3) frac += d * NS_PER_DIGIT[k];
        else if (k == 3 && d >= 5) frac++;
      }
    }
    if (q >= end) return false;
    uint8_t x = b[q];
    if (x == 0x65 || x == 0x45 || dacc >= MAX_SAFE) return false;
    t->acc = dacc;
    t->frac = frac;
    t->neg = neg;
    *e = q;
    return true;
  }

  // plainKey: a plain key string at p then `:`: the value's position, or −1.
  int64_t plainKey(int64_t p) const {
    if (b[p] != QUOTE) return -1;
    p = scanPlain(p + 1);
    if (p >= end || b[p] != QUOTE) return -1;
    p = skipWs(p + 1);
    if (p >= end || b[p] != COLON) return -1;
    return skipWs(p + 1);
  }

  // skipPlain: a value of plain strings, numbers, true/false/null, arrays and objects up to 30
  // deep; the position after it, or −1.
  int64_t skipPlain(int64_t p) const {
    int depth = 0;
    uint32_t objects = 0;  // bit per open level: 1 = object, 0 = array
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
      for (;;) {
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
        if (b[p] == close) {  // trailing comma: tolerated
          p++;
          depth--;
          objects >>= 1;
          continue;
        }
        if (objects & 1) {
          p = plainKey(p);
          if (p < 0) return -1;
        }
        break;
      }
    }
  }

  // Past the object or array at p, whatever its strings hold (escapes, any byte): only
  // brackets outside strings count. −1 when it does not close before end. For finding the
  // next event after one the fast path does not take; never for meaning.
  int64_t skipBalanced(int64_t p) const {
    int depth = 0;
    while (p < end) {
      uint8_t c = b[p++];
      if (c == QUOTE) {
        while (p < end && b[p] != QUOTE) p += b[p] == BACKSLASH ? 2 : 1;
        p++;
      } else if (c == LBRACE || c == LBRACKET) {
        depth++;
      } else if (c == RBRACE || c == RBRACKET) {
        if (--depth == 0) return p <= end ? p : -1;
      }
    }
    return -1;
  }
};

}  // namespace kinetoscope
