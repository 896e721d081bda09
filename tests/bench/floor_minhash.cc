// floor_minhash: the floor scripts/bench.sh measures neardup against. A
// minimal classic MinHash pass over the same bytes, with nothing else done:
// ASCII words (maximal runs of [A-Za-z0-9], lowercased; found 64 bytes at a
// time with AVX-512 masks when the processor has them, else 32 with AVX2),
// XXH3 per word, word
// 5-shingles (the 5 word hashes combined; a document of fewer words is one
// shingle of them all), 128 32-bit minima of (a_i * x + b_i) mod 2^32 over
// the shingles x (AVX-512 or AVX2 when the processor has it, else the
// baseline's vectors). No JSON,
// no Unicode, no banding, no output but a checksum of the signatures, so the
// work cannot be optimized away.
//
//   build/floor_minhash -t 2 corpus.jsonl        # one document per line, mmap
//   find DIR -type f -print0 | build/floor_minhash -t 2 --files   # one per file
//
// -t T: T threads; a file is split into T ranges at newlines, a list of files
// into T interleaved shares. --mix: each value mixed before its minimum is
// taken, as neardup's signatures are (the floor of neardup's own definition;
// other minima, so another checksum). --keep: every signature is also kept
// in memory until its thread's share is signed (512 bytes a document, in
// fresh 1 MiB blocks of each thread's own, never copied), as any tool that
// bands them afterwards must hold them: the floor of signing plus holding
// the signatures. Prints
// "docs N checksum X" (X does not depend on T).
#include <fcntl.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace {

constexpr int kPerm = 128;
uint32_t g_a[kPerm];
uint32_t g_b[kPerm];

// Folds the shingles x[0, n) into the 128 minima sig: vectors of V's lanes
// (vpmulld, vpaddd, vpminud). 8 vectors of 16 lanes compiled for AVX-512
// (zmm registers) and for the baseline; 16 vectors of 8 lanes for AVX2 (ymm
// registers: 16-lane vectors there are split through the stack), 4 of them
// at a time over every shingle (16 registers cannot hold 16 vectors of
// minima and their a and b), as neardup's kernel has one for each. With kMix, each value is mixed as
// neardup's signatures are (v ^ (v >> 16), see src/sign/minhash_kernel.h)
// before its minimum is taken: two vector operations more per vector of
// minima (vpsrld, vpxor), the least work that neardup's own signatures take.
typedef uint32_t Lanes16 __attribute__((vector_size(64)));
typedef uint32_t Lanes8 __attribute__((vector_size(32)));
template <typename V, bool kMix>
[[gnu::always_inline]] inline void MinimaBody(const uint32_t* x, size_t n, uint32_t* sig) {
  constexpr int kVectors = kPerm * 4 / static_cast<int>(sizeof(V));
  V a[kVectors], b[kVectors], m[kVectors];
  std::memcpy(a, g_a, sizeof a);
  std::memcpy(b, g_b, sizeof b);
  std::memcpy(m, sig, sizeof m);
  if constexpr (kVectors <= 8) {  // a, b and m of every vector fit in the registers
    for (size_t s = 0; s < n; ++s) {
      for (int k = 0; k < kVectors; ++k) {
        V v = a[k] * x[s] + b[k];
        if constexpr (kMix) v ^= v >> 16;
        m[k] = v < m[k] ? v : m[k];
      }
    }
  } else {  // 16 ymm registers: 4 vectors of minima at a time over every shingle
    for (int k0 = 0; k0 < kVectors; k0 += 4) {
      for (size_t s = 0; s < n; ++s) {
        for (int k = k0; k < k0 + 4; ++k) {
          V v = a[k] * x[s] + b[k];
          if constexpr (kMix) v ^= v >> 16;
          m[k] = v < m[k] ? v : m[k];
        }
      }
    }
  }
  std::memcpy(sig, m, sizeof m);
}
// (As src/sign/minhash.cc: not under clang, nor under AddressSanitizer,
// whose start-up the loader's resolver would run before.)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define NEARDUP_FLOOR_CLONES 1
__attribute__((target_clones("avx512f", "default")))
#endif
void MinimaPlain(const uint32_t* x, size_t n, uint32_t* sig) {
  MinimaBody<Lanes16, false>(x, n, sig);
}
#if defined(NEARDUP_FLOOR_CLONES)
__attribute__((target_clones("avx512f", "default")))
#endif
void MinimaMixed(const uint32_t* x, size_t n, uint32_t* sig) {
  MinimaBody<Lanes16, true>(x, n, sig);
}
#if defined(NEARDUP_FLOOR_CLONES)
__attribute__((target("avx2"))) void MinimaPlainAvx2(const uint32_t* x, size_t n, uint32_t* sig) {
  MinimaBody<Lanes8, false>(x, n, sig);
}
__attribute__((target("avx2"))) void MinimaMixedAvx2(const uint32_t* x, size_t n, uint32_t* sig) {
  MinimaBody<Lanes8, true>(x, n, sig);
}
// The AVX2 kernels where the processor has AVX2 but not AVX-512.
const bool kMinimaAvx2 = __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("avx512f") == 0;
#endif
bool g_mix = false;   // --mix
bool g_keep = false;  // --keep
void Minima(const uint32_t* x, size_t n, uint32_t* sig) {
#if defined(NEARDUP_FLOOR_CLONES)
  if (kMinimaAvx2) {
    (g_mix ? MinimaMixedAvx2 : MinimaPlainAvx2)(x, n, sig);
    return;
  }
#endif
  if (g_mix) {
    MinimaMixed(x, n, sig);
  } else {
    MinimaPlain(x, n, sig);
  }
}

