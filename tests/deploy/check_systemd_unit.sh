#!/usr/bin/env bash
# deploy/systemd/transcoded.service: systemd's own checks, offline (no running systemd needed).
#   check_systemd_unit.sh UNIT [TRANSCODED]
# - `systemd-analyze verify` must print nothing: an unknown or misspelt option is only a
#   warning to systemd, but a failure here. ExecStart's binary is pointed at the one built
#   (TRANSCODED) so verify can check that it exists and is executable.
# - `systemd-analyze security --offline` must rate the hardening at most 3.0 ("OK").
# - the GPU access this issue is about: DeviceAllow for DRM, the render group.
set -euo pipefail
command -v systemd-analyze >/dev/null \
  || { echo "FAIL systemd-analyze not found: install the Debian package systemd"; exit 1; }
unit=$1
binary=${2:-/bin/true}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s|/usr/local/bin/transcoded|$binary|" "$unit" > "$work/transcoded.service"

output=$(systemd-analyze verify --man=no "$work/transcoded.service" 2>&1) || {
  echo "FAIL systemd-analyze verify: $output"; exit 1; }
[[ -z $output ]] || { echo "FAIL systemd-analyze verify warns: $output"; exit 1; }

systemd-analyze security --offline=yes --threshold=30 "$work/transcoded.service" > "$work/security" 2>&1 \
  || { cat "$work/security"; echo "FAIL hardening exposure above 3.0"; exit 1; }
grep 'Overall exposure level' "$work/security"

for required in '^DevicePolicy=closed$' '^DeviceAllow=char-drm rw$' '^SupplementaryGroups=.*\brender\b' \
                '^NoNewPrivileges=yes$' '^User=transcoded$' '^ProtectSystem=strict$'; do
  grep -Eq "$required" "$unit" || { echo "FAIL $unit: no line matching $required"; exit 1; }
done
echo "ok $unit"
