// Many jobs from one `transcode submit`: the same options over several inputs, each output
// named by a template, or a JSON Lines file of whole jobs. Every job is composed and checked
// before any is submitted, so a batch with one bad job submits none.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc::client {

// An output name for the n-th input (1-based): {stem} (the input's file name without its
// extension), {name} (with it), {n}. Other text, braces included, stays as written.
std::string expand_name_template(const std::string& name_template, const std::string& input,
                                 size_t n);

// `spec` once per input, its outputs' paths (or its package's directory) expanded from
// templates. kInvalidArgument when two jobs would write one output.
Result<std::vector<JobSpec>> jobs_for_inputs(const JobSpec& spec,
                                             const std::vector<std::string>& inputs);

// One job a line, in the shape of `--job FILE`; blank lines are skipped. A bad line is
// kInvalidArgument naming its line number (`what`:LINE: ...), and no job is returned.
Result<std::vector<JobSpec>> jobs_from_lines(std::istream& lines, const std::string& what);

// kInvalidArgument naming both inputs when two of `jobs` write one output (path or package
// directory).
Status check_distinct_outputs(const std::vector<JobSpec>& jobs);

}  // namespace tc::client
