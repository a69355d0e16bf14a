/**
 * Throttle keys: `<purpose>:<subject kind>:<subject>`. Addresses are keyed by what one party
 * controls: an IPv4 address, or an IPv6 /64 (one customer's usual allocation, so hopping within it
 * gains nothing).
 */
import ipaddr from 'ipaddr.js';

/** The part of an address one party controls, as text. */
export function addressSubject(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 100);
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

export const throttleKeys = {
  loginAccount: (email: string) => `login:account:${email.trim().toLowerCase()}`,
  loginAddress: (address: string) => `login:ip:${addressSubject(address)}`,
  /** Guesses of device user codes (the device verification page), per signed-in user and per address. */
  userCodeUser: (userId: string) => `user_code:user:${userId}`,
  userCodeAddress: (address: string) => `user_code:ip:${addressSubject(address)}`,
  /** Invitation links looked up or accepted, per address (a link is 32 random bytes: this stops floods, not luck). */
  invitationAddress: (address: string) => `invitation:ip:${addressSubject(address)}`,
  /** Password-reset tokens presented, per address. */
  passwordResetAddress: (address: string) => `password_reset:ip:${addressSubject(address)}`,
};
