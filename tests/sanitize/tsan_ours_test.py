#!/usr/bin/python3
"""tsan_ours.py fails on a race with an access in our code and passes gRPC's own hand-offs."""
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = "/src/transcoded"

OURS = f"""==================
WARNING: ThreadSanitizer: data race (pid=1)
  Read of size 8 at 0x1 by thread T2:
    #0 std::__shared_ptr<tc::daemon::WatchReactor::Sink>::get() const /usr/include/c++/12/bits/shared_ptr_base.h:1666 (transcoded+0x1)
    #1 tc::daemon::WatchReactor::OnDone() {ROOT}/service/daemon/watch_reactor.cc:39 (transcoded+0x2)
    #2 grpc::internal::CallbackServerStreamingHandler::CallOnDone() /usr/include/grpcpp/impl/codegen/server_callback_handlers.h:1 (transcoded+0x3)

  Previous write of size 8 at 0x1 by thread T22:
    #0 tc::daemon::JobManager::watch() {ROOT}/service/daemon/job_manager.cc:245 (transcoded+0x4)

SUMMARY: ThreadSanitizer: data race
==================
"""

THEIRS = """==================
WARNING: ThreadSanitizer: data race (pid=2)
  Read of size 8 at 0x2 by thread T23:
    #0 std::_Function_base::_M_empty() const /usr/include/c++/12/bits/std_function.h:247 (transcoded+0x1)
    #1 grpc::internal::CallbackWithSuccessTag::Run(bool) /usr/include/grpcpp/support/callback_common.h:212 (transcoded+0x2)

  Previous write of size 8 at 0x2 by thread T24:
    #0 std::function<void (bool)>::swap(std::function<void (bool)>&) /usr/include/c++/12/bits/std_function.h:559 (transcoded+0x3)
    #1 grpc::internal::CallbackWithSuccessTag::Set() /usr/include/grpcpp/support/callback_common.h:168 (transcoded+0x4)

SUMMARY: ThreadSanitizer: data race
==================
"""


def verdict(*reports):
    with tempfile.TemporaryDirectory() as logs:
        for i, report in enumerate(reports):
            pathlib.Path(logs, f"tsan.{i}").write_text(report)
        run = subprocess.run([sys.executable, str(HERE / "tsan_ours.py"), ROOT, logs],
                             capture_output=True, text=True)
        return run.returncode, run.stdout


code, out = verdict(THEIRS, THEIRS)
assert code == 0 and "2 reports inside gRPC" in out and "0 races in our code" in out, out
code, out = verdict(THEIRS, OURS)
assert code == 1 and "1 races in our code" in out and "watch_reactor.cc" in out, out
code, out = verdict()
assert code == 0, out
print("ok")
