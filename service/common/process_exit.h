// How `transcode` and the daemon's workers end once their work is done.
#pragma once

namespace tc {

// Flushes stdout and stderr and ends the process with `code` at once, without the destructors
// of statics or the libraries' exit handlers. By then every output is committed (or its
// partial removed) and the report or error is written; what remains is freeing memory and
// closing devices, which the kernel does at exit, faster than the libraries' own teardown (a
// CUDA context's took about 0.3 s on the H200, a tenth of a ladder's wall time). A sanitizer
// build returns `code` instead, so that the sanitizers still check the teardown and leaks.
int end_process(int code);

}  // namespace tc
