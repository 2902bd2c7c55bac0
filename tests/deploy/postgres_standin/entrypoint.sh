# The official postgres image's first start, in short: as root, hand the data folder to postgres; if it
# holds no cluster, initdb one with POSTGRES_USER and POSTGRES_PASSWORD and create POSTGRES_DB; then
# run the server as postgres, listening on every address.
set -eu
: "${POSTGRES_PASSWORD:?the postgres stand-in needs POSTGRES_PASSWORD, as the official image does}"
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  chown postgres "$pwfile"
  as_postgres initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    # on a socket of its own, so that the health check's pg_isready sees no server until it is ready
    init_socket=$(mktemp -d)
    chown postgres "$init_socket"
    as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=$init_socket" -w start
    as_postgres psql -h "$init_socket" -v ON_ERROR_STOP=1 -U "$user" -d postgres \
      -c "CREATE DATABASE \"$db\" OWNER \"$user\""
    as_postgres pg_ctl -D "$PGDATA" -m fast -w stop
    rm -rf "$init_socket"
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" -c listen_addresses='*'