// A document's words: word i is lower[start[i], end[i]), lower being the
// document with its letters lowercased. Each pass fills all three and returns
// the word count. REQUIRES: start and end hold len / 2 + 1 entries, lower len + 64.
#if defined(__x86_64__) && defined(__GNUC__)
// 64 bytes a step: [A-Za-z0-9] as a mask (two unsigned range compares), the
// letters or'ed with 0x20 (a blend) in one store, word starts and ends as the
// mask's rising and falling edges, read off with tzcnt.
__attribute__((target("avx512f,avx512bw,bmi"))) size_t WordsAvx512(const unsigned char* p, size_t len,
                                                                   unsigned char* lower, uint32_t* start,
                                                                   uint32_t* end) {
  const __m512i a = _mm512_set1_epi8('a'), zero = _mm512_set1_epi8('0');
  const __m512i k25 = _mm512_set1_epi8(25), k9 = _mm512_set1_epi8(9), k20 = _mm512_set1_epi8(0x20);
  size_t starts = 0, ends = 0;
  uint64_t carry = 0;  // 1 if the byte before this block is a word byte
  for (size_t off = 0; off < len; off += 64) {
    const size_t left = len - off;
    const __mmask64 valid = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    const __m512i v = _mm512_maskz_loadu_epi8(valid, p + off);
    const __m512i folded = _mm512_or_si512(v, k20);
    const __mmask64 alpha = _mm512_cmple_epu8_mask(_mm512_sub_epi8(folded, a), k25);
    const __mmask64 digit = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, zero), k9);
    const uint64_t word = static_cast<uint64_t>(alpha | digit);
    _mm512_storeu_si512(lower + off, _mm512_mask_blend_epi8(alpha, v, folded));
    const uint64_t before = (word << 1) | carry;
    carry = word >> 63;
    for (uint64_t m = word & ~before; m != 0; m &= m - 1)
      start[starts++] = static_cast<uint32_t>(off + __builtin_ctzll(m));
    for (uint64_t m = ~word & before; m != 0; m &= m - 1) end[ends++] = static_cast<uint32_t>(off + __builtin_ctzll(m));
  }
  if (ends < starts) end[ends++] = static_cast<uint32_t>(len);  // a word up to a 64-byte boundary at len
  return starts;
}

