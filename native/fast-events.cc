// The tokenizer's fast path in native code: events as Kineto writes them, straight from the
// bytes into a column batch. src/ingest/tokenizer.ts (fastEvent, fastArgs) is the reference and
// the only source of meaning; src/ingest/native-reader.ts describes the protocol.
//
// The JavaScript tokenizer stays the one reader of the grammar: this code only replays what it
// has been taught. Every label and args object it has not been told the id of is handed back
// as a question (status NEED_*), the tokenizer answers it from its own tables, and the event is
// read again (which args members are kept it knows from the policy, as the tokenizer does). Everything else the fast path does not take — an escape, a
// non-ASCII byte, a bare word, a first ts before the time origin is known, a syntax error, the
// end of the buffer — stops at the event's `{` (status AT_EVENT), and the JavaScript tokenizer
// reads that event itself, with its repairs and diagnostics. So the rows written here are the
// rows the JavaScript fast path would write, bit for bit (test/cli/native-reader.test.ts).
//
// Two threads: reading an event's bytes into a record (event-record.h) needs no table, so the
// records of the next chunks are read on the reader's prescan thread while the tokenizer turns
// this chunk's records into rows (see Prescan for who takes which chunk); a record is used only
// for an event the tokenizer meets at exactly the record's start, else the event is read here
// and now.
//
// Why native: the JavaScript fast path visits every byte in a JIT-compiled loop, about
// 0.5 GB/s on this project's machine, and V8 spends much of a one-shot CLI run compiling it.
//
// The addon also exports the model's table kernels (table-kernels.h, glue at the end).

#include <node_api.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(_WIN32)
#define KINETOSCOPE_NO_PREAD 1
#else
#include <cerrno>
#include <unistd.h>
#endif

#include "byte-table.h"
#include "event-record.h"
#include "table-kernels.h"
#include "json-scan.h"

namespace kinetoscope {
namespace {

// What a run ended on (native-reader.ts NATIVE_*).
enum Status {
  ST_STOPPED = 0,     // after an event not followed by `,` `{`: the tokenizer goes on from io.pos
  ST_AT_EVENT = 1,    // at the `{` of an event the tokenizer reads itself; io.a 1: it runs past the buffer
  ST_FULL = 2,        // the batch is full; flush, then run again from io.pos
  ST_NEED_LABEL = 3,  // the id of the plain label at [io.a, io.b)
  ST_NEED_ARGS = 4,   // the id of the kept args members in ranges[0, 2·io.a)
};
constexpr int ROW_DONE = -1;

// io slots (native-reader.ts IO_*).
enum Io { IO_COUNT, IO_POS, IO_LAST_END, IO_A, IO_B, IO_SIZE };

// The columns of the batch being written (views into one ArrayBuffer, see ColumnBatchWriter).
struct Columns {
  int32_t *ph = nullptr, *cat = nullptr, *name = nullptr, *pidLabel = nullptr, *tidLabel = nullptr,
          *flowIdLabel = nullptr, *bp = nullptr, *s = nullptr, *args = nullptr;
  double *pid = nullptr, *tid = nullptr, *tsNs = nullptr, *durNs = nullptr, *flowId = nullptr,
         *argNumbers = nullptr, *offsets = nullptr;
};

// The order setColumns takes the columns in: EVENT_COLUMNS' (src/ingest/event-columns.ts), each
// with its element type and slots per event. The addon exports this list (`eventColumns`) and
// test/ingest/event-columns.test.ts checks it against EVENT_COLUMNS, so the two cannot drift apart.
struct ColumnSlot {
  const char* name;
  napi_typedarray_type type;  // napi_int32_array: i32 is set; napi_float64_array: f64
  int width;
  int32_t* Columns::*i32;
  double* Columns::*f64;
  bool optional;
};
constexpr ColumnSlot COLUMN_SLOTS[] = {
    {"ph", napi_int32_array, 1, &Columns::ph, nullptr, false},
    {"cat", napi_int32_array, 1, &Columns::cat, nullptr, false},
    {"name", napi_int32_array, 1, &Columns::name, nullptr, false},
    {"pid", napi_float64_array, 1, nullptr, &Columns::pid, false},
    {"pidLabel", napi_int32_array, 1, &Columns::pidLabel, nullptr, false},
    {"tid", napi_float64_array, 1, nullptr, &Columns::tid, false},
    {"tidLabel", napi_int32_array, 1, &Columns::tidLabel, nullptr, false},
    {"tsNs", napi_float64_array, 1, nullptr, &Columns::tsNs, false},
    {"durNs", napi_float64_array, 1, nullptr, &Columns::durNs, false},
    {"flowId", napi_float64_array, 1, nullptr, &Columns::flowId, false},
    {"flowIdLabel", napi_int32_array, 1, &Columns::flowIdLabel, nullptr, false},
    {"bp", napi_int32_array, 1, &Columns::bp, nullptr, false},
    {"s", napi_int32_array, 1, &Columns::s, nullptr, false},
    {"argNumbers", napi_float64_array, ARG_NUMBERS, nullptr, &Columns::argNumbers, false},
    {"args", napi_int32_array, 1, &Columns::args, nullptr, false},
    {"offsets", napi_float64_array, 2, nullptr, &Columns::offsets, true},
};
constexpr uint32_t COLUMN_COUNT = sizeof COLUMN_SLOTS / sizeof COLUMN_SLOTS[0];

// The records of one chunk, read ahead on the prescan thread. Whoever comes first takes a
// queued chunk: the prescan thread (QUEUED → RUNNING → READY), or the tokenizer's thread, which
// then reads the chunk itself (QUEUED → CLAIMED); so when the prescan thread falls behind, the
// other takes the chunks it has not started, and neither waits for the other but for a chunk
// already being read.
struct Prescan {
  enum State { FREE, FILLING, QUEUED, RUNNING, READY, CLAIMED };
  std::atomic<int> state{FREE};
  std::atomic<uint32_t> generation{0};
  const uint8_t* data = nullptr;
  size_t len = 0;
  std::vector<EventRecord> records;
  std::vector<uint32_t> kept;
  size_t cursor = 0;
  // Holds the chunk alive from queue to release, even if the tokenizer is dropped on an error
  // with the chunk still queued (tokenizer's thread only).
  napi_ref pin = nullptr;
  // The buffer of the file's ring the chunk was read into (readFile), or −1.
  int ring = -1;
};
constexpr int PRESCAN_SLOTS = 6;
// The memory a reader must give back at idle() before it asks glibc to return it to the system.
constexpr size_t TRIM_AFTER_BYTES = size_t{16} << 20;

// The `{` of the next event at or after p: one that follows a `,` or the `[` of the events
// array. A guess (it may sit inside a string); records are trusted only at a position where
// the tokenizer itself meets an event.
int64_t nextEventStart(const uint8_t* b, int64_t p, int64_t end) {
  while (p < end) {
    const void* hit = std::memchr(b + p, LBRACE, static_cast<size_t>(end - p));
    if (hit == nullptr) return -1;
    int64_t q = static_cast<const uint8_t*>(hit) - b;
    int64_t k = q - 1;
    while (k >= 0 && BC.ws[b[k]]) k--;
    if (k >= 0 && (b[k] == COMMA || b[k] == LBRACKET)) return q;
    p = q + 1;
  }
  return -1;
}

class EventReader {
 public:
  ReadConfig cfg;
  Columns col;
  double* io = nullptr;
  int32_t* ranges = nullptr;
  size_t rangesCap = 0;
  Prescan prescans[PRESCAN_SLOTS];

