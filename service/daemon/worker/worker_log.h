// What a worker's libraries log (libav's messages) reaches the daemon's log, which the worker
// shares as its stderr. A message may hold a user's value (an output name with a newline in it
// would forge a line such as "job j-...: succeeded"): each message becomes exactly one line,
// escaped (pipeline/core/user_text.h), naming the job it came from.
#pragma once

#include <string>
#include <string_view>

namespace tc::daemon {

// The line a worker writes for one complete message of job `job_id`: "worker: job <id>: " and
// the message, its control characters (newlines too) escaped, ending in one newline.
std::string worker_log_line(std::string_view job_id, std::string_view message);

// Routes libav's log through worker_log_line, at the level av_log_set_level sets: the pieces of
// a message are gathered until its newline, then written in one write(2) to stderr.
void route_libav_log();

// The job whose id the lines name from now on (a warm worker runs several, one at a time).
void set_log_job(std::string job_id);

}  // namespace tc::daemon
