#include "pipeline/exec/thumbnail_ownership.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "pipeline/core/fd.h"
#include "pipeline/io/small_file.h"
#include "pipeline/spec/thumbnail_spec.h"

namespace tc {
namespace {

constexpr size_t kIndexMaxBytes = 16 << 20;

std::string shown_path(const std::string& dir, const std::string& name) {
  return dir == "." ? name : dir == "/" ? "/" + name : dir + "/" + name;
}

Status refused(const std::string& path, const std::string& why) {
  return {Code::kOutput, path + ": not replaced: " + why};
}

// "sheet_12.jpg"
bool is_sheet_name(const std::string& name) {
  const std::string prefix = "sheet_", suffix = ".jpg";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  for (size_t i = prefix.size(); i < name.size() - suffix.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
  return true;
}

// The sheets our index in `dir` names; a refusal where an index is there that is not ours.
Result<std::set<std::string>> sheets_of_our_index(int dir, const std::string& dir_shown) {
  std::string index_name(kThumbnailIndex);
  std::string shown = shown_path(dir_shown, index_name);
  int error = 0;
  std::optional<std::string> index =
      io::read_small_file(dir, index_name.c_str(), kIndexMaxBytes, &error);
  if (!index && error == ENOENT) return std::set<std::string>{};
  if (!index) return refused(shown, "it is not a thumbnail index this program wrote");
  const std::string& text = *index;
  if (text.rfind(std::string("WEBVTT\n\n") + kThumbnailNote + "\n", 0) != 0)
    return refused(shown, "it is not a thumbnail index this program wrote");
  std::set<std::string> sheets;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::string name = line.substr(0, line.find('#'));
    if (is_sheet_name(name)) sheets.insert(name);
  }
  return sheets;
}

}  // namespace

Result<std::set<std::string>> check_thumbnails_replaceable(int dir_fd,
                                                           const std::string& dir_shown) {
  ScopedFd dir_own(::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_own.is_open()) return Status(Code::kOutput, dir_shown + ": " + std::strerror(errno));
  TC_ASSIGN_OR_RETURN(std::set<std::string> ours, sheets_of_our_index(dir_own.get(), dir_shown));
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::fdopendir(dir_own.get()), ::closedir);
  if (!dir) return Status(Code::kOutput, dir_shown + ": " + std::strerror(errno));
  dir_own.release();
  while (dirent* entry = ::readdir(dir.get())) {
    std::string name = entry->d_name;
    if (is_sheet_name(name) && !ours.count(name))
      return refused(shown_path(dir_shown, name),
                     "no thumbnail index this program wrote names it (not ours to replace)");
  }
  return ours;
}

void remove_earlier_sheets(int dir_fd, const std::set<std::string>& earlier,
                           const std::vector<std::string>& written) {
  std::set<std::string> kept(written.begin(), written.end());
  for (const std::string& sheet : earlier)
    if (!kept.count(sheet)) ::unlinkat(dir_fd, sheet.c_str(), 0);
}

}  // namespace tc
