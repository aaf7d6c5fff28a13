//===- LineFile.h - Token ids from a file of lines, and progress ----------===//
#ifndef TRANSFUSE_TOOLS_TRANSFUSE_RUN_LINEFILE_H
#define TRANSFUSE_TOOLS_TRANSFUSE_RUN_LINEFILE_H

#include "Tokenizer.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace transfuse::text {

/// The token ids of every line of `path` (none or "-": stdin), each passed
/// to `check`, which throws for a line the model cannot take. A failure is
/// a std::runtime_error naming the line as NAME:LINE; `flag` names the
/// option in an error opening the file.
std::vector<std::vector<int64_t>>
readTokenLines(const std::optional<std::string> &path, const std::string &flag,
               const Tokenizer &tokenizer,
               const std::function<void(const std::vector<int64_t> &)> &check);

/// A progress callback printing "`verb` k/n lines" on stderr: updated in
/// place on a terminal, else one line per batch when there are `batches`
/// more than one; none otherwise.
std::function<void(size_t done, size_t total)>
progressReporter(const std::string &verb, size_t batches);

} // namespace transfuse::text

#endif // TRANSFUSE_TOOLS_TRANSFUSE_RUN_LINEFILE_H
