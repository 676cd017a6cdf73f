// The one-second test transcode of `transcode doctor`: per codec a usable VA-API device encodes,
// a generated clip goes through the pipeline's own run path (decode, scale, encode on the
// device) and the output's PSNR against the clip says whether the frames are right.
#pragma once

#include <string>
#include <vector>

#include "service/doctor/doctor.h"

namespace tc::doctor {

// One check per (usable VA-API device, codec it encodes); a skip when there is no such device.
std::vector<Check> test_transcodes(const Options& options, const HwInventory& inventory);

// The test clip: one second of testsrc2, 1280x720 8-bit 4:2:0 H.264 (libx264), in Matroska.
Status write_test_clip(const std::string& path);
// PSNR (dB) of a 640x360 output against the test clip scaled to that size.
Result<double> test_clip_psnr(const std::string& output, const std::string& clip);

}  // namespace tc::doctor
