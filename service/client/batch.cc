#include "service/client/batch.h"

#include <filesystem>
#include <map>

namespace tc::client {
namespace {

Status usage(std::string message) {
  return {Code::kInvalidArgument, std::move(message)};
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// What a job writes: its package's directory, else each output's path.
std::vector<std::string> written_paths(const JobSpec& job) {
  if (job.package.on()) return {job.package.dir};
  std::vector<std::string> paths;
  for (const OutputSpec& output : job.outputs) paths.push_back(output.path);
  return paths;
}

}  // namespace

std::string expand_name_template(const std::string& name_template, const std::string& input,
                                 size_t n) {
  std::filesystem::path path(input);
  std::string name = name_template;
  replace_all(name, "{stem}", path.stem().string());
  replace_all(name, "{name}", path.filename().string());
  replace_all(name, "{n}", std::to_string(n));
  return name;
}

Result<std::vector<JobSpec>> jobs_for_inputs(const JobSpec& spec,
                                             const std::vector<std::string>& inputs) {
  std::vector<JobSpec> jobs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    JobSpec job = spec;
    job.input = inputs[i];
    if (job.package.on())
      job.package.dir = expand_name_template(spec.package.dir, inputs[i], i + 1);
    else
      for (OutputSpec& output : job.outputs)
        output.path = expand_name_template(output.path, inputs[i], i + 1);
    jobs.push_back(std::move(job));
  }
  TC_RETURN_IF_ERROR(check_distinct_outputs(jobs));
  return jobs;
}

Result<std::vector<JobSpec>> jobs_from_lines(std::istream& lines, const std::string& what) {
  std::vector<JobSpec> jobs;
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Result<JobSpec> job = job_spec_from_json(line);
    Status valid = job.is_ok() ? validate(*job) : job.status();
    if (!valid.is_ok())
      return usage(what + ":" + std::to_string(number) + ": " + valid.message() +
                   " (nothing submitted)");
    jobs.push_back(std::move(job).value());
  }
  if (jobs.empty()) return usage(what + ": no jobs in it");
  TC_RETURN_IF_ERROR(check_distinct_outputs(jobs));
  return jobs;
}

Status check_distinct_outputs(const std::vector<JobSpec>& jobs) {
  std::map<std::string, const JobSpec*> writer;
  for (const JobSpec& job : jobs)
    for (const std::string& path : written_paths(job)) {
      auto [at, added] = writer.emplace(path, &job);
      if (!added && at->second != &job)
        return usage("'" + at->second->input + "' and '" + job.input + "' would both write '" +
                     path + "' (put {stem}, {name} or {n} in the output name; nothing submitted)");
    }
  return {};
}

}  // namespace tc::client