  ~EventReader() { stopThread(); }

  // Queues the chunk b[0, len) for the prescan thread: its handle, or −1 (no slot free).
  double queue(const uint8_t* b, size_t len) {
    if (len == 0) return -1;
    std::unique_lock<std::mutex> lock(mutex_);
    double handle = enqueue(b, len, -1);
    if (handle >= 0 && !thread_.joinable()) thread_ = std::thread([this] { prescanLoop(); });
    lock.unlock();
    wake_.notify_one();
    return handle;
  }

  // readFile: the prescan thread reads the file `fd` from its start in chunks of `chunk` bytes
  // into `ring` (the tokenizer's buffers, pinned by the caller until stopReading) and queues
  // each for its prescan; next() hands them on in order. Reading there rather than through the
  // event loop spares the tokenizer's thread a turn of the loop per chunk (~45 ms of the 160 MB
  // trace's load). Not where pread is missing.
  bool readFile(int fd, std::vector<uint8_t*> ring, size_t chunk) {
#if defined(KINETOSCOPE_NO_PREAD)
    return false;
#else
    if (ring.empty() || ring.size() > PRESCAN_SLOTS || chunk == 0) return false;
    std::unique_lock<std::mutex> lock(mutex_);
    file_ = FileFeed();
    file_.fd = fd;
    file_.chunk = chunk;
    file_.ring = std::move(ring);
    file_.ringSlot.assign(file_.ring.size(), -1);
    file_.active = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { prescanLoop(); });
    lock.unlock();
    wake_.notify_one();
    return true;
#endif
  }

