#include "neardup/options.h"

#include <string>

#include "neardup/option_table.h"

namespace neardup {

Status ValidateOptions(const Options& o) {
  // Each value against its range in the option table, in the table's order.
  for (const OptionSpec& spec : OptionTable()) {
    if (Status s = CheckOptionRange(spec, o); !s.ok()) return s;
  }
  // Rules across options.
  if ((o.bands == 0) != (o.rows == 0)) {
    return Status::InvalidArgument("--bands and --rows go together: give both or neither");
  }
  // In 64 bits: --bands 65536 --rows 65536 would overflow an int.
  const long long needed = static_cast<long long>(o.bands) * static_cast<long long>(o.rows);
  if (o.bands > 0 && needed > o.num_perm) {
    return Status::InvalidArgument(std::string("--bands ")
                                       .append(std::to_string(o.bands))
                                       .append(" --rows ")
                                       .append(std::to_string(o.rows))
                                       .append(" needs ")
                                       .append(std::to_string(needed))
                                       .append(" permutations, --num-perm is ")
                                       .append(std::to_string(o.num_perm)));
  }
  if (o.input == InputFormat::kJsonl && o.text_key.empty()) {
    return Status::InvalidArgument("--text-key must not be empty");
  }
  if (o.new_only && o.index.empty()) return Status::InvalidArgument("--new needs --index FILE");
  if (o.kept_copy && o.kept_dir.empty()) return Status::InvalidArgument("--kept-copy needs --kept-dir DIR");
  return Status::Ok();
}

}  // namespace neardup
