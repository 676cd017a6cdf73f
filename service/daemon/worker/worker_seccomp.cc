#include "service/daemon/worker/worker_seccomp.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

namespace tc::daemon {
namespace {

#if defined(__x86_64__)
constexpr __u32 kArchitecture = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr __u32 kArchitecture = AUDIT_ARCH_AARCH64;
#else
constexpr __u32 kArchitecture = 0;
#endif

// LeakSanitizer stops the world with ptrace at exit: its builds keep ptrace.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kKeepPtrace = true;
#else
constexpr bool kKeepPtrace = false;
#endif

std::vector<long> refused_calls() {
  std::vector<long> calls = {SYS_process_vm_readv,
                             SYS_process_vm_writev,
                             SYS_mount,
                             SYS_umount2,
                             SYS_pivot_root,
                             SYS_chroot,
                             SYS_swapon,
                             SYS_swapoff,
                             SYS_reboot,
                             SYS_kexec_load,
                             SYS_kexec_file_load,
                             SYS_init_module,
                             SYS_finit_module,
                             SYS_delete_module,
                             SYS_bpf,
                             SYS_perf_event_open,
                             SYS_keyctl,
                             SYS_add_key,
                             SYS_request_key,
                             SYS_unshare,
                             SYS_setns,
                             SYS_userfaultfd,
                             SYS_open_by_handle_at,
                             SYS_name_to_handle_at,
                             SYS_acct,
                             SYS_quotactl,
                             SYS_io_uring_setup,
                             SYS_io_uring_enter,
                             SYS_io_uring_register};
  if (!kKeepPtrace) calls.push_back(SYS_ptrace);
  return calls;
}

sock_filter statement(__u16 code, __u32 k) {
  return BPF_STMT(code, k);
}

sock_filter jump(__u16 code, __u32 k, __u8 if_true, __u8 if_false) {
  return BPF_JUMP(code, k, if_true, if_false);
}

// arch check, then one comparison per refused call, each jumping to the EPERM return at the end.
std::vector<sock_filter> program() {
  std::vector<long> calls = refused_calls();
  std::vector<sock_filter> code = {
      statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      jump(BPF_JMP | BPF_JEQ | BPF_K, kArchitecture, 1, 0),
      statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),  // another ABI's numbers: refuse all
      statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
  };
#if defined(__x86_64__)
  // The x32 ABI shares the architecture with its own numbers (bit 30): refused whole.
  code.push_back(
      jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, static_cast<__u8>(calls.size() + 1), 0));
#endif
  for (size_t i = 0; i < calls.size(); ++i)
    code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(calls[i]),
                        static_cast<__u8>(calls.size() - i), 0));
  code.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  code.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
  return code;
}

}  // namespace

Status apply_worker_seccomp() {
  if (kArchitecture == 0) return {Code::kUnsupported, "seccomp: no filter for this architecture"};
  std::vector<sock_filter> code = program();
  sock_fprog filter{static_cast<unsigned short>(code.size()), code.data()};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) != 0)
    return {Code::kInternal, std::string("seccomp: ") + std::strerror(errno)};
  return Status::ok();
}

}  // namespace tc::daemon