  // The next chunk readFile read, in file order (waiting for it): its buffer in the ring, with
  // its length and prescan handle in io[IO_A] and io[IO_B]; −1 at the end of the file, −2 on a
  // read error (io[IO_A]: errno).
  int next() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return !file_.ready.empty() || file_.ended || !file_.active; });
    if (!file_.ready.empty()) {
      FileChunk c = file_.ready.front();
      file_.ready.pop_front();
      io[IO_A] = static_cast<double>(c.len);
      io[IO_B] = c.handle;
      return c.ring;
    }
    if (file_.err != 0) {
      io[IO_A] = file_.err;
      return -2;
    }
    return -1;
  }

  // No more reading (before the file is closed): the thread is stopped, the ring's chunks not
  // taken are dropped.
  void stopReading() {
    if (!file_.active && file_.ring.empty()) return;
    stopThread();
    for (int k : file_.ringSlot) {
      if (k >= 0 && k < PRESCAN_SLOTS) {
        prescans[k].state.store(Prescan::FREE);
        prescans[k].data = nullptr;
        prescans[k].ring = -1;
      }
    }
    file_ = FileFeed();
  }

  // The ring's buffers, held alive from readFile to stopReading (tokenizer's thread only).
  std::vector<napi_ref> ringPins;

  // The slot a handle names when it is this chunk's, after its prescan: nullptr when this
  // thread reads the chunk itself (the prescan had not started: it will not).
  Prescan* take(double handle, const uint8_t* data, int64_t end) {
    Prescan* pre = slotOf(handle);
    if (pre == nullptr || pre->data != data || static_cast<int64_t>(pre->len) < end) return nullptr;
    int st = Prescan::QUEUED;
    if (pre->state.compare_exchange_strong(st, Prescan::CLAIMED)) return nullptr;
    if (st == Prescan::CLAIMED) return nullptr;
    // Being read: read the newest queued chunk here meanwhile, rather than wait idle.
    while (pre->state.load() == Prescan::RUNNING && stealNewest()) {
    }
    if (pre->state.load() == Prescan::RUNNING) waitReady(*pre);
    return pre;
  }

  // No chunk in flight (the tokenizer ended): the records' memory goes back — to the system,
  // not only to the allocator: glibc keeps freed blocks of this size in the prescan thread's
  // arena, and the model and analyses that follow reach the process's peak memory.
  void idle() {
    // The thread too: a process may read many traces (one reader each), and a reader is freed
    // only when the garbage collector gets to it. The next queue starts a new one.
    bool busy = false;
    for (Prescan& pre : prescans) busy = busy || pre.state.load() != Prescan::FREE;
    if (!busy) stopThread();
    size_t freed = 0;
    for (Prescan& pre : prescans) {
      if (pre.state.load() != Prescan::FREE) continue;
      freed += pre.records.capacity() * sizeof(EventRecord) + pre.kept.capacity() * sizeof(uint32_t);
      std::vector<EventRecord>().swap(pre.records);
      std::vector<uint32_t>().swap(pre.kept);
    }
#if defined(__GLIBC__)
    // Only after a read that held much: malloc_trim walks the whole heap, milliseconds in a
    // process that holds other models (the MCP server, the test suite) for every small trace.
    if (freed >= TRIM_AFTER_BYTES) malloc_trim(0);
#endif
  }

  // The chunk is done with: its slot is free again (once a running prescan of it ends). Returns
  // the chunk's pin, to be deleted.
  napi_ref release(double handle) {
    Prescan* pre = slotOf(handle);
    if (pre == nullptr || pre->state.load() == Prescan::FREE) return nullptr;
    // Not to be started any more; a prescan already running is waited for.
    int st = Prescan::QUEUED;
    if (!pre->state.compare_exchange_strong(st, Prescan::CLAIMED) && st == Prescan::RUNNING) waitReady(*pre);
    napi_ref pin;
    {
      // The slot is cleared, its ring buffer given back, and only then the slot marked free,
      // all under the lock: the prescan thread may take a free slot for the next chunk at once.
      std::lock_guard<std::mutex> lock(mutex_);
      if (pre->ring >= 0 && static_cast<size_t>(pre->ring) < file_.ringSlot.size()) file_.ringSlot[pre->ring] = -1;
      pre->ring = -1;
      pre->data = nullptr;
      pin = pre->pin;
      pre->pin = nullptr;
      pre->state.store(Prescan::FREE);
    }
    wake_.notify_one();  // a slot and maybe a ring buffer are free for the next read
    return pin;
  }

  void addLabel(const uint8_t* s, size_t n, int id) { labels_.insert(s, n, hashBytes(s, n), id); }
  void addArgs(int id) { args_.insert(reinterpret_cast<const uint8_t*>(pendingArgs_.data()), pendingArgs_.size(), pendingHash_, id); }

  // On the prescan thread: the records of slot k's chunk.
  void prescan(int k) {
    Prescan& pre = prescans[k];
    const uint8_t* b = pre.data;
    size_t len = pre.len;
    pre.records.clear();
    pre.kept.clear();
    pre.cursor = 0;
    const int64_t end = static_cast<int64_t>(len);
    JsonScan s(b, end);
    int64_t p = nextEventStart(b, 0, end);
    while (p >= 0) {
      pre.records.emplace_back();
      int64_t e = scanEvent(s, cfg, p, pre.records.back(), pre.kept);
      if (e < 0) {
        // Not taken (the tokenizer reads it): on from its end, as far as brackets tell.
        e = s.skipBalanced(p);
        if (e < 0) break;
      }
      int64_t q = s.skipWs(e);
      if (q >= end) break;
      if (b[q] == COMMA) {
        q = s.skipWs(q + 1);
        if (q >= end) break;
        if (b[q] == LBRACE) {
          p = q;
          continue;
        }
      }
      p = nextEventStart(b, e, end);
    }
  }

  // Events from the `{` at p (local to b[0, end)) into rows n, n + 1, … < cap, with the
  // records of prescan slot `pre` where they match.
  int run(const uint8_t* b, int64_t p, int64_t end, int n, int cap, double base, bool hasOrigin, double origin, Prescan* pre) {
    JsonScan s(b, end);
    int count = 0;
    int status;
    double lastEnd = -1;
    for (;;) {
      if (n >= cap) {
        status = ST_FULL;
        break;
      }
      const EventRecord* rec = nullptr;
      const uint32_t* kept = nullptr;
      if (pre != nullptr) {
        const std::vector<EventRecord>& recs = pre->records;
        size_t c = pre->cursor;
        while (c < recs.size() && recs[c].start < p) c++;
        pre->cursor = c;
        if (c < recs.size() && recs[c].start == p && recs[c].end <= end) {
          rec = &recs[c];
          kept = pre->kept.data();
        }
      }
      if (rec == nullptr) {
        kept_.clear();
        scanEvent(s, cfg, p, here_, kept_);
        rec = &here_;
        kept = kept_.data();
      }
      if (rec->end < 0) {
        status = ST_AT_EVENT;
        // Whether the event runs past the buffer (then, before the input's end, the tokenizer
        // keeps it for the next chunk without reading it: a chunk's last event, each chunk).
        io[IO_A] = s.skipBalanced(p) < 0 ? 1 : 0;
        break;
      }
      int st = row(b, *rec, kept, n, hasOrigin, origin);
      if (st != ROW_DONE) {
        status = st;
        if (st == ST_AT_EVENT) io[IO_A] = 0;  // whole, but not for the fast path
        break;
      }
      int64_t r = rec->end;
      if (col.offsets != nullptr) {
        col.offsets[2 * n] = base + static_cast<double>(p);
        col.offsets[2 * n + 1] = base + static_cast<double>(r);
      }
      n++;
      count++;
      lastEnd = static_cast<double>(r);
      int64_t q = s.skipWs(r);
      if (q < end && b[q] == COMMA) q = s.skipWs(q + 1);
      else q = end;
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
  ByteTable labels_;
  ByteTable args_;
  EventRecord here_;
  std::vector<uint32_t> kept_;
  // The prescan thread, started with the first chunk queued, and its queue of slots.
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<int> queue_;
  bool stop_ = false;

  struct FileChunk {
    int ring;
    size_t len;
    double handle;
  };
  struct FileFeed {
    bool active = false;
    int fd = -1;
    int64_t pos = 0;
    size_t chunk = 0;
    std::vector<uint8_t*> ring;
    std::vector<int> ringSlot;  // per buffer: the prescan slot of the chunk in it, −1 when free
    size_t nextRing = 0;
    bool ended = false;
    int err = 0;
    std::deque<FileChunk> ready;  // read, in file order, not handed on yet
  };
  FileFeed file_;  // under mutex_

  // Queues b[0, len) in a free slot (under mutex_): its handle, or −1.
  double enqueue(const uint8_t* b, size_t len, int ring) {
    for (int k = 0; k < PRESCAN_SLOTS; k++) {
      int st = Prescan::FREE;
      if (!prescans[k].state.compare_exchange_strong(st, Prescan::FILLING)) continue;
      Prescan& pre = prescans[k];
      pre.generation++;
      pre.data = b;
      pre.len = len;
      pre.ring = ring;
      pre.state.store(Prescan::QUEUED);
      queue_.push_back(k);
      return static_cast<double>(pre.generation) * PRESCAN_SLOTS + k;
    }
    return -1;
  }

  // A read can start: its buffer is free, and so is a slot to queue it in (the tokenizer's
  // thread frees both when it releases a chunk).
  bool canRead() const {
    if (!file_.active || file_.ended || file_.ringSlot[file_.nextRing] != -1) return false;
    for (const Prescan& p : prescans)
      if (p.state.load() == Prescan::FREE) return true;
    return false;
  }

  // On the prescan thread: the next chunk of the file into the next buffer of the ring.
  void readChunk(std::unique_lock<std::mutex>& lock) {
#if !defined(KINETOSCOPE_NO_PREAD)
    const int r = static_cast<int>(file_.nextRing);
    uint8_t* buf = file_.ring[r];
    const size_t chunk = file_.chunk;
    const int fd = file_.fd;
    const int64_t at = file_.pos;
    file_.ringSlot[r] = PRESCAN_SLOTS;  // taken while it is read
    lock.unlock();
    size_t n = 0;
    int err = 0;
    while (n < chunk) {
      ssize_t got = pread(fd, buf + n, chunk - n, static_cast<off_t>(at + static_cast<int64_t>(n)));
      if (got < 0) {
        if (errno == EINTR) continue;
        err = errno;
        break;
      }
      if (got == 0) break;
      n += static_cast<size_t>(got);
    }
    lock.lock();
    file_.ringSlot[r] = -1;
    if (!file_.active) return;  // stopped meanwhile
    if (err != 0) {
      file_.err = err;
      file_.ended = true;
    } else if (n == 0) {
      file_.ended = true;
    } else {
      double handle = enqueue(buf, n, r);
      if (handle >= 0) file_.ringSlot[r] = static_cast<int>(static_cast<uint64_t>(handle) % PRESCAN_SLOTS);
      file_.ready.push_back(FileChunk{r, n, handle});
      file_.pos += static_cast<int64_t>(n);
      file_.nextRing = (file_.nextRing + 1) % file_.ring.size();
      if (n < chunk) file_.ended = true;
    }
#else
    (void)lock;
#endif
  }

  void stopThread() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = false;
    queue_.clear();
  }

  void prescanLoop() {
    for (;;) {
      int k;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stop_ || !queue_.empty() || canRead(); });
        if (stop_) return;
        if (canRead()) {
          // Reads first: they are short, and a chunk read is one the other thread may take.
          readChunk(lock);
          lock.unlock();
          done_.notify_all();
          continue;
        }
        k = queue_.front();
        queue_.pop_front();
      }
      int st = Prescan::QUEUED;
      if (!prescans[k].state.compare_exchange_strong(st, Prescan::RUNNING)) continue;  // claimed
      prescan(k);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        prescans[k].state.store(Prescan::READY);
      }
      done_.notify_all();
    }
  }

  // The newest queued chunk's prescan, on this thread (claimed from the prescan thread, which
  // will skip it). False when none is queued.
  bool stealNewest() {
    Prescan* newest = nullptr;
    for (Prescan& p : prescans)
      if (p.state.load() == Prescan::QUEUED && (newest == nullptr || p.generation > newest->generation)) newest = &p;
    if (newest == nullptr) return false;
    int st = Prescan::QUEUED;
    if (!newest->state.compare_exchange_strong(st, Prescan::RUNNING)) return true;
    prescan(static_cast<int>(newest - prescans));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      newest->state.store(Prescan::READY);
    }
    done_.notify_all();
    return true;
  }

  void waitReady(Prescan& pre) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&pre] { return pre.state.load() != Prescan::RUNNING; });
  }

  Prescan* slotOf(double handle) {
    if (!(handle >= 0)) return nullptr;
    auto h = static_cast<uint64_t>(handle);
    Prescan& pre = prescans[h % PRESCAN_SLOTS];
    return pre.generation == h / PRESCAN_SLOTS ? &pre : nullptr;
  }
  // The args of the last NEED_ARGS, kept for addArgs.
  std::string pendingArgs_;
  uint64_t pendingHash_ = 0;

  // The record's row n, or the question that stops it (ROW_DONE when written).
  int row(const uint8_t* b, const EventRecord& r, const uint32_t* kept, int n, bool hasOrigin, double origin) {
    // The first ts sets the time origin: the tokenizer's own work.
    if (r.hasTs && !hasOrigin) return ST_AT_EVENT;
    int ids[5];
    for (int i = 0; i < r.nLabels; i++) {
      const LabelRef& l = r.labels[i];
      if (l.len == 0) {
        ids[i] = 0;
        continue;
      }
      ids[i] = labels_.find(b + l.start, l.len, l.hash);
      if (ids[i] < 0) {
        io[IO_A] = l.start;
        io[IO_B] = static_cast<double>(l.start) + l.len;
        return ST_NEED_LABEL;
      }
    }
    int argsId = -1;
    if (r.hasArgs && r.mode >= 0) {
      argsId = args_.findRanges(b, kept + r.keptOff, r.keptCount, r.argsLen, r.argsHash);
      if (argsId < 0) return askArgs(b, r, kept + r.keptOff);
    }
    Columns& w = col;
    w.ph[n] = 0;
    w.cat[n] = 0;
    w.name[n] = 0;
    w.bp[n] = -1;
    w.s[n] = -1;
    for (int i = 0; i < r.nLabels; i++) {
      switch (r.labels[i].key) {
        case K_PH: w.ph[n] = ids[i]; break;
        case K_CAT: w.cat[n] = ids[i]; break;
        case K_NAME: w.name[n] = ids[i]; break;
        case K_BP: w.bp[n] = ids[i]; break;
        default: w.s[n] = ids[i]; break;
      }
    }
    w.pid[n] = r.pid;
    w.pidLabel[n] = r.hasPid ? -1 : 0;
    w.tid[n] = r.tid;
    w.tidLabel[n] = r.hasTid ? -1 : 0;
    w.flowId[n] = r.flowId;
    w.flowIdLabel[n] = -1;
    w.tsNs[n] = r.hasTs ? r.ts.tsNs(origin) : kNaN;
    w.durNs[n] = r.durNs;
    std::memcpy(w.argNumbers + static_cast<int64_t>(n) * ARG_NUMBERS, r.an, sizeof r.an);
    w.args[n] = argsId;
    return ROW_DONE;
  }

  // The question for args the reader has not been taught: their ranges for the tokenizer
  // (NEED_ARGS), or AT_EVENT when they do not fit its array.
  int askArgs(const uint8_t* b, const EventRecord& r, const uint32_t* kept) {
    if (2 * static_cast<size_t>(r.keptCount) > rangesCap) return ST_AT_EVENT;
    pendingArgs_.clear();
    for (uint32_t k = 0; k < r.keptCount; k++) {
      ranges[2 * k] = static_cast<int32_t>(kept[2 * k]);
      ranges[2 * k + 1] = static_cast<int32_t>(kept[2 * k + 1]);
      pendingArgs_.append(reinterpret_cast<const char*>(b + kept[2 * k]), kept[2 * k + 1] - kept[2 * k]);
    }
    pendingHash_ = r.argsHash;
    io[IO_A] = r.keptCount;
    return ST_NEED_ARGS;
  }
};

