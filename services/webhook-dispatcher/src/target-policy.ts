import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard: which addresses a webhook may be sent to. Only globally routed unicast is
 * allowed by default; everything a merchant's URL could use to reach inside our network
 * (loopback, private, link-local and cloud metadata, CGNAT, multicast, unspecified, reserved,
 * IPv6 unique-local, and IPv6 forms that embed an IPv4 address) is refused.
 */
export type AddressVerdict = { allowed: true } | { allowed: false; kind: string };

/** Instance metadata services (AWS, GCP, Azure, OpenStack on IPv4; AWS on IPv6). */
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

export function classifyAddress(address: string): AddressVerdict {
  if (!ipaddr.isValid(address)) return { allowed: false, kind: 'not an IP address' };
  let parsed = ipaddr.parse(address);
  // ::ffff:10.0.0.1 reaches 10.0.0.1: judge the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const normalized = parsed.toNormalizedString();
  if (CLOUD_METADATA.has(parsed.toString()) || CLOUD_METADATA.has(normalized)) {
    return { allowed: false, kind: 'a cloud metadata address' };
  }
  const range = parsed.range();
  if (range === 'unicast') return { allowed: true };
  return { allowed: false, kind: `a ${range} address` };
}

/** Why a target was refused; a refused delivery is dead-lettered, never retried. */
export class TargetRefused extends Error {
  constructor(reason: string) {
    super(`target refused: ${reason}`);
    this.name = 'TargetRefused';
  }
}

/**
 * Checks what can be checked before connecting: the scheme, and the host when it is an IP
 * literal (the socket connects to a literal without any DNS lookup, so the lookup guard below
 * never sees it). Returns the refusal, or null.
 */
export function refuseUrl(url: string, allowPrivate: boolean): TargetRefused | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return new TargetRefused(`${url} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return new TargetRefused(`${parsed.protocol} is not http or https`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (allowPrivate || net.isIP(host) === 0) return null;
  const verdict = classifyAddress(host);
  return verdict.allowed ? null : new TargetRefused(`${host} is ${verdict.kind}`);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A dns.lookup for the HTTP client that resolves the host, refuses it when ANY of its addresses is
 * refused, and hands the socket exactly the addresses it checked: the connection goes to a checked
 * address, so a DNS answer that changes between check and connect (rebinding) cannot slip through.
 * `onRefused` records the refusal, which the client otherwise reports as a plain request error.
 */
export function guardedLookup(onRefused: (refusal: TargetRefused) => void) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const { address } of addresses) {
        const verdict = classifyAddress(address);
        if (!verdict.allowed) {
          const refusal = new TargetRefused(`${hostname} resolves to ${address}, ${verdict.kind}`);
          onRefused(refusal);
          return callback(refusal, []);
        }
      }
      const first = addresses[0];
      if (options.all) return callback(null, addresses);
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
