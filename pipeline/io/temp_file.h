// An output under construction: the hidden `.NAME.partial` (`.NAME.aN.partial` in attempt N of
// a daemon's job) beside the output, created with O_CREAT | O_EXCL | O_NOFOLLOW in the
// already-opened output directory (a symlink planted at the temp name is never followed),
// published with renameat within that same directory, and removed unless published: a failed or
// cancelled job leaves nothing that looks finished.
#pragma once

#include <string>

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"
#include "pipeline/io/confined_path.h"

namespace tc::io {

// The temporary name an output is written to: a hidden file beside it, so that the rename is
// atomic and a crash leaves only names that say "partial". Attempt 0 (`transcode run`) writes
// `.NAME.partial`; attempt N >= 1 of a daemon's job `.NAME.aN.partial`, so that two attempts of
// one job (a node presumed dead and its successor) never write, replace or remove each other's.
std::string partial_name(const std::string& name, int attempt);

// The extended attribute naming the attempt (decimal) that wrote a daemon job's output: set on
// its temp file, it stays with the file through the rename, so that a daemon finding a publish
// cut off (its node killed between a rename and recording the job's end) can tell the outputs
// that attempt renamed into place from any other file at the name. Absent where the file system
// keeps no user attributes: that publish is then redone.
inline constexpr const char* kAttemptAttribute = "user.transcode.attempt";

class TempFile {
 public:
  // Creates the temp file (read-write: the mp4 muxer reads back what it wrote for faststart).
  // A regular file left at the name by a crashed run is replaced; anything else there (a
  // symlink, a directory) is refused with kOutput naming the output.
  static Result<TempFile> create(DirEntry output, const std::string& output_path, int attempt);
  TempFile(TempFile&& other) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile();

  // The open file, for the muxer's AVIO; the TempFile keeps the names.
  ScopedFd take_file() { return std::move(file_); }
  const std::string& path() const { return temp_path_; }
  // Renames the temp file to the output's name, in the same directory.
  Status publish();

 private:
  TempFile(DirEntry output, std::string output_path, std::string temp_name, ScopedFd file);

  DirEntry output_;
  std::string output_path_;
  std::string temp_name_;  // partial_name(output_.name, attempt), in output_.dir
  std::string temp_path_;
  ScopedFd file_;
  bool pending_ = true;  // created and not yet published: removed on destruction
};

}  // namespace tc::io