// The same, 32 bytes a step with AVX2: the unsigned range compares as
// min(x, limit) == x, the masks read off with vpmovmskb.
__attribute__((target("avx2,bmi"))) size_t WordsAvx2(const unsigned char* p, size_t len, unsigned char* lower,
                                                     uint32_t* start, uint32_t* end) {
  const __m256i a = _mm256_set1_epi8('a'), zero = _mm256_set1_epi8('0');
  const __m256i k25 = _mm256_set1_epi8(25), k9 = _mm256_set1_epi8(9), k20 = _mm256_set1_epi8(0x20);
  size_t starts = 0, ends = 0;
  uint32_t carry = 0;  // 1 if the byte before this block is a word byte
  unsigned char tail[32];
  for (size_t off = 0; off < len; off += 32) {
    const size_t left = len - off;
    const unsigned char* at = p + off;
    if (left < 32) {  // the last bytes, zero-padded: a zero is no word byte
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail, at, left);
      at = tail;
    }
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    const __m256i folded = _mm256_or_si256(v, k20);
    const __m256i fa = _mm256_sub_epi8(folded, a), vd = _mm256_sub_epi8(v, zero);
    const __m256i alpha = _mm256_cmpeq_epi8(_mm256_min_epu8(fa, k25), fa);
    const __m256i digit = _mm256_cmpeq_epi8(_mm256_min_epu8(vd, k9), vd);
    const uint32_t valid = left >= 32 ? ~uint32_t{0} : (uint32_t{1} << left) - 1;
    const uint32_t word = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_or_si256(alpha, digit))) & valid;
    const __m256i out = _mm256_blendv_epi8(v, folded, alpha);
    if (left >= 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(lower + off), out);
    } else {
      std::memcpy(lower + off, &out, left);
    }
    const uint32_t before = (word << 1) | carry;
    carry = word >> 31;
    for (uint32_t m = word & ~before; m != 0; m &= m - 1)
      start[starts++] = static_cast<uint32_t>(off + static_cast<size_t>(__builtin_ctz(m)));
    for (uint32_t m = ~word & before; m != 0; m &= m - 1)
      end[ends++] = static_cast<uint32_t>(off + static_cast<size_t>(__builtin_ctz(m)));
  }
  if (ends < starts) end[ends++] = static_cast<uint32_t>(len);  // a word up to a 32-byte boundary at len
  return starts;
}
#endif

// The same, a byte at a time through a table (c lowercased if in [A-Za-z0-9], else 0).
struct LowerTable {
  unsigned char v[256] = {};
  LowerTable() {
    for (int c = '0'; c <= '9'; ++c) v[c] = static_cast<unsigned char>(c);
    for (int c = 'a'; c <= 'z'; ++c) v[c] = v[c - 'a' + 'A'] = static_cast<unsigned char>(c);
  }
};
const LowerTable kLower;
size_t WordsScalar(const unsigned char* p, size_t len, unsigned char* lower, uint32_t* start, uint32_t* end) {
  size_t words = 0;
  bool in_word = false;
  for (size_t i = 0; i < len; ++i) {
    const unsigned char c = kLower.v[p[i]];
    lower[i] = c;
    if ((c != 0) != in_word) {
      (in_word ? end : start)[words] = static_cast<uint32_t>(i);
      words += in_word ? 1 : 0;
      in_word = !in_word;
    }
  }
  if (in_word) end[words++] = static_cast<uint32_t>(len);
  return words;
}

#if defined(__x86_64__) && defined(__GNUC__)
const bool kAvx512 = __builtin_cpu_supports("avx512bw") != 0;
const bool kAvx2 = __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("bmi") != 0;
#endif
size_t Words(const unsigned char* p, size_t len, unsigned char* lower, uint32_t* start, uint32_t* end) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (kAvx512) return WordsAvx512(p, len, lower, start, end);
  if (kAvx2) return WordsAvx2(p, len, lower, start, end);
