// The option table's accessors into Options (the table itself is
// option_table.cc, the public OptionSpec neardup/option_table.h): each entry
// reads and writes its field through Get/Put (numbers and flags, as long
// double), Text or List, instantiated for that field. Kept apart from the
// table so that the table's file holds the table.
//
// Thread safety: pure functions over the Options given.
#pragma once

#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "neardup/options.h"

namespace neardup::option_access {

// Numbers travel between the table and Options as long double: every value
// of a 64-bit integer field (--seed) must survive the trip exactly.
static_assert(std::numeric_limits<long double>::digits >= 64, "long double must hold every 64-bit integer");

template <auto Member>
long double Get(const Options& options) {
  using T = std::remove_cvref_t<decltype(options.*Member)>;
  if constexpr (std::is_enum_v<T>) {
    return static_cast<long double>(static_cast<int>(options.*Member));
  } else {
    return static_cast<long double>(options.*Member);
  }
}

// Stores `value`; an integer field keeps the nearest value it can hold (so a
// test that puts 2^31 into an int finds 2^31-1 there, never undefined behaviour).
template <auto Member>
void Put(Options& options, long double value) {
  using T = std::remove_cvref_t<decltype(options.*Member)>;
  if constexpr (std::is_enum_v<T>) {
    options.*Member = static_cast<T>(static_cast<int>(value));
  } else if constexpr (std::is_same_v<T, bool>) {
    options.*Member = value != 0;
  } else if constexpr (std::is_floating_point_v<T>) {
    options.*Member = static_cast<T>(value);
  } else {
    constexpr auto kLow = static_cast<long double>(std::numeric_limits<T>::min());
    constexpr auto kHigh = static_cast<long double>(std::numeric_limits<T>::max());
    if (!(value >= kLow)) {
      options.*Member = std::numeric_limits<T>::min();
    } else if (value >= kHigh) {
      options.*Member = std::numeric_limits<T>::max();
    } else {
      options.*Member = static_cast<T>(value);
    }
  }
}

template <auto Member>
std::string* Text(Options& options) {
  return &(options.*Member);
}

template <auto Member>
std::vector<std::string>* List(Options& options) {
  return &(options.*Member);
}

}  // namespace neardup::option_access
