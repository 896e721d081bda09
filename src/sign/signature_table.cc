#include "sign/signature_table.h"

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"

namespace neardup {
namespace {

void PutU8(std::string* out, uint8_t v) { out->push_back(static_cast<char>(v)); }

// Little-endian whatever the host.
template <typename T>
void PutLittle(std::string* out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// The command-line spellings (src/cli/cli_options.cc); a value no enumerator
// names (never made by From()) is shown as its number.
std::string ShingleName(ShingleUnit unit) {
  switch (unit) {
    case ShingleUnit::kWord:
      return "word";
    case ShingleUnit::kChar:
      return "char";
  }
  return std::to_string(static_cast<int>(unit));
}

std::string EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kUtf8:
      return "utf8";
    case Encoding::kLatin1:
      return "latin1";
  }
  return std::to_string(static_cast<int>(encoding));
}

std::string StripName(Strip strip) {
  switch (strip) {
    case Strip::kNone:
      return "none";
    case Strip::kHtml:
      return "html";
    case Strip::kMail:
      return "mail";
  }
  return std::to_string(static_cast<int>(strip));
}

// One field of SignatureParams: its name as shown in a difference, as
// Describe() shows it, and its value as text.
struct Field {
  const char* name;
  const char* short_name;
  std::string value;
};

std::vector<Field> Fields(const SignatureParams& p) {
  return {
      {"--shingle", "--shingle", ShingleName(p.shingle)},
      {"--ngram", "--ngram", std::to_string(p.ngram)},
      {"--num-perm", "--num-perm", std::to_string(p.num_perm)},
      {"--seed", "--seed", std::to_string(p.seed)},
      {"--encoding", "--encoding", EncodingName(p.encoding)},
      {"--strip", "--strip", StripName(p.strip)},
      {"tokenizer version", "tokenizer", std::to_string(p.tokenizer_version)},
      {"MinHash definition", "minhash", std::to_string(p.minhash_version)},
  };
}

}  // namespace

SignatureParams SignatureParams::From(const Options& options) {
  SignatureParams p;
  p.shingle = options.shingle;
  p.ngram = options.EffectiveNgram();
  p.num_perm = options.num_perm;
  p.seed = options.seed;
  p.encoding = options.encoding;
  p.strip = options.strip;
  p.tokenizer_version = kTokenizerVersion;
  p.minhash_version = kMinHashVersion;
  return p;
}

void SignatureParams::AppendCanonical(std::string* out) const {
  const size_t start = out->size();
  PutU8(out, static_cast<uint8_t>(shingle));
  PutU8(out, static_cast<uint8_t>(encoding));
  PutU8(out, static_cast<uint8_t>(strip));
  PutU8(out, 0);
  PutLittle(out, static_cast<uint32_t>(ngram));
  PutLittle(out, static_cast<uint32_t>(num_perm));
  PutLittle(out, seed);
  PutLittle(out, tokenizer_version);
  PutLittle(out, minhash_version);
  assert(out->size() - start == kCanonicalSize);
  (void)start;
}

uint64_t SignatureParams::Fingerprint() const {
  std::string bytes;
  AppendCanonical(&bytes);
  return HashBytes(bytes.data(), bytes.size(), 0);
}

std::string SignatureParams::Describe() const {
  std::string out;
  for (const Field& f : Fields(*this)) {
    // Shown only when set: descriptions before --strip stay as they were.
    if (f.name == std::string_view("--strip") && strip == Strip::kNone) continue;
    if (!out.empty()) out.append(", ");
    out.append(f.short_name).append(" ").append(f.value);
  }
  return out;
}

std::vector<std::string> SignatureParams::Differences(const SignatureParams& other,
                                                      const std::string& theirs_name) const {
  const std::vector<Field> mine = Fields(*this);
  const std::vector<Field> theirs = Fields(other);
  std::vector<std::string> lines;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (mine[i].value == theirs[i].value) continue;
    lines.push_back(std::string(mine[i].name)
                        .append(": ")
                        .append(mine[i].value)
                        .append(" here, ")
                        .append(theirs[i].value)
                        .append(" in ")
                        .append(theirs_name));
  }
  return lines;
}

}  // namespace neardup
