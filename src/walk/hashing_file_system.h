// HashingFileSystem: a FileSystem that hashes (XXH3-64, seed 0) the bytes
// of chosen files as they are read through it, so that what was signed can
// be proven again later by the bytes alone, whatever the file's stat says
// (metadata is not content: chmod, touch and hard links change the stat of
// a file whose bytes are the same). The index keeps each file's hash
// (IndexedFile::raw_hash); a stage sign task each file of its share's
// (ShardMeta::seen).
//
// A file's slot is made before it is read; a reader of it then fills the
// slot as it reads: every byte hashed, newlines counted, and whether it was
// read to its end. A slot may ask for a prefix to be skipped and checked
// first (a JSONL file that grew: its old bytes must hash as stored).
// Slots are found by the file's identity (device and inode), which a walk
// gives one path (walk.h): a few integers hashed per file, where its path
// as a key cost a copy and a string hash (a sign task's 100k files: 25 ms
// to make the slots, 20 to look them up again).
//
// Thread safety: the slots are made before reading starts; each file is
// read by one thread at a time, which alone writes its slot. Otherwise as
// the FileSystem it wraps.
//
//   HashingFileSystem hashing(fs);
//   hashing.Slot(file);                         // before reading
//   ... read file.path through `hashing` (OpenExpected, file.identity) ...
//   if (const RawRead* r = hashing.Find(file); r != nullptr && r->done) Use(r->hash);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/hash.h"
#include "base/types.h"
#include "walk/file_system.h"

namespace neardup {

// What a file's bytes were, as a reader read them.
struct RawRead {
  uint64_t skip = 0;         // bytes to skip and check first (a file that grew)
  uint64_t prefix_hash = 0;  // their hash, checked as they are skipped
  bool done = false;         // read to the end
  uint64_t bytes = 0;
  uint64_t newlines = 0;
  char last = '\n';
  uint64_t hash = 0;  // of all `bytes` (the skipped ones too), once done
};

class HashingFileSystem : public FileSystem {
 public:
  // Borrows `inner`, which must outlive it.
  explicit HashingFileSystem(FileSystem& inner) : inner_(inner) {}
  // Room for `n` more slots, made at once.
  void Reserve(size_t n) { slots_.reserve(slots_.size() + n); }
  // The slot of `file` (not a stream), made when it has none.
  RawRead& Slot(const InputFile& file) { return slots_[Key{file.identity.dev, file.identity.ino}]; }
  // The slot of `file`; nullptr when it has none.
  const RawRead* Find(const InputFile& file) const {
    const auto it = slots_.find(Key{file.identity.dev, file.identity.ino});
    return it == slots_.end() ? nullptr : &it->second;
  }

  Result<std::unique_ptr<ByteReader>> Open(const std::string& path) override { return inner_.Open(path); }
  // A file with a slot is hashed into it as it is read: a prefix to skip
  // that ends early or hashes otherwise fails the read with Changed
  // ("PATH: changed during the run").
  Result<std::unique_ptr<ByteReader>> OpenExpected(const std::string& path, const FileIdentity& expected) override;
  Result<FileStat> Stat(const std::string& path) override { return inner_.Stat(path); }
  std::pair<uint64_t, uint64_t> Range(const std::string& path, uint64_t size) override {
    return inner_.Range(path, size);
  }
  bool WantsAllBytes(const std::string& path, const FileIdentity& expected) override {
    return (!expected.stream && slots_.contains(Key{expected.dev, expected.ino})) ||
           inner_.WantsAllBytes(path, expected);
  }

 private:
  struct Key {
    uint64_t dev = 0;
    uint64_t ino = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return static_cast<size_t>(Mix64(k.dev * 0x9E3779B97F4A7C15ull ^ k.ino)); }
  };
  FileSystem& inner_;
  std::unordered_map<Key, RawRead, KeyHash> slots_;
};

// XXH3-64 of the first `n` bytes `reader` gives; nullopt when fewer can be
// read, or an error.
std::optional<uint64_t> HashOfFirstBytes(ByteReader& reader, uint64_t n);
// XXH3-64 of every byte `reader` gives, to its end, when there are exactly
// `size` of them; nullopt otherwise, or on an error.
std::optional<uint64_t> HashOfAllBytes(ByteReader& reader, uint64_t size);

}  // namespace neardup
