#!/usr/bin/env bash
# `make run`: starts Vedette in the foreground on the demo configuration, after printing once where
# everything is (read from the config itself) and how to talk to it. Once the command file is there, it
# schedules the demo's downtime through it, as an admin would.
#
#   scripts/demo-run.sh VEDETTE_BINARY [MAIN_CONFIG]     (MAIN_CONFIG: etc/demo/vedette.cfg)
#
# The printing is here, not in the daemon: Vedette, like Naemon, says nothing on stdout when it starts.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 VEDETTE_BINARY [MAIN_CONFIG]" >&2; exit 2; }
binary=$1
config=$(realpath "${2:-$(dirname "$0")/../etc/demo/vedette.cfg}")
config_dir=$(dirname "$config")

# The last value of `name=` in the main config, resolved as Vedette resolves it: against the config's
# directory.
setting() {
  local value
  value=$(sed -n "s/^$1=//p" "$config" | tail -n 1)
  [ -n "$value" ] || { echo "demo-run: $config sets no $1" >&2; exit 1; }
  resolve "$value"
}
resolve() {
  case $1 in
    /*) realpath -m "$1" ;;
    *) realpath -m "$config_dir/$1" ;;
  esac
}

log_file=$(setting log_file)
status_file=$(setting status_file)
command_file=$(setting command_file)
# The Livestatus socket is the last argument of the livestatus broker_module line.
livestatus=$(resolve "$(awk '/^broker_module=.*livestatus\.o/ { socket = $NF } END { print socket }' "$config")")
resource_file=$(setting resource_file)
notifications=$(sed -n 's/^\$USER2\$=//p' "$resource_file" | tail -n 1)

mkdir -p "$(dirname "$log_file")" "$(dirname "$status_file")" "$(dirname "$command_file")" \
         "$(dirname "$livestatus")"

cat <<EOF
Vedette demo: $config
  log            $log_file
  status.dat     $status_file
  notifications  $notifications   (the demo's contact "mails" by appending here)
  Livestatus     $livestatus
      printf 'GET services\\nColumns: host_name description state plugin_output\\n\\n' | python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read()); s.shutdown(socket.SHUT_WR); [sys.stdout.buffer.write(b) for b in iter(lambda: s.recv(65536), b"")]' $livestatus
  command file   $command_file
      printf '[%s] SCHEDULE_FORCED_SVC_CHECK;localhost;Dummy;%s\\n' \$(date +%s) \$(date +%s) > $command_file
  Within a minute: "Flapping" starts flapping, "Goes critical and recovers" goes HARD CRITICAL and back
  every 30 s, and "TCP port 1 closed on purpose" is in a two-minute downtime.
  tail -f $log_file   to watch; Ctrl-C stops Vedette.

EOF

# The downtime (etc/demo/conf.d/localhost.cfg): fixed, from now for two minutes, entered once the core has
# opened its command file. A background job of a script ignores Ctrl-C, so it gives up on its own.
(
  for _ in $(seq 300); do
    if [ -p "$command_file" ]; then
      now=$(date +%s)
      printf '[%d] SCHEDULE_SVC_DOWNTIME;localhost;TCP port 1 closed on purpose;%d;%d;1;0;120;demo;Scheduled by make run (scripts/demo-run.sh) to show a downtime\n' \
        "$now" "$now" $((now + 120)) > "$command_file"
      exit 0
    fi
    sleep 0.1
  done
  echo "demo-run: $command_file never appeared; no downtime scheduled" >&2
) &

# The demo sets no naemon_user: started as root (a container, CI), it runs as root, which Naemon and Vedette
# only do with --allow-root.
exec "$binary" --allow-root "$config"