#endif
  return WordsScalar(p, len, lower, start, end);
}

uint32_t Combine(const uint64_t* h, int n) {
  uint64_t x = 0;
  for (int i = 0; i < n; ++i) x = (x ^ h[i]) * 0x9E3779B97F4A7C15ULL;
  return static_cast<uint32_t>(x >> 32);
}

// shingle[i] = Combine(h + i, 5) for i < n, 8 at a time (vpmullq) with AVX-512.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void Shingles(const uint64_t* h, size_t n, uint32_t* shingle) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = 0;
    for (size_t k = 0; k < 5; ++k) x = (x ^ h[i + k]) * 0x9E3779B97F4A7C15ULL;
    shingle[i] = static_cast<uint32_t>(x >> 32);
  }
}

// Signs one document; returns the hash of its signature (0 if it has no word).
// A long document is taken in chunks of about kChunk bytes, cut after a word,
// so that its buffers stay small; the last 4 word hashes of a chunk start
// the next one's shingles.
struct Signer {
  static constexpr size_t kChunk = size_t{1} << 16;
  static constexpr size_t kKeptPerBlock = 2048;  // signatures: 1 MiB
  // With --keep: the blocks of signatures kept, the last one being filled.
  std::vector<std::unique_ptr<uint32_t[]>> kept;
  size_t kept_in_last = kKeptPerBlock;
  void Keep(const uint32_t* sig) {
    if (kept_in_last == kKeptPerBlock) {
      kept.emplace_back(new uint32_t[kKeptPerBlock * kPerm]);  // not zeroed: written once
      kept_in_last = 0;
    }
    std::memcpy(kept.back().get() + kept_in_last * kPerm, sig, kPerm * sizeof(uint32_t));
    ++kept_in_last;
  }
  std::vector<unsigned char> lower;
  std::vector<uint32_t> start, end, shingles;
  std::vector<uint64_t> hashes;  // the carried hashes, then the chunk's
  uint64_t SignDoc(const unsigned char* p, size_t len) {
    alignas(64) uint32_t sig[kPerm];
    std::memset(sig, 0xFF, sizeof sig);
    size_t words = 0, carried = 0;
    for (size_t off = 0; off < len;) {
      size_t stop = len - off > kChunk ? off + kChunk : len;
      while (stop < len && kLower.v[p[stop]] != 0) ++stop;  // not inside a word
      const size_t n = stop - off;
      if (lower.size() < n + 64) {
        lower.resize(n + 64);
        start.resize(n / 2 + 1);
        end.resize(n / 2 + 1);
        hashes.resize(n / 2 + 5);
        shingles.resize(n / 2 + 1);
      }
      const size_t found = Words(p + off, n, lower.data(), start.data(), end.data());
      for (size_t i = 0; i < found; ++i) {  // a word's first 256 bytes
        const size_t w = end[i] - start[i];
        hashes[carried + i] = XXH3_64bits(lower.data() + start[i], w < 256 ? w : 256);
      }
      words += found;
      const size_t have = carried + found;
      if (have >= 5) {
        Shingles(hashes.data(), have - 4, shingles.data());
        Minima(shingles.data(), have - 4, sig);
      }
      carried = have < 4 ? have : 4;
      std::memmove(hashes.data(), hashes.data() + have - carried, carried * sizeof(uint64_t));
      off = stop;
    }
    if (words == 0) return 0;
    if (words < 5) {
      shingles[0] = Combine(hashes.data(), static_cast<int>(words));
      Minima(shingles.data(), 1, sig);
    }
    if (g_keep) Keep(sig);
    return XXH3_64bits(sig, sizeof sig);
  }
};

struct Totals {
  std::atomic<uint64_t> docs{0};
  std::atomic<uint64_t> checksum{0};
  void Add(uint64_t d, uint64_t c) {
    docs += d;
    checksum += c;
  }
};

