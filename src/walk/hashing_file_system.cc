#include "walk/hashing_file_system.h"

#include <algorithm>
#include <vector>

#include "base/ascii.h"
#include "base/hash.h"
#include "neardup/quote.h"

namespace neardup {

namespace {

// Reads through `inner`, hashing every byte and counting newlines into
// `slot`; first skips (and checks) the slot's prefix.
class HashingReader : public ByteReader {
 public:
  HashingReader(std::unique_ptr<ByteReader> inner, RawRead* slot, std::string path)
      : inner_(std::move(inner)), slot_(slot), path_(std::move(path)) {
    *slot_ = RawRead{.skip = slot->skip, .prefix_hash = slot->prefix_hash};
    hasher_.Reset(0);
  }
  Result<size_t> Read(char* buf, size_t n) override {
    while (slot_->bytes < slot_->skip) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(n, slot_->skip - slot_->bytes));
      Result<size_t> got = inner_->Read(buf, want);
      if (!got.ok()) return got;
      if (*got == 0) return Status::Changed(ShellQuoted(path_) + ": changed during the run");
      Take(buf, *got);
      if (slot_->bytes == slot_->skip && hasher_.Digest() != slot_->prefix_hash) {
        return Status::Changed(ShellQuoted(path_) + ": changed during the run");
      }
    }
    Result<size_t> got = inner_->Read(buf, n);
    if (!got.ok()) return got;
    if (*got == 0) {
      slot_->done = true;
      slot_->hash = hasher_.Digest();
    }
    Take(buf, *got);
    return got;
  }
  // Past the prefix still to be skipped: what is read ahead is hashed when
  // Read() returns it.
  bool CanReadAhead() const override { return inner_->CanReadAhead(); }
  Result<size_t> ReadAhead(uint64_t ahead, char* buf, size_t n) override {
    const uint64_t prefix = slot_->bytes < slot_->skip ? slot_->skip - slot_->bytes : 0;
    return inner_->ReadAhead(prefix + ahead, buf, n);
  }

 private:
  void Take(const char* buf, size_t n) {
    if (n == 0) return;
    hasher_.Update(buf, n);
    slot_->bytes += n;
    slot_->newlines += CountByte(buf, n, '\n');
    slot_->last = buf[n - 1];
  }
  std::unique_ptr<ByteReader> inner_;
  RawRead* slot_;
  std::string path_;
  Hasher64 hasher_;
};

}  // namespace

Result<std::unique_ptr<ByteReader>> HashingFileSystem::OpenExpected(const std::string& path,
                                                                    const FileIdentity& expected) {
  Result<std::unique_ptr<ByteReader>> r = inner_.OpenExpected(path, expected);
  if (!r.ok() || expected.stream) return r;
  const auto it = slots_.find(Key{expected.dev, expected.ino});
  if (it == slots_.end()) return r;
  return std::unique_ptr<ByteReader>(std::make_unique<HashingReader>(std::move(*r), &it->second, path));
}

std::optional<uint64_t> HashOfFirstBytes(ByteReader& reader, uint64_t n) {
  Hasher64 h;
  h.Reset(0);
  std::vector<char> buf(1 << 16);
  for (uint64_t left = n; left > 0;) {
    Result<size_t> got = reader.Read(buf.data(), static_cast<size_t>(std::min<uint64_t>(left, buf.size())));
    if (!got.ok() || *got == 0) return std::nullopt;
    h.Update(buf.data(), *got);
    left -= *got;
  }
  return h.Digest();
}

std::optional<uint64_t> HashOfAllBytes(ByteReader& reader, uint64_t size) {
  Hasher64 h;
  h.Reset(0);
  std::vector<char> buf(1 << 16);
  uint64_t bytes = 0;
  for (;;) {
    Result<size_t> got = reader.Read(buf.data(), buf.size());
    if (!got.ok()) return std::nullopt;
    if (*got == 0) break;
    bytes += *got;
    if (bytes > size) return std::nullopt;
    h.Update(buf.data(), *got);
  }
  if (bytes != size) return std::nullopt;
  return h.Digest();
}

}  // namespace neardup
