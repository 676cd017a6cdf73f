#include "service/transcode/doctor_command.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "service/doctor/doctor.h"

namespace tc::cli {
namespace {

struct DoctorArgs {
  doctor::Roots roots;
  bool json = false;
  bool no_transcode = false;
};

}  // namespace

void add_doctor_command(CLI::App& root, CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "doctor",
      "check this node (or container) for VA-API transcoding, with the fix for each "
      "failure");
  auto args = std::make_shared<DoctorArgs>();
  command->add_flag("--json", args->json, "print the checks as JSON");
  command->add_flag("--no-transcode", args->no_transcode,
                    "skip the one-second test transcode per codec");
  // Where the checks look: fake trees in tests, the host's trees mounted elsewhere otherwise.
  command->add_option("--dev-root", args->roots.dev, "where dri/renderD* are")
      ->capture_default_str()
      ->type_name("DIR");
  command->add_option("--sys-root", args->roots.sys, "sysfs")
      ->capture_default_str()
      ->type_name("DIR");
  command->add_option("--proc-root", args->roots.proc, "procfs")
      ->capture_default_str()
      ->type_name("DIR");
  command->add_option("--debugfs-root", args->roots.debugfs, "debugfs (GuC/HuC state)")
      ->capture_default_str()
      ->type_name("DIR");
  actions[command] = [args] {
    doctor::Options options;
    options.roots = args->roots;
    options.env = doctor::process_env();
    options.test_transcode = !args->no_transcode;
    doctor::Report report = doctor::run_doctor(options);
    std::cout << (args->json ? doctor::report_to_json(report) + "\n"
                             : doctor::format_table(report));
    return report.exit_code();
  };
}

}  // namespace tc::cli