// The lines of [begin, end), each a document.
void SignLines(const unsigned char* begin, const unsigned char* end, Totals* totals) {
  Signer signer;
  uint64_t docs = 0, sum = 0;
  while (begin < end) {
    const void* nl = std::memchr(begin, '\n', static_cast<size_t>(end - begin));
    const unsigned char* stop = nl != nullptr ? static_cast<const unsigned char*>(nl) : end;
    sum += signer.SignDoc(begin, static_cast<size_t>(stop - begin));
    ++docs;
    begin = stop + 1;
  }
  totals->Add(docs, sum);
}

// Every threads-th path from first: open, fstat, read, close, sign.
void SignFiles(const std::vector<std::string>* paths, size_t first, size_t threads, Totals* totals) {
  Signer signer;
  std::vector<unsigned char> buf;
  uint64_t docs = 0, sum = 0;
  for (size_t i = first; i < paths->size(); i += threads) {
    const int fd = open((*paths)[i].c_str(), O_RDONLY);
    if (fd < 0) continue;
    struct stat st {};
    if (fstat(fd, &st) == 0) {
      // As many bytes as fstat() gives, so one read() for a small file.
      buf.resize(static_cast<size_t>(st.st_size));
      size_t got = 0;
      ssize_t r = 0;
      while (got < buf.size() && (r = read(fd, buf.data() + got, buf.size() - got)) > 0) got += static_cast<size_t>(r);
      sum += signer.SignDoc(buf.data(), got);
      ++docs;
    }
    close(fd);
  }
  totals->Add(docs, sum);
}

int Usage() {
  std::cerr << "usage: floor_minhash [-t THREADS] [--mix] [--keep] FILE | floor_minhash [-t THREADS] [--mix] [--keep] "
               "--files < "
               "NUL-separated paths\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 1;
  bool files = false;
  const char* input = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-t" && i + 1 < argc) {
      threads = std::strtoul(argv[++i], nullptr, 10);
    } else if (arg == "--files") {
      files = true;
    } else if (arg == "--mix") {
      g_mix = true;
    } else if (arg == "--keep") {
      g_keep = true;
    } else if (input == nullptr && arg[0] != '-') {
      input = argv[i];
    } else {
      return Usage();
    }
  }
  if (threads == 0 || (input == nullptr) != files) return Usage();
  uint64_t state = 0x123456789ABCDEFULL;  // splitmix64: fixed permutations
  for (int i = 0; i < kPerm; ++i) {
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    g_a[i] = static_cast<uint32_t>(z) | 1u;
    g_b[i] = static_cast<uint32_t>(z >> 32);
  }
  Totals totals;
  std::vector<std::thread> pool;
  std::vector<std::string> paths;
  const unsigned char* data = nullptr;
  size_t size = 0;
  if (files) {
    std::string path;
    while (std::getline(std::cin, path, '\0')) paths.push_back(path);
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(SignFiles, &paths, t, threads, &totals);
  } else {
    const int fd = open(input, O_RDONLY);
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0) {
      std::perror(input);
      return 2;
    }
    size = static_cast<size_t>(st.st_size);
    if (size > 0) {
      void* m = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (m == MAP_FAILED) {
        std::perror(input);
        return 2;
      }
      (void)madvise(m, size, MADV_SEQUENTIAL);
      data = static_cast<const unsigned char*>(m);
    }
    close(fd);
    const unsigned char* begin = data;
    const unsigned char* const end = data + size;
    for (size_t t = 0; t < threads && begin < end; ++t) {
      const unsigned char* stop = t + 1 == threads ? end : data + size / threads * (t + 1);
      if (stop < begin) stop = begin;
      while (stop < end && *stop != '\n') ++stop;
      if (stop < end) ++stop;
      pool.emplace_back(SignLines, begin, stop, &totals);
      begin = stop;
    }
  }
  for (auto& t : pool) t.join();
  std::printf("docs %llu checksum %016llx\n", static_cast<unsigned long long>(totals.docs.load()),
              static_cast<unsigned long long>(totals.checksum.load()));
  return 0;
}
