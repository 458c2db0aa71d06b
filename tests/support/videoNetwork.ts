/**
 * Non-loopback addresses for WebRTC peers on one machine: ICE does not pair loopback
 * addresses, and a CI machine may have no other interface. A veth pair (we run as root)
 * with a private /32 address on each end gives this host two addresses of its own;
 * Chromium gathers host candidates on them and the media flows between them inside
 * the kernel, never on a wire. Removed afterwards (deleting one end deletes both).
 */
import { execFileSync } from 'node:child_process';

export interface VideoNetwork {
  addresses: string[];
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

export function addVideoNetwork(): VideoNetwork {
  // Per process, so that two runs on one machine do not take each other's interfaces.
  const tag = (process.pid % 60000).toString(36);
  const [a, b] = [`rcv${tag}a`, `rcv${tag}b`];
  const octet = 1 + (process.pid % 250);
  const addresses = [`10.213.${octet}.1`, `10.213.${octet}.2`];
  ip('link', 'add', a, 'type', 'veth', 'peer', 'name', b);
  try {
    ip('addr', 'add', `${addresses[0]}/32`, 'dev', a);
    ip('addr', 'add', `${addresses[1]}/32`, 'dev', b);
    ip('link', 'set', a, 'up');
    ip('link', 'set', b, 'up');
  } catch (e) {
    ip('link', 'del', a);
    throw e;
  }
  return {
    addresses,
    remove() {
      try {
        ip('link', 'del', a);
      } catch {
        // Already gone.
      }
    },
  };
}
