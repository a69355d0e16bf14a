/** What the gateway's sends are built from: the sandbox's context and its inserter of new sends. */
import type { SandboxContext } from '../context.ts';
import type { InsertNew } from './new-sends.ts';

export type GatewayContext = SandboxContext & { insertNew: InsertNew };
