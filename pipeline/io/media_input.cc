#include "pipeline/io/media_input.h"

#include <regex>

extern "C" {
#include <libavutil/avstring.h>
#include <libavutil/dict.h>
}

namespace tc::io {
namespace {

// Demuxers that read one self-contained file: every token of a demuxer's name is checked
// ("mov,mp4,m4a,3gp,3g2,mj2" is allowed by "mov"). This string is also libav's
// format_whitelist, the second lock behind the check in open_file.
constexpr const char* kFileFormats =
    "mov,matroska,mpegts,mpegtsraw,mpeg,mpegvideo,m4v,h264,hevc,vvc,obu,av1,ivf,avi,flv,asf,"
    "ogg,nut,mxf,dv,vc1,yuv4mpegpipe,mjpeg,gif,wav,w64,mp3,aac,ac3,eac3,flac";
// Remote playlists may name their segments, which libav then opens under the same protocol
// whitelist.
constexpr const char* kPlaylistFormats = "hls,dash";
// Demuxers that open other files by name: refused with that reason.
constexpr const char* kReferringFormats =
    "hls,dash,concat,image2,imf,avisynth,vapoursynth,dvdvideo,sdp";
// No protocol name matches this: a confined file input's demuxer opens nothing by URL (the
// io_open hook refuses first; this is the second lock).
constexpr const char* kNoProtocol = "none";

Status input_error(const std::string& path, const std::string& problem) {
  return {Code::kInput, path + ": " + problem};
}

Status open_error(const std::string& path, int averror, const NestedOpens& nested) {
  if (!nested.refused.empty())
    return input_error(path, "permission denied: it refers to " + nested.refused +
                                 ", and a media file may not open other files");
  if (averror == AVERROR_INVALIDDATA)
    return input_error(path, "not a media file that FFmpeg can read, or truncated/corrupt (" +
                                 av_error_text(averror) + ")");
  return demux_status(averror, path);
}

bool listed(const char* demuxer_name, const char* list) {
  return av_match_list(demuxer_name, list, ',') > 0;
}

// A URL-like input ("https://..."): its scheme, else empty.
std::string scheme_of(const std::string& input) {
  static const std::regex url("^([a-zA-Z][a-zA-Z0-9+.-]*)://");
  std::smatch match;
  return std::regex_search(input, match, url) ? match[1].str() : "";
}

// An allowed protocol and the ones it is carried over (libav checks each layer against the
// whitelist: https opens tls, which opens tcp).
std::string protocol_whitelist(const std::vector<std::string>& protocols) {
  std::string list;
  for (const std::string& protocol : protocols) {
    list += (list.empty() ? "" : ",") + protocol;
    if (protocol == "https" || protocol == "rtmps") list += ",tls,tcp";
    if (protocol == "http" || protocol == "rtmp" || protocol == "tls") list += ",tcp";
    if (protocol == "https" || protocol == "http") list += ",httpproxy";
  }
  return list;
}

struct Options {
  av::DictionaryPtr dict;
  Options(const std::string& protocols, const std::string& formats) {
    AVDictionary* raw = nullptr;
    av_dict_set(&raw, "protocol_whitelist", protocols.c_str(), 0);
    av_dict_set(&raw, "format_whitelist", formats.c_str(), 0);
    dict.reset(raw);
  }
};

Result<MediaInput> finish_open(MediaInput input, AVFormatContext* raw, const std::string& url,
                               const AVInputFormat* demuxer, Options options) {
  AVDictionary* dict = options.dict.release();
  int err = avformat_open_input(&raw, url.c_str(), demuxer, &dict);
  av_dict_free(&dict);
  if (err < 0) return open_error(url, err, *input.source.nested);  // raw was freed
  input.format.reset(raw);
  if (int err = avformat_find_stream_info(raw, nullptr); err < 0)
    return open_error(url, err, *input.source.nested);
  return input;
}

Result<MediaInput> open_url(const std::string& url, const std::string& scheme, const Access& access,
                            const AVIOInterruptCB* interrupt) {
  bool allowed = false;
  for (const std::string& protocol : access.protocols) allowed = allowed || protocol == scheme;
  if (!allowed)
    return input_error(
        url, "permission denied: protocol '" + scheme + "' is not allowed (allow_protocol)");
  MediaInput input;
  input.source.nested = std::make_unique<NestedOpens>();
  AVFormatContext* raw = avformat_alloc_context();
  if (!raw) return Status(Code::kInternal, "out of memory");
  if (interrupt) raw->interrupt_callback = *interrupt;
  return finish_open(std::move(input), raw, url, nullptr,
                     Options(protocol_whitelist(access.protocols),
                             std::string(kFileFormats) + "," + kPlaylistFormats));
}

// The demuxer, found from the first bytes, and refused with a clear reason before libav is
// asked to open anything with it.
Result<const AVInputFormat*> file_demuxer(AVIOContext* pb, const std::string& path,
                                          const NestedOpens& nested) {
  const AVInputFormat* demuxer = nullptr;
  if (int err = av_probe_input_buffer2(pb, &demuxer, path.c_str(), nullptr, 0, 0); err < 0)
    return open_error(path, err, nested);
  if (listed(demuxer->name, kReferringFormats))
    return input_error(path, std::string("permission denied: a ") + demuxer->name +
                                 " input refers to other files by name, which is not allowed "
                                 "(only single media files are read)");
  if (!listed(demuxer->name, kFileFormats))
    return input_error(path, std::string("not a media file this service reads (FFmpeg reads it "
                                         "as ") +
                                 demuxer->name + ")");
  return demuxer;
}

Result<MediaInput> open_file(const std::string& path, const Access& access,
                             const AVIOInterruptCB* interrupt) {
  if (!access.roots) return Status(Code::kInternal, "no roots to open " + path + " below");
  MediaInput input;
  input.source.nested = std::make_unique<NestedOpens>();
  TC_ASSIGN_OR_RETURN(ScopedFd fd, access.roots->open_input(path));
  TC_ASSIGN_OR_RETURN(input.source.io, make_fd_avio(std::move(fd), AvioMode::kRead));
  TC_ASSIGN_OR_RETURN(const AVInputFormat* demuxer,
                      file_demuxer(input.source.io.get(), path, *input.source.nested));
  AVFormatContext* raw = avformat_alloc_context();
  if (!raw) return Status(Code::kInternal, "out of memory");
  raw->pb = input.source.io.get();
  if (interrupt) raw->interrupt_callback = *interrupt;
  confine_nested_opens(raw, input.source.nested.get());
  return finish_open(std::move(input), raw, path, demuxer, Options(kNoProtocol, kFileFormats));
}

}  // namespace

Result<MediaInput> open_media_input(const std::string& path, const Access& access,
                                    const AVIOInterruptCB* interrupt) {
  std::string scheme = scheme_of(path);
  if (!scheme.empty() && scheme != "file") return open_url(path, scheme, access, interrupt);
  // "file://" is a path spelled as a URL: it goes through the roots like any path.
  std::string file = scheme.empty() ? path : path.substr(std::string("file://").size());
  return open_file(file, access, interrupt);
}

}  // namespace tc::io
