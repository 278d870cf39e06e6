// The containers' health check (`node healthcheck.js` in every image; scripts/image-bundle.sh puts
// it there): exit 0 when the ops port's /readyz answers 2xx. A file rather than `node -e '…'` in
// the compose file, because podman's Docker API splits a health check's arguments at spaces.
fetch(`http://127.0.0.1:${process.env.OPS_PORT ?? 9100}/readyz`).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