// ---------------------------------------------------------------------------------------------
// Node-API glue. The reader is a JavaScript object wrapping an EventReader:
//   new NativeEventReader(knownKeys: Uint8Array[], keySlot: Int32Array, dropMasks: Int32Array,
//                         completeCats: Uint8Array[], completeModes: Int32Array, phases: Uint8Array[],
//                         phaseModes: Int32Array, defaults: Int32Array, io: Float64Array, ranges: Int32Array)
//   .setColumns(columns: (Int32Array|Float64Array|undefined)[], in COLUMN_SLOTS order)
//   .run(bytes, p, end, n, cap, base, hasOrigin, origin, prescan) → status
//   .prescan(bytes) → handle (−1: no slot free)     .release(handle)     .idle()
//   .readFile(fd, ring, chunkSize) → bool     .next() → ring index | −1 end | −2 error     .stopReading()
//   .errorText(errno)
//   .addLabel(bytes, s, e, id)  .addArgs(id)

#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) != napi_ok) {                                         \
      napi_throw_error(env, nullptr, "native event reader: " #call); \
      return nullptr;                                                \
    }                                                                \
  } while (0)

// A typed array's elements and length; of the element type `want` when one is given (the table
// kernels check theirs; the reader's arrays are made by its JavaScript side).
template <typename T>
bool typedArray(napi_env env, napi_value v, T** data, size_t* length, int want = -1) {
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) return false;
  napi_typedarray_type type;
  void* d = nullptr;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &type, length, &d, &ab, &off) != napi_ok) return false;
  if (want >= 0 && type != static_cast<napi_typedarray_type>(want)) return false;
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

