# Sourced by scripts/load and scripts/bench-desk: a throwaway PostgreSQL cluster (initdb into $work/pg as the postgres
# user when run as root, trust authentication on 127.0.0.1, a free port). `start_cluster DB` sets $pg_bin, $pg_port,
# $pg_data and $url; `stop_cluster` stops it (the callers' EXIT traps call it, also on failure).
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_cluster() {
    pg_bin=$(pg_config --bindir 2>/dev/null || true)
    [ -x "$pg_bin/initdb" ] || pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -x "$pg_bin/initdb" ] || { echo "PostgreSQL is not installed (scripts/setup --tests installs it)" >&2; exit 1; }
    pg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    [ "$(id -u)" -eq 0 ] && chown postgres "$work"
    as_postgres "$pg_bin/initdb" -D "$work/pg" -U vault -A trust --no-sync -E UTF8 >/dev/null
    pg_data="$work/pg"
    as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -l "$work/pg.log" -w -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
    "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U vault "$1"
    url="postgres://vault@127.0.0.1:$pg_port/$1"
}

stop_cluster() {
    [ -n "${pg_data:-}" ] && as_postgres "$pg_bin/pg_ctl" -D "$pg_data" -m fast stop >/dev/null 2>&1 || true
    pg_data=""
}
