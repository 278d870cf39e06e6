#!/usr/bin/env bash
# compose-psp-pki.sh <dir>: the certificates of the compose stack's PSP connection, with the names
# and roles tools/devstack/src/certificates.ts gives make up's, for compose's host names:
#  - the PSP's CA (psp-ca) signs the simulator's API server certificate (psp-server, for the name
#    psp-simulator), the client certificate it issued to the platform (adapter-client) and the
#    simulator's own for its callbacks (psp-callback-client, which the adapter pins by its CN);
#  - the platform's CA (platform-ca) signs the adapter's callback server certificate
#    (adapter-callback-server, for the name pix-provider-adapter).
# Made once: a folder holding `complete` is kept as it is. Keys are readable by this user only
# (scripts/compose-secrets.sh hands them to the containers' user); the CAs' keys are never mounted.
set -euo pipefail
dir=${1:?usage: compose-psp-pki.sh <dir>}
days=${PSP_PKI_DAYS:-365}
[[ -e $dir/complete ]] && exit 0
rm -rf "$dir"
mkdir -p "$dir"
chmod 700 "$dir"
cd "$dir"
umask 077

ca() {
  openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=$1" -keyout "$1.key" -out "$1.crt" 2>/dev/null
}
# leaf <ca> <name> <X.509 extensions>
leaf() {
  printf '%s\n' "$3" >"$2.ext"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout "$2.key" -out "$2.csr" 2>/dev/null
  openssl x509 -req -in "$2.csr" -CA "$1.crt" -CAkey "$1.key" -CAcreateserial -days "$days" \
    -extfile "$2.ext" -out "$2.crt" 2>/dev/null
  rm -f "$2.csr" "$2.ext"
}
server() { printf 'subjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth' "$1"; }
client='extendedKeyUsage=clientAuth'

ca psp-ca
ca platform-ca
leaf psp-ca psp-server "$(server psp-simulator)"
leaf psp-ca adapter-client "$client"
leaf psp-ca psp-callback-client "$client"
leaf platform-ca adapter-callback-server "$(server pix-provider-adapter)"
# Certificates are public: readable by the containers' user whoever owns them.
chmod 644 ./*.crt
touch complete