// The byte strings of a JavaScript array of Uint8Arrays.
std::vector<std::string> byteStrings(napi_env env, napi_value arr) {
  std::vector<std::string> out;
  uint32_t n = 0;
  napi_get_array_length(env, arr, &n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value k;
    napi_get_element(env, arr, i, &k);
    uint8_t* d = nullptr;
    size_t len = 0;
    if (!typedArray(env, k, &d, &len)) len = 0;
    out.emplace_back(reinterpret_cast<const char*>(d), len);
  }
  return out;
}

// new NativeEventReader(knownKeys, keySlot, dropMasks, completeCats, completeModes, phases,
//                       phaseModes, defaults, io, ranges)
napi_value Construct(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  napi_value thisArg;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &thisArg, nullptr));
  if (argc < 10) {
    napi_throw_type_error(env, nullptr, "native event reader: 10 arguments expected");
    return nullptr;
  }
  auto* r = new EventReader();
  ReadConfig& cfg = r->cfg;
  cfg.known.keys = byteStrings(env, argv[0]);
  std::vector<std::string> completeCats = byteStrings(env, argv[3]);
  std::vector<std::string> phases = byteStrings(env, argv[5]);
  int32_t *slots = nullptr, *masks = nullptr, *completeModes = nullptr, *phaseModes = nullptr, *defaults = nullptr;
  size_t ns = 0, nm = 0, nc = 0, np = 0, nd = 0, nio = 0;
  if (!typedArray(env, argv[1], &slots, &ns) || !typedArray(env, argv[2], &masks, &nm) || !typedArray(env, argv[4], &completeModes, &nc) ||
      !typedArray(env, argv[6], &phaseModes, &np) || !typedArray(env, argv[7], &defaults, &nd) || !typedArray(env, argv[8], &r->io, &nio) ||
      !typedArray(env, argv[9], &r->ranges, &r->rangesCap) || nio < IO_SIZE || ns < cfg.known.keys.size() || cfg.known.keys.size() > 31 ||
      nc != completeCats.size() || np != phases.size() || nd < 2) {
    delete r;
    napi_throw_type_error(env, nullptr, "native event reader: bad arguments");
    return nullptr;
  }
  cfg.known.slot.assign(slots, slots + cfg.known.keys.size());
  cfg.known.index();
  for (size_t i = 0; i < nm; i++) cfg.dropMask.push_back(static_cast<uint32_t>(masks[i]));
  for (size_t i = 0; i < nc; i++) cfg.completeModes.emplace_back(completeCats[i], completeModes[i]);
  for (size_t i = 0; i < np; i++) cfg.phaseModes.emplace_back(phases[i], phaseModes[i]);
  cfg.completeDefault = defaults[0];
  cfg.phaseDefault = defaults[1];
  // Every mode is MODE_SKIP or names a drop mask.
  bool modesOk = cfg.completeDefault >= MODE_SKIP && cfg.completeDefault < static_cast<int>(nm) && cfg.phaseDefault >= MODE_SKIP &&
                 cfg.phaseDefault < static_cast<int>(nm);
  for (const auto* table : {&cfg.completeModes, &cfg.phaseModes})
    for (const auto& m : *table) modesOk = modesOk && m.second >= MODE_SKIP && m.second < static_cast<int>(nm);
  if (!modesOk) {
    delete r;
    napi_throw_type_error(env, nullptr, "native event reader: an args mode without its drop mask");
    return nullptr;
  }
  // The io and ranges arrays are held by the JavaScript side for as long as the reader lives.
  CHECK(napi_wrap(env, thisArg, r, [](napi_env, void* d, void*) { delete static_cast<EventReader*>(d); }, nullptr, nullptr));
  return thisArg;
}

