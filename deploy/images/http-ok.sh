#!/bin/bash
# http-ok <port> <path>: exit 0 when 127.0.0.1:<port><path> answers 200. The health check of the
# local images, which have bash but no HTTP client.
set -euo pipefail
exec 3<>"/dev/tcp/127.0.0.1/$1"
printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
read -r _ status _ <&3
[ "$status" = 200 ]
