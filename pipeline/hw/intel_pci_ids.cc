// Every PCI id intel/media-driver (iHD) registers a device for, by platform, with the generation
// of our profiles it belongs to. Each group is copied whole from the file named above it (path
// at the commit given; the ids are the arguments of its RegisterDevice(0x...) lines, in the
// file's order):
//
//   BDW          media_driver/linux/gen8/ddi/media_sysinfo_g8.cpp @34d9e78 (bdwDevice1602..163b)
//   SKL BXT GLK  media_driver/linux/gen9/ddi/media_sysinfo_g9.cpp @79c20b7 (sklDevice1902..
//   KBL CFL CML  cmlDevice87ca; GLK's are registered as 0x3184/0x3185)
//   AML
//   ICL EHL JSL  media_driver/linux/gen11/ddi/media_sysinfo_g11.cpp @4b5a279 (icllpDeviceff05..
//                ehlDevice4E71)
//   TGL RKL DG1  media_driver/linux/gen12/ddi/media_sysinfo_g12.cpp @c06e8b0 (dg1Gt2Device4905..
//   ADL RPL TWL  tgllpGt2Device9ad9)
//   DG2 ATS-M    media_driver/linux/Xe_M/ddi/media_sysinfo_xe.cpp @e7ba5c8 (dg2Gt4Device4F80..
//                56C1; the XeHP SDV and Ponte Vecchio ids there have no video engines we use)
//   MTL          media_softlet/linux/Xe_M_plus/ddi/media_sysinfo_mtl.cpp @258ad1a
//   LNL          media_softlet/linux/xe2_lpm/ddi/media_sysinfo_lnl.cpp @1b8f7b4
//   BMG          media_softlet/linux/xe2_hpm/ddi/media_sysinfo_bmg.cpp @892b21b
//
// Arrow Lake's ids are Linux's INTEL_ARL_IDS (include/drm/intel/pciids.h); iHD drives them as
// MTL. Marketing names (the first column of kNames) are Mesa's include/pci_ids/iris_pci_ids.h.
#include "pipeline/hw/intel_pci_ids.h"

#include <array>
#include <initializer_list>
#include <vector>