napi_value SetColumns(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  EventReader* r = self(env, info, &argc, argv);
  if (r == nullptr || argc < 1) return nullptr;
  Columns col;
  for (uint32_t i = 0; i < COLUMN_COUNT; i++) {
    const ColumnSlot& c = COLUMN_SLOTS[i];
    napi_value v;
    size_t len;
    napi_get_element(env, argv[0], i, &v);
    bool ok = c.i32 != nullptr ? typedArray(env, v, &(col.*c.i32), &len, c.type) : typedArray(env, v, &(col.*c.f64), &len, c.type);
    if (!ok && !c.optional) {
      napi_throw_type_error(env, nullptr, "native event reader: setColumns(columns in EVENT_COLUMNS order, of their types)");
      return nullptr;
    }
  }
  r->col = col;
  return nullptr;
}

napi_value Run(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
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
  Prescan* pre = argc >= 9 ? r->take(number(env, argv[8]), bytes, end) : nullptr;
  int status = r->run(bytes, p, end, static_cast<int>(number(env, argv[3])), static_cast<int>(number(env, argv[4])), number(env, argv[5]), hasOrigin,
                      number(env, argv[7]), pre);
  napi_value out;
  CHECK(napi_create_int32(env, status, &out));
  return out;
}

napi_value PrescanChunk(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  EventReader* r = self(env, info, &argc, argv);
  uint8_t* bytes = nullptr;
  size_t len = 0;
  if (r == nullptr || argc < 1 || !typedArray(env, argv[0], &bytes, &len)) {
    napi_throw_type_error(env, nullptr, "native event reader: prescan(bytes)");
    return nullptr;
  }
  double handle = r->queue(bytes, len);
  if (handle >= 0) CHECK(napi_create_reference(env, argv[0], 1, &r->prescans[static_cast<uint64_t>(handle) % PRESCAN_SLOTS].pin));
  napi_value out;
  CHECK(napi_create_double(env, handle, &out));
  return out;
}

