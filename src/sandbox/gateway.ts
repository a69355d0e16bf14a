/**
 * The paired-gateway protocol (docs/gateway-protocol.md), gateway side: sessions paired by QR code,
 * sends with idempotency keys, contacts and media.
 */
import { bindContext, type SandboxContext } from './context.ts';
import type { GatewayContext } from './gateway/context.ts';
import { rejectCall } from './gateway/calls.ts';
import { lookupContact, media } from './gateway/lookup.ts';
import * as profiles from './gateway/profiles.ts';
import { createNewSends } from './gateway/new-sends.ts';
import { link, pairingCode, qr, scan } from './gateway/pairing.ts';
import { findByKey, sendMessage, sendNew } from './gateway/send.ts';
import { authenticate, configure, describe, gatewayBaseOf, logout, provisionSession, start } from './gateway/session.ts';
import { createGatewayGroups } from './gateway/groups.ts';
import { createGatewayLabels } from './gateway/labels.ts';
import { createGatewayChats } from './gateway/chats.ts';

/**
 * The protocol's verbs, by what they touch, under gateway/: session.ts (provision, authenticate,
 * configure, start, describe, logout), pairing.ts (QR, pairing code, scan, link), send.ts (the
 * gathered new send, the full path, a key's send; new-sends.ts gathers), lookup.ts (contacts, media),
 * profiles.ts (profiles, blocking, privacy, privacy ids), calls.ts (rejecting a call), groups.ts
 * (groups, presence subscriptions, settings), labels.ts (labels, status posts); parse-send.ts reads a send's body.
 */
export function createGatewayApi(sandbox: SandboxContext) {
  const ctx: GatewayContext = { ...sandbox, insertNew: createNewSends(sandbox) };
  const bind = bindContext(ctx);
  return {
    gatewayBase: gatewayBaseOf(ctx),
    provisionSession: bind(provisionSession),
    authenticate,
    configure: bind(configure),
    start: bind(start),
    describe,
    qr: bind(qr),
    pairingCode: bind(pairingCode),
    logout: bind(logout),
    link: bind(link),
    scan: bind(scan),
    sendNew: bind(sendNew),
    send: bind(sendMessage),
    findByKey,
    lookupContact,
    media: bind(media),
    /** Groups, presence and settings (gateway/groups.ts). */
    groups: createGatewayGroups(ctx),
    /** Business labels and status posts (gateway/labels.ts). */
    labels: createGatewayLabels(ctx),
    /** Chats: archive, pin, mute, read, delete, history (gateway/chats.ts). */
    chats: createGatewayChats(ctx),
    // Contacts and profiles (gateway/profiles.ts) and calls (gateway/calls.ts).
    numberProfile: bind(profiles.numberProfile),
    ownProfile: bind(profiles.ownProfile),
    updateProfile: bind(profiles.updateProfile),
    setPicture: bind(profiles.setPicture),
    removePicture: bind(profiles.removePicture),
    blocklist: profiles.blocklist,
    setBlocked: bind(profiles.setBlocked),
    privacy: profiles.privacy,
    updatePrivacy: bind(profiles.updatePrivacy),
    numberOfLid: profiles.numberOfLid,
    lidOfNumber: profiles.lidOfNumber,
    rejectCall,
  };
}

export type GatewayApi = ReturnType<typeof createGatewayApi>;
