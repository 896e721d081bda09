// SHA-256 (FIPS 180-4), for the review page's Content-Security-Policy: the
// page allows exactly its own inline script and style by their hashes
// ('sha256-BASE64'), computed when the page is written.
//
// Not for secrets (no constant-time promise is needed: the input is the page's
// own code). Thread safety: pure functions.
//
//   std::string source = "'" + CspHashSource(script) + "'";  // 'sha256-...'
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace neardup {

// The 32-byte SHA-256 digest of `data`.
std::array<uint8_t, 32> Sha256(std::string_view data);

// The digest of `data` as a CSP hash source, without quotes:
// "sha256-" followed by the standard base64 (with padding) of Sha256(data).
std::string CspHashSource(std::string_view data);

}  // namespace neardup