// readFile(fd, ring: Uint8Array[], chunkSize) → whether the reader reads the file.
napi_value ReadFile(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  EventReader* r = self(env, info, &argc, argv);
  if (r == nullptr || argc < 3) return nullptr;
  uint32_t n = 0;
  napi_get_array_length(env, argv[1], &n);
  std::vector<uint8_t*> ring;
  std::vector<napi_value> buffers;  // pinned below when the reader takes the file
  size_t chunk = static_cast<size_t>(number(env, argv[2]));
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    napi_get_element(env, argv[1], i, &v);
    uint8_t* d = nullptr;
    size_t len = 0;
    if (!typedArray(env, v, &d, &len) || len < chunk) {
      napi_throw_type_error(env, nullptr, "native event reader: readFile(fd, ring, chunkSize)");
      return nullptr;
    }
    ring.push_back(d);
    buffers.push_back(v);
  }
  r->stopReading();
  for (napi_ref pin : r->ringPins) napi_delete_reference(env, pin);
  r->ringPins.clear();
  bool ok = r->readFile(static_cast<int>(number(env, argv[0])), ring, chunk);
  if (ok) {
    for (napi_value v : buffers) {
      napi_ref pin;
      napi_create_reference(env, v, 1, &pin);
      r->ringPins.push_back(pin);
    }
  }
  napi_value out;
  CHECK(napi_get_boolean(env, ok, &out));
  return out;
}

napi_value Next(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  EventReader* r = self(env, info, &argc, nullptr);
  if (r == nullptr) return nullptr;
  napi_value out;
  CHECK(napi_create_int32(env, r->next(), &out));
  return out;
}

// stopReading(): before the file is closed.
napi_value StopReading(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  EventReader* r = self(env, info, &argc, nullptr);
  if (r == nullptr) return nullptr;
  r->stopReading();
  for (napi_ref pin : r->ringPins) napi_delete_reference(env, pin);
  r->ringPins.clear();
  return nullptr;
}

// errorText(errno) → the system's text for it.
napi_value ErrorText(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  int err = argc >= 1 ? static_cast<int>(number(env, argv[0])) : 0;
  napi_value out;
  CHECK(napi_create_string_utf8(env, std::strerror(err), NAPI_AUTO_LENGTH, &out));
  return out;
}

napi_value Release(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  EventReader* r = self(env, info, &argc, argv);
  if (r == nullptr || argc < 1) return nullptr;
  napi_ref pin = r->release(number(env, argv[0]));
  if (pin != nullptr) napi_delete_reference(env, pin);
  return nullptr;
}

