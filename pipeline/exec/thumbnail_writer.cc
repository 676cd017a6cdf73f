#include "pipeline/exec/thumbnail_writer.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/exec/thumbnail_ownership.h"
#include "pipeline/package/package_dir.h"
#include "pipeline/spec/thumbnail_spec.h"

namespace tc {
namespace {

// mjpeg's fixed quantiser scale (the ffmpeg CLI's -q:v): 2 is near lossless, 31 the worst.
constexpr int kJpegQuality = 3;

// "00:01:02.500", as WebVTT writes a time.
std::string vtt_time(double seconds) {
  int64_t ms = std::llround(std::max(0.0, seconds) * 1000);
  char text[32];
  std::snprintf(text, sizeof text, "%02lld:%02lld:%02lld.%03lld", (long long)(ms / 3600000),
                (long long)(ms / 60000 % 60), (long long)(ms / 1000 % 60), (long long)(ms % 1000));
  return text;
}

// Black in full range: Y 0, chroma at its middle.
void fill_black(AVFrame& frame) {
  for (int plane = 0; plane < 3; ++plane) {
    int rows = plane ? AV_CEIL_RSHIFT(frame.height, 1) : frame.height;
    int bytes = plane ? AV_CEIL_RSHIFT(frame.width, 1) : frame.width;
    for (int row = 0; row < rows; ++row)
      std::memset(frame.data[plane] + int64_t(row) * frame.linesize[plane], plane ? 128 : 0,
                  size_t(bytes));
  }
}

// The top-left `width` x `height` of `sheet`, as one JPEG.
Result<std::string> encode_jpeg(const AVFrame& sheet, int width, int height,
                                const std::string& name) {
  const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
  if (!codec) return Status(Code::kUnsupported, "encoder " + name + " is not in this FFmpeg build");
  av::CodecContextPtr encoder(avcodec_alloc_context3(codec));
  encoder->width = width;
  encoder->height = height;
  encoder->pix_fmt = AVPixelFormat(sheet.format);
  encoder->color_range = AVCOL_RANGE_JPEG;
  encoder->time_base = {1, 1};
  encoder->flags |= AV_CODEC_FLAG_QSCALE;
  encoder->global_quality = FF_QP2LAMBDA * kJpegQuality;
  if (int err = avcodec_open2(encoder.get(), codec, nullptr); err < 0)
    return av_status(err, Code::kInternal, "opening the thumbnail encoder " + name);
  av::FramePtr view = av::make_frame();
  av_frame_ref(view.get(), &sheet);
  view->width = width;  // the same planes: the tiles fill the sheet from its top left
  view->height = height;
  view->pts = 0;
  view->quality = encoder->global_quality;  // a fixed qscale is read from the frame
  int err = avcodec_send_frame(encoder.get(), view.get());
  if (err >= 0) err = avcodec_send_frame(encoder.get(), nullptr);
  std::string bytes;
  av::PacketPtr packet = av::make_packet();
  while (err >= 0 && (err = avcodec_receive_packet(encoder.get(), packet.get())) >= 0) {
    bytes.append(reinterpret_cast<const char*>(packet->data), size_t(packet->size));
    av_packet_unref(packet.get());
  }
  if (err != AVERROR_EOF) return av_status(err, Code::kInternal, "encoding a thumbnail sheet");
  return bytes;
}

Status write_all(int fd, const std::string& bytes, const std::string& path) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {Code::kOutput, "cannot write " + path + ": " + std::strerror(errno)};
    done += size_t(n);
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<ThumbnailWriter>> ThumbnailWriter::create(const ThumbnailPlan& plan,
                                                                 const io::Roots& roots,
                                                                 package::PackageDir* package,
                                                                 int attempt) {
  if (plan.in_package && !package)
    return Status(Code::kInternal, "thumbnails for a package without its directory");
  std::unique_ptr<ThumbnailWriter> writer(new ThumbnailWriter(plan, roots, package, attempt));
  // Refused before any work where a user's thumbnails.vtt or sheet_N.jpg is in the way.
  TC_RETURN_IF_ERROR(writer->check_ours());
  return writer;
}

Status ThumbnailWriter::check_ours() const {
  if (plan_.in_package) return Status::ok();  // the package's directory is checked as a whole
  TC_ASSIGN_OR_RETURN(io::DirEntry dir,
                      roots_.open_output_dir(path_of(std::string(kThumbnailIndex))));
  return check_thumbnails_replaceable(dir.dir.get(), dir.dir_path).status();
}

Status ThumbnailWriter::start_sheet() {
  sheet_ = av::make_frame();
  sheet_->format = plan_.pix_fmt;
  sheet_->width = plan_.width * plan_.columns;
  sheet_->height = plan_.height * plan_.rows;
  sheet_->color_range = AVCOL_RANGE_JPEG;
  if (int err = av_frame_get_buffer(sheet_.get(), 0); err < 0)
    return av_status(err, Code::kInternal, "allocating a thumbnail sheet");
  fill_black(*sheet_);
  return Status::ok();
}

Status ThumbnailWriter::add(const AVFrame& tile, AVRational time_base) {
  if (tile.format != plan_.pix_fmt || tile.width != plan_.width || tile.height != plan_.height)
    return Status(Code::kInternal, "a thumbnail tile came out of the graph as " +
                                       std::to_string(tile.width) + "x" +
                                       std::to_string(tile.height) + " " +
                                       av_get_pix_fmt_name(AVPixelFormat(tile.format)));
  if (!sheet_) TC_RETURN_IF_ERROR(start_sheet());
  Cue cue;
  double at = tile.pts == AV_NOPTS_VALUE ? 0 : tile.pts * av_q2d(time_base);
  cue.interval = int64_t(std::floor(at / plan_.interval_s));
  cue.sheet = int(sheets_.size()) + 1;
  cue.x = tiles_in_sheet_ % plan_.columns * plan_.width;
  cue.y = tiles_in_sheet_ / plan_.columns * plan_.height;
  for (int plane = 0; plane < 3; ++plane) {
    int shift = plane ? 1 : 0;  // 4:2:0: chroma is half each way; tiles have even sides
    av_image_copy_plane(
        sheet_->data[plane] + int64_t(cue.y >> shift) * sheet_->linesize[plane] + (cue.x >> shift),
        sheet_->linesize[plane], tile.data[plane], tile.linesize[plane], plan_.width >> shift,
        plan_.height >> shift);
  }
  cues_.push_back(cue);
  if (++tiles_in_sheet_ == plan_.columns * plan_.rows) return write_sheet();
  return Status::ok();
}

// The sheet as far as it is filled: whole rows, and only the used columns of a single row.
Status ThumbnailWriter::write_sheet() {
  int rows = (tiles_in_sheet_ + plan_.columns - 1) / plan_.columns;
  int columns = rows > 1 ? plan_.columns : tiles_in_sheet_;
  std::string name = sheet_file_name(int(sheets_.size()) + 1);
  TC_ASSIGN_OR_RETURN(std::string jpeg, encode_jpeg(*sheet_, columns * plan_.width,
                                                    rows * plan_.height, plan_.encoder));
  TC_RETURN_IF_ERROR(write_file(name, jpeg));
  sheets_.push_back(name);
  sheet_.reset();
  tiles_in_sheet_ = 0;
  return Status::ok();
}

std::string ThumbnailWriter::path_of(const std::string& name) const {
  return plan_.dir == "." ? name : plan_.dir == "/" ? "/" + name : plan_.dir + "/" + name;
}

Status ThumbnailWriter::write_file(const std::string& name, const std::string& bytes) {
  if (plan_.in_package) return package_->write_file(name, bytes);
  std::string path = path_of(name);
  TC_ASSIGN_OR_RETURN(io::DirEntry dir, roots_.open_output_dir(path));
  TC_ASSIGN_OR_RETURN(io::TempFile temp, io::TempFile::create(std::move(dir), path, attempt_));
  ScopedFd file = temp.take_file();
  TC_RETURN_IF_ERROR(write_all(file.get(), bytes, temp.path()));
  pending_.push_back(std::move(temp));
  return Status::ok();
}

std::string ThumbnailWriter::index_text(double media_end_s) const {
  std::string text = std::string("WEBVTT\n\n") + kThumbnailNote + "\n";
  for (const Cue& cue : cues_) {
    double start = cue.interval * plan_.interval_s;
    double end = std::max(start, std::min((cue.interval + 1) * plan_.interval_s, media_end_s));
    char fragment[96];
    std::snprintf(fragment, sizeof fragment, "#xywh=%d,%d,%d,%d", cue.x, cue.y, plan_.width,
                  plan_.height);
    text += "\n" + vtt_time(start) + " --> " + vtt_time(end) + "\n" + sheet_file_name(cue.sheet) +
            fragment + "\n";
  }
  return text;
}

Status ThumbnailWriter::finish(double media_end_s) {
  if (tiles_in_sheet_ > 0) TC_RETURN_IF_ERROR(write_sheet());
  return write_file(std::string(kThumbnailIndex), index_text(media_end_s));
}

// Checked again right before the renames; an earlier run's sheets this run did not write are
// removed after them, so the directory holds only what the new index names.
Status ThumbnailWriter::commit() {
  if (pending_.empty()) return Status::ok();
  TC_ASSIGN_OR_RETURN(io::DirEntry dir,
                      roots_.open_output_dir(path_of(std::string(kThumbnailIndex))));
  TC_ASSIGN_OR_RETURN(std::set<std::string> earlier,
                      check_thumbnails_replaceable(dir.dir.get(), dir.dir_path));
  for (io::TempFile& file : pending_) TC_RETURN_IF_ERROR(file.publish());
  remove_earlier_sheets(dir.dir.get(), earlier, sheets_);
  return Status::ok();
}

ThumbnailReport ThumbnailWriter::report() const {
  ThumbnailReport report;
  report.index = path_of(std::string(kThumbnailIndex));
  report.sheets = sheets_;
  report.tiles = int64_t(cues_.size());
  report.interval_s = plan_.interval_s;
  report.width = plan_.width;
  report.height = plan_.height;
  report.columns = plan_.columns;
  report.rows = plan_.rows;
  return report;
}

std::string describe_thumbnail_report(const ThumbnailReport& thumbnails) {
  char line[512];
  std::snprintf(line, sizeof line,
                "thumbnails: %lld tiles of %dx%d, one every %g s, on %zu sheet(s) of %dx%d "
                "(%s%s), index %s\n",
                static_cast<long long>(thumbnails.tiles), thumbnails.width, thumbnails.height,
                thumbnails.interval_s, thumbnails.sheets.size(), thumbnails.columns,
                thumbnails.rows, thumbnails.sheets.empty() ? "" : thumbnails.sheets[0].c_str(),
                thumbnails.sheets.size() > 1 ? "..." : "", thumbnails.index.c_str());
  return line;
}

}  // namespace tc
