// A worker is confined whole: every thread of it, from before it has a second one.
//
// Linux keeps no_new_privs, the Landlock domain and the capability sets per thread (task), and a
// new thread inherits them from the thread that creates it; landlock_restrict_self and
// prctl(PR_SET_NO_NEW_PRIVS) change the calling thread only. So a worker confines itself on its
// first thread while that is its only thread, and every later thread (the job's, the codecs',
// the drivers') is born confined. It refuses to go on when another thread already exists, rather
// than run with one unconfined. A zygote-forked worker does this on the forked main thread,
// before it starts the thread that runs the job (zygote.cc).
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/worker/landlock.h"

namespace tc::daemon {

// The threads of this process, from /proc/self/task; 0 when that cannot be read.
int threads_of_this_process();

// Drops every capability for good: the bounding set (when the process may), the ambient set,
// then the effective, permitted and inheritable sets. A worker of a daemon that runs as root
// keeps uid 0 but not its powers: no CAP_DAC_OVERRIDE past file modes, no CAP_SYS_ADMIN, no raw
// sockets. With no_new_privs set too, no exec can give them back.
Status drop_capabilities();

// The whole confinement, in order: no_new_privs, capabilities dropped, the seccomp filter
// (worker_seccomp.h; none on an architecture it does not know), then Landlock to `paths`
// when `landlock` is set (a kernel without it leaves the rest: kUnsupported is not an error
// here, the daemon said so at start). kInternal when this process has more than one thread.
Status confine_this_process(bool landlock, const LandlockPaths& paths);

}  // namespace tc::daemon
