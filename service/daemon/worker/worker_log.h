// What a worker's libraries log (libav's messages) reaches the job's own log (model/job_log.h)
// through a sink, and, errors only, the daemon's log, which the worker shares as its stderr. A
// message may hold a user's value (an output name with a newline in it would forge a line such as
// "job j-...: succeeded"): each message becomes exactly one line, escaped
// (pipeline/core/user_text.h), naming the job it came from.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "service/daemon/model/job_log.h"

namespace tc::daemon {

// The line a worker writes for one complete message of job `job_id`: "worker: job <id>: " and
// the message, its control characters (newlines too) escaped, ending in one newline.
std::string worker_log_line(std::string_view job_id, std::string_view message);

// Routes libav's log, at the level av_log_set_level sets: the pieces of a message are gathered
// until its newline; then the whole message goes to the sink (set_log_sink), and an error's
// also through worker_log_line in one write(2) to stderr (the daemon's log is for jobs, not for
// every decoder's warnings: those are the job's own).
void route_libav_log();

// Takes each complete message with its level, under the log's lock (libav logs from several
// threads: the sink sees one message at a time). Empty: none.
using LogSink = std::function<void(LogLevel, std::string_view)>;
void set_log_sink(LogSink sink);

// libav's level as the job log's: panic, fatal and error are errors; verbose, debug and trace
// are debug.
LogLevel job_log_level(int av_level);

// The job whose id the lines name from now on (a warm worker runs several, one at a time).
void set_log_job(std::string job_id);

}  // namespace tc::daemon
