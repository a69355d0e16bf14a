/**
 * Faults the sandbox injects into the sends it receives, switched by tests through /sandbox/faults
 * (only served with SANDBOX_FAULT_INJECTION): the provider failures Parley must survive without
 * losing a message or sending one twice. Held in the memory of the process that serves /sandbox.
 */

export const SEND_FAULTS = ['error', 'rate_limit', 'hang', 'lose_answer', 'reset'] as const;
/**
 * - error: 500, nothing recorded (a provider fault; retryable);
 * - rate_limit: 429 with Retry-After, nothing recorded;
 * - hang: no answer and nothing recorded, until the caller gives up (a timeout before the provider got it);
 * - lose_answer: the send is accepted and recorded, then no answer (a timeout after the provider got it);
 * - reset: the connection is cut before anything is recorded.
 */
export type SendFault = (typeof SEND_FAULTS)[number];

export type FaultRule = {
  fault: SendFault;
  /** Only sends of this number (phone_number_id) or session; every account when unset. */
  account?: string;
  /** How many sends it hits, then it stays off; unlimited when unset. */
  times?: number;
};

export type FaultSwitch = {
  set(rules: FaultRule[]): void;
  list(): Array<FaultRule & { hits: number }>;
  /** The fault for this send of `account`, counting the hit; undefined when none applies. */
  take(account: string): SendFault | undefined;
};

export function createFaultSwitch(): FaultSwitch {
  let rules: Array<FaultRule & { hits: number }> = [];
  return {
    set(next) {
      rules = next.map((rule) => ({ ...rule, hits: 0 }));
    },
    list: () => rules.map((rule) => ({ ...rule })),
    take(account) {
      const rule = rules.find((r) => (r.account === undefined || r.account === account) && (r.times === undefined || r.hits < r.times));
      if (!rule) return undefined;
      rule.hits++;
      return rule.fault;
    },
  };
}

/** The rules of a PUT /sandbox/faults body, or the problem with it. */
export function parseFaultRules(body: unknown): { ok: true; rules: FaultRule[] } | { ok: false; message: string } {
  const rules = (body as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules) || rules.length > 100) return { ok: false, message: 'rules must be an array of at most 100 {fault, account?, times?}' };
  const parsed: FaultRule[] = [];
  for (const [i, rule] of rules.entries()) {
    const r = rule as Record<string, unknown> | null;
    if (!r || typeof r !== 'object' || !SEND_FAULTS.includes(r.fault as SendFault)) return { ok: false, message: `rules[${i}].fault must be one of ${SEND_FAULTS.join(', ')}` };
    if (r.account !== undefined && (typeof r.account !== 'string' || r.account === '' || r.account.length > 200)) return { ok: false, message: `rules[${i}].account must be a phone_number_id or a session` };
    if (r.times !== undefined && (!Number.isInteger(r.times) || (r.times as number) < 1)) return { ok: false, message: `rules[${i}].times must be a positive integer` };
    parsed.push({ fault: r.fault as SendFault, ...(r.account !== undefined ? { account: r.account as string } : {}), ...(r.times !== undefined ? { times: r.times as number } : {}) });
  }
  return { ok: true, rules: parsed };
}
