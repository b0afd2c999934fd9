# Sourced by the test-server scripts (pg-test-server.sh, slurm-test-server.sh).
# port_free PORT: true when nothing listens on PORT, on any address.
port_free() {
  if command -v ss >/dev/null 2>&1; then
    [ -z "$(ss -ltnH "sport = :$1" 2>/dev/null)" ]
  else
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 1; fi
  fi
}