napi_value Idle(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  EventReader* r = self(env, info, &argc, nullptr);
  if (r != nullptr) r->idle();
  return nullptr;
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


// ---------------------------------------------------------------------------------------------
// The table kernels (table-kernels.h), module functions:
//   mergeRuns(order: Int32Array, bounds: Int32Array, startNs: Float64Array, durNs: Float64Array,
//             endDescending: boolean)
//   nest(order: Int32Array, thread: Int32Array, startNs: Float64Array, durNs: Float64Array,
//        parent: Int32Array, depth: Int32Array, firstChild: Int32Array, nextSibling: Int32Array,
//        out: Float64Array)          out[0] = partial, out[1] = latestEndNs
//   firstRowWithId(kind: Uint8Array, ids: Float64Array, want: number, named: Float64Array,
//                  out: Int32Array)
// Every index is checked against the table before any is followed: a bad call throws.

// Whether every row of order[0, n) is below rows.
bool rowsBelow(const int32_t* order, size_t n, size_t rows) {
  for (size_t k = 0; k < n; k++)
    if (order[k] < 0 || static_cast<size_t>(order[k]) >= rows) return false;
  return true;
}

napi_value MergeRuns(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  int32_t *order = nullptr, *bounds = nullptr;
  double *s = nullptr, *d = nullptr;
  size_t n = 0, nb = 0, ns = 0, nd = 0;
  bool endDesc = false;
  bool ok = argc == 5 && typedArray(env, argv[0], &order, &n, napi_int32_array) && typedArray(env, argv[1], &bounds, &nb, napi_int32_array) &&
            typedArray(env, argv[2], &s, &ns, napi_float64_array) && typedArray(env, argv[3], &d, &nd, napi_float64_array) &&
            napi_get_value_bool(env, argv[4], &endDesc) == napi_ok && nd >= ns && rowsBelow(order, n, ns);
  for (size_t k = 0; ok && k < nb; k++) ok = bounds[k] >= 0 && static_cast<size_t>(bounds[k]) <= n && (k == 0 || bounds[k] >= bounds[k - 1]);
  if (!ok) {
    napi_throw_type_error(env, nullptr, "table kernels: mergeRuns(order, bounds, startNs, durNs, endDescending)");
    return nullptr;
  }
  mergeRuns(order, std::vector<int32_t>(bounds, bounds + nb), s, d, endDesc);
  return nullptr;
}

napi_value FirstRowWithId(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  uint8_t* kind = nullptr;
  double *ids = nullptr, *named = nullptr;
  int32_t* out = nullptr;
  size_t nk = 0, ni = 0, nn = 0, no = 0;
  uint32_t want = 0;
  bool ok = argc == 5 && typedArray(env, argv[0], &kind, &nk, napi_uint8_array) && typedArray(env, argv[1], &ids, &ni, napi_float64_array) &&
            napi_get_value_uint32(env, argv[2], &want) == napi_ok && want <= 255 && typedArray(env, argv[3], &named, &nn, napi_float64_array) &&
            typedArray(env, argv[4], &out, &no, napi_int32_array) && no >= nn;
  if (!ok) {
    napi_throw_type_error(env, nullptr, "table kernels: firstRowWithId(kind, ids, want, named, out)");
    return nullptr;
  }
  firstRowWithId(kind, ids, nk < ni ? nk : ni, static_cast<uint8_t>(want), named, nn, out);
  return nullptr;
}

napi_value Nest(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  int32_t *order = nullptr, *thread = nullptr, *parent = nullptr, *depth = nullptr, *firstChild = nullptr, *nextSibling = nullptr;
  double *s = nullptr, *d = nullptr, *out = nullptr;
  size_t n = 0, nt = 0, ns = 0, nd = 0, np = 0, ndp = 0, nf = 0, nn = 0, no = 0;
  bool ok = argc == 9 && typedArray(env, argv[0], &order, &n, napi_int32_array) && typedArray(env, argv[1], &thread, &nt, napi_int32_array) &&
            typedArray(env, argv[2], &s, &ns, napi_float64_array) && typedArray(env, argv[3], &d, &nd, napi_float64_array) &&
            typedArray(env, argv[4], &parent, &np, napi_int32_array) && typedArray(env, argv[5], &depth, &ndp, napi_int32_array) &&
            typedArray(env, argv[6], &firstChild, &nf, napi_int32_array) && typedArray(env, argv[7], &nextSibling, &nn, napi_int32_array) &&
            typedArray(env, argv[8], &out, &no, napi_float64_array) && no >= 2;
  // The table's rows: every column at least as long as the start column.
  ok = ok && nt >= ns && nd >= ns && np >= ns && ndp >= ns && nf >= ns && nn >= ns && rowsBelow(order, n, ns);
  if (!ok) {
    napi_throw_type_error(env, nullptr, "table kernels: nest(order, thread, startNs, durNs, parent, depth, firstChild, nextSibling, out)");
    return nullptr;
  }
  NestCounts c = nest(order, n, thread, s, d, parent, depth, firstChild, nextSibling);
  out[0] = c.partial;
  out[1] = c.latestEndNs;
  return nullptr;
}

}  // namespace
}  // namespace kinetoscope

NAPI_MODULE_INIT() {
  using namespace kinetoscope;
  napi_property_descriptor methods[] = {
      {"setColumns", nullptr, SetColumns, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"run", nullptr, Run, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"prescan", nullptr, PrescanChunk, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"release", nullptr, Release, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"idle", nullptr, Idle, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"readFile", nullptr, ReadFile, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"next", nullptr, Next, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"stopReading", nullptr, StopReading, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"errorText", nullptr, ErrorText, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"addLabel", nullptr, AddLabel, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"addArgs", nullptr, AddArgs, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_value cls;
  if (napi_define_class(env, "NativeEventReader", NAPI_AUTO_LENGTH, Construct, nullptr, 11, methods, &cls) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, "NativeEventReader", cls) != napi_ok) return nullptr;
  napi_property_descriptor kernels[] = {
      {"mergeRuns", nullptr, MergeRuns, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"nest", nullptr, Nest, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"firstRowWithId", nullptr, FirstRowWithId, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  if (napi_define_properties(env, exports, 3, kernels) != napi_ok) return nullptr;
  // eventColumns: [{name, type: 'Int32Array' | 'Float64Array', width, optional}], the order setColumns takes.
  napi_value list;
  if (napi_create_array_with_length(env, COLUMN_COUNT, &list) != napi_ok) return nullptr;
  for (uint32_t i = 0; i < COLUMN_COUNT; i++) {
    const ColumnSlot& c = COLUMN_SLOTS[i];
    napi_value o, name, type, width, optional;
    if (napi_create_object(env, &o) != napi_ok || napi_create_string_utf8(env, c.name, NAPI_AUTO_LENGTH, &name) != napi_ok ||
        napi_create_string_utf8(env, c.type == napi_int32_array ? "Int32Array" : "Float64Array", NAPI_AUTO_LENGTH, &type) != napi_ok ||
        napi_create_int32(env, c.width, &width) != napi_ok || napi_get_boolean(env, c.optional, &optional) != napi_ok ||
        napi_set_named_property(env, o, "name", name) != napi_ok || napi_set_named_property(env, o, "type", type) != napi_ok ||
        napi_set_named_property(env, o, "width", width) != napi_ok || napi_set_named_property(env, o, "optional", optional) != napi_ok ||
        napi_set_element(env, list, i, o) != napi_ok)
      return nullptr;
  }
  if (napi_set_named_property(env, exports, "eventColumns", list) != napi_ok) return nullptr;
  return exports;
}