namespace tc {
namespace {

struct Platform {
  std::string_view code;        // "CFL"
  std::string_view name;        // "Coffee Lake"
  std::string_view generation;  // our profile key: "kbl"
  std::vector<uint16_t> ids;
};

const std::vector<Platform>& platforms() {
  static const std::vector<Platform> all{
      {"BDW",
       "Broadwell",
       "bdw",
       {0x1602, 0x1606, 0x160a, 0x160d, 0x160e, 0x160b, 0x1612, 0x1616, 0x161a, 0x161d, 0x161e,
        0x161b, 0x1622, 0x1626, 0x162b, 0x162a, 0x162d, 0x162e, 0x163b}},
      {"SKL", "Skylake", "skl", {0x1902, 0x1906, 0x190a, 0x190b, 0x190e, 0x1913, 0x1915,
                                 0x1917, 0x1912, 0x1916, 0x191a, 0x191b, 0x191d, 0x191e,
                                 0x1921, 0x1923, 0x192b, 0x1926, 0x1927, 0x192d, 0x192a,
                                 0x1932, 0x193a, 0x193b, 0x193d}},
      {"APL", "Apollo Lake (Broxton)", "bxt", {0x0a84, 0x1a84, 0x1a85, 0x5a84, 0x5a85}},
      {"GLK", "Gemini Lake", "bxt", {0x3184, 0x3185}},
      {"KBL", "Kaby Lake", "kbl", {0x5906, 0x5902, 0x5908, 0x590a, 0x590b, 0x590e, 0x5913, 0x5915,
                                   0x5916, 0x5917, 0x5912, 0x591e, 0x591a, 0x591b, 0x591d, 0x5921,
                                   0x5923, 0x5926, 0x5927, 0x593b, 0x5932, 0x592b, 0x592a}},
      {"CFL", "Coffee Lake", "kbl", {0x3e93, 0x3e99, 0x3e90, 0x3e92, 0x3e94, 0x3e91, 0x3e96,
                                     0x3e98, 0x3e9a, 0x3e9b, 0x3e9c, 0x3ea5, 0x3ea6, 0x3ea7,
                                     0x3ea8, 0x3ea9, 0x3ea1, 0x3ea4, 0x3ea0, 0x3ea3, 0x3ea2}},
      {"CML", "Comet Lake", "kbl", {0x9b21, 0x9baa, 0x9bab, 0x9bac, 0x9ba0, 0x9ba5, 0x9ba8,
                                    0x9ba4, 0x9ba2, 0x9b41, 0x9bca, 0x9bcb, 0x9bcc, 0x9bc0,
                                    0x9bc5, 0x9bc6, 0x9bc8, 0x9bc4, 0x9bc2, 0x9be6, 0x9bf6}},
      {"AML", "Amber Lake", "kbl", {0x591c, 0x87c0, 0x87ca}},
      {"ICL",
       "Ice Lake",
       "icl",
       {0xff05, 0x8a50, 0x8a51, 0x8a52, 0x8a53, 0x8a56, 0x8a57, 0x8a58, 0x8a59, 0x8a5d, 0x8a5c,
        0x8a5b, 0x8a5a, 0x8a71}},
      {"EHL", "Elkhart Lake", "ehl", {0x4500, 0x4571, 0x4551, 0x4541}},
      {"JSL", "Jasper Lake", "ehl", {0x4e51, 0x4e61, 0x4e71}},
      {"DG1", "DG1", "dg1", {0x4905, 0x4906, 0x4907, 0x4908, 0x4909}},
      {"RKL", "Rocket Lake", "tgl", {0x4c80, 0x4c8a, 0x4c8b, 0x4c8c, 0x4c90, 0x4c9a}},
      {"ADL-S",
       "Alder Lake-S",
       "tgl",
       {0x4680, 0x4681, 0x4682, 0x4683, 0x4688, 0x468a, 0x468b, 0x4690, 0x4691, 0x4692, 0x4693}},
      {"RPL-S",
       "Raptor Lake-S",
       "tgl",
       {0xa780, 0xa781, 0xa782, 0xa783, 0xa788, 0xa789, 0xa78a, 0xa78b}},
      {"ADL-P",
       "Alder Lake-P",
       "tgl",
       {0x46a0, 0x46a1, 0x46a2, 0x46a3, 0x46a6, 0x4626, 0x46b0, 0x46b1, 0x46b2, 0x46b3, 0x46a8,
        0x4628, 0x46c0, 0x46c1, 0x46c2, 0x46c3, 0x46aa, 0x462a}},
      {"RPL-P",
       "Raptor Lake-P",
       "tgl",
       {0xa7a0, 0xa720, 0xa7a8, 0xa7a1, 0xa721, 0xa7a9, 0xa7aa, 0xa7ab, 0xa7ac, 0xa7ad}},
      {"ADL-N", "Alder Lake-N", "tgl", {0x46d0, 0x46d1, 0x46d2}},
      {"TWL", "Twin Lake", "tgl", {0x46d3, 0x46d4}},
      {"TGL",
       "Tiger Lake",
       "tgl",
       {0x9a40, 0x9a49, 0x9a59, 0x9a60, 0x9a68, 0x9a70, 0x9a78, 0x9ac9, 0x9af8, 0x9ac0, 0x9ad9}},
      {"DG2", "Alchemist", "dg2", {0x4f80, 0x4f81, 0x4f82, 0x4f83, 0x4f84, 0x4f85, 0x4f86, 0x4f87,
                                   0x4f88, 0x5690, 0x5691, 0x5692, 0x5693, 0x5694, 0x5695, 0x5696,
                                   0x5697, 0x56a0, 0x56a1, 0x56a2, 0x56a3, 0x56a4, 0x56a5, 0x56a6,
                                   0x56b0, 0x56b1, 0x56ba, 0x56bb, 0x56bc, 0x56bd, 0x56b2, 0x56b3}},
      {"ATS-M", "Arctic Sound-M", "dg2", {0x56c0, 0x56c1}},
      {"MTL", "Meteor Lake", "mtl", {0x7d40, 0x7d55, 0x7dd5, 0x7d45, 0x7d60, 0x7d57, 0x7dd7}},
      {"ARL", "Arrow Lake", "mtl", {0x7d41, 0x7d51, 0x7d67, 0x7dd1}},
      {"LNL", "Lunar Lake", "lnl", {0x6480, 0x64a0, 0x64b0, 0x6420}},
      {"BMG", "Battlemage", "bmg", {0xe202, 0xe20b, 0xe20c, 0xe20d, 0xe212, 0xe215, 0xe216}},
  };
  return all;
}

struct Name {
  uint16_t device_id;
  std::string_view marketing;
  std::string_view platform;  // overrides the group's code where the kernel splits it (WHL)
};

// Marketing names for the ids users report most; the rest are named by their platform.
constexpr std::array kNames{
    Name{0x1616, "HD Graphics 5500", ""},
    Name{0x1912, "HD Graphics 530", ""},
    Name{0x1916, "HD Graphics 520", ""},
    Name{0x193B, "Iris Pro Graphics 580", ""},
    Name{0x5A84, "HD Graphics 505", ""},
    Name{0x5A85, "HD Graphics 500", ""},
    Name{0x3184, "UHD Graphics 605", ""},
    Name{0x3185, "UHD Graphics 600", ""},
    Name{0x5912, "HD Graphics 630", ""},
    Name{0x5916, "HD Graphics 620", ""},
    Name{0x5917, "UHD Graphics 620", ""},
    Name{0x3E92, "UHD Graphics 630", ""},
    Name{0x3E98, "UHD Graphics 630", ""},
    Name{0x3E9B, "UHD Graphics 630", ""},
    Name{0x3EA0, "UHD Graphics 620", "WHL"},
    Name{0x9BC5, "UHD Graphics 630", ""},
    Name{0x9BC8, "UHD Graphics 630", ""},
    Name{0x8A52, "Iris Plus Graphics G7", ""},
    Name{0x8A56, "UHD Graphics G1", ""},
    Name{0x8A5A, "Iris Plus Graphics G4", ""},
    Name{0x4E61, "UHD Graphics", ""},
    Name{0x4E71, "UHD Graphics", ""},
    Name{0x4571, "UHD Graphics", ""},
    Name{0x9A49, "Iris Xe Graphics", ""},
    Name{0x9A40, "Iris Xe Graphics", ""},
    Name{0x9A78, "UHD Graphics", ""},
    Name{0x4C8A, "UHD Graphics 750", ""},
    Name{0x4C8B, "UHD Graphics 730", ""},
    Name{0x4680, "UHD Graphics 770", ""},
    Name{0x4692, "UHD Graphics 730", ""},
    Name{0x46A6, "Iris Xe Graphics", ""},
    Name{0x46D1, "UHD Graphics", ""},
    Name{0xA780, "UHD Graphics 770", ""},
    Name{0xA7A0, "Iris Xe Graphics", ""},
    Name{0x4905, "Iris Xe MAX Graphics", ""},
    Name{0x4907, "Server GPU SG-18M", "SG1"},
    Name{0x56A0, "Arc A770", ""},
    Name{0x56A1, "Arc A750", ""},
    Name{0x56A2, "Arc A580", ""},
    Name{0x56A5, "Arc A380", ""},
    Name{0x56A6, "Arc A310", ""},
    Name{0x5690, "Arc A770M", ""},
    Name{0x5693, "Arc A370M", ""},
    Name{0x56C0, "Data Center GPU Flex 170", ""},
    Name{0x56C1, "Data Center GPU Flex 140", ""},
    Name{0x7D55, "Arc Graphics", ""},
    Name{0x7D45, "Graphics", ""},
    Name{0x7DD5, "Graphics", ""},
    Name{0x7D51, "Arc Graphics", "ARL-H"},
    Name{0x7D67, "Graphics", "ARL-S"},
    Name{0x64A0, "Arc 130V/140V", ""},
    Name{0xE20B, "Arc B580", ""},
    Name{0xE20C, "Arc B570", ""},
};

const Platform* platform_of(uint16_t id) {
  for (const Platform& platform : platforms())
    for (uint16_t known : platform.ids)
      if (known == id) return &platform;
  return nullptr;
}

const Name* name_of(uint16_t id) {
  for (const Name& name : kNames)
    if (name.device_id == id) return &name;
  return nullptr;
}

}  // namespace

std::string intel_model_name(uint16_t pci_device_id) {
  const Platform* platform = platform_of(pci_device_id);
  if (!platform) return {};
  const Name* name = name_of(pci_device_id);
  if (!name) return std::string(platform->name) + " GPU (" + std::string(platform->code) + ")";
  std::string_view code = name->platform.empty() ? platform->code : name->platform;
  return std::string(name->marketing) + " (" + std::string(code) + ")";
}

std::string_view intel_generation_of(uint16_t pci_device_id) {
  const Platform* platform = platform_of(pci_device_id);
  return platform ? platform->generation : std::string_view();
}

std::string_view intel_platform_of(uint16_t pci_device_id) {
  const Platform* platform = platform_of(pci_device_id);
  return platform ? platform->code : std::string_view();
}

}  // namespace tc
