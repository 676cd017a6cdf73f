// A package job's output side: the partial directory, a TrackSegmenter per rendition track
// (each output's video, and the audio tracks of the first output), a TextRendition per text
// subtitle track of the first output (WebVTT, written once the video's segments are known),
// then the manifests from
// what the segmenters measured and, as a separate step (the daemon's publish gate sits between),
// the atomic publish.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/package/manifests.h"
#include "pipeline/package/package_dir.h"
#include "pipeline/package/package_report.h"
#include "pipeline/package/segmenter.h"
#include "pipeline/package/text_rendition.h"
#include "pipeline/plan/plan.h"

namespace tc::package {

class PackageWriter {
 public:
  static Result<std::unique_ptr<PackageWriter>> create(const PackagePlan& plan,
                                                       const io::Roots& roots, int attempt);
  // The video of output `output` (its rendition `name`), once its encoder is open.
  Result<TrackSegmenter*> add_video(size_t output, const std::string& name, const AVStream& stream);
  // An audio track (input stream `input_stream`, or its stereo rendition beside surround:
  // plan/stereo_rendition.h), once its encoder is open.
  Result<TrackSegmenter*> add_audio(int input_stream, bool stereo_rendition,
                                    const AVStream& stream);
  // A text subtitle track (input stream `input_stream`), its cues from the webvtt encoder.
  Result<TextRendition*> add_subtitles(int input_stream, const AVStream& stream);
  // Every track finished: writes the manifests and reports the package, still unpublished.
  Result<PackageReport> finish();
  // After finish(): renames the complete package into place.
  Status publish() { return dir_->publish(); }
  // The partial directory, for the files a job adds to the package (thumbnails).
  PackageDir& dir() { return *dir_; }
  // Where every video rendition's segments start (segment_grid.h): the encoders' forced
  // keyframes anchor it at the first frame.
  SegmentGrid& video_grid() { return video_grid_; }

 private:
  PackageWriter(const PackagePlan& plan, std::unique_ptr<PackageDir> dir)
      : plan_(plan), dir_(std::move(dir)), video_grid_(seconds_to_us(plan.segment_s)) {}
  TrackSetup setup(std::string name) const;
  PackageMeasure measure() const;
  Status write_text_renditions(PackageMeasure& measure);
  Status write_manifests(const PackageMeasure& measure, std::vector<std::string>& written);

  PackagePlan plan_;
  std::unique_ptr<PackageDir> dir_;
  SegmentGrid video_grid_;
  // Tracks are added from the outputs' threads (exec/branch_lane.h), as their encoders open.
  std::mutex tracks_mutex_;
  struct Video {
    size_t output;
    std::unique_ptr<TrackSegmenter> track;
  };
  std::vector<Video> video_;
  std::vector<std::unique_ptr<TrackSegmenter>> audio_;
  std::vector<std::unique_ptr<TextRendition>> text_;
};

// Whether every video track's segments start with a keyframe, at the same times (within half
// a frame) as the first track's: what lets a player switch renditions at any boundary.
bool keyframes_aligned(const std::vector<TrackMeasure>& video);
// The package part of a job's summary, a line per rendition.
std::string describe_package_report(const PackageReport& package);

}  // namespace tc::package
