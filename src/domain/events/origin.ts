/**
 * Who caused the events being recorded, when it is not a person or a client: an automation rule's
 * actions run inside `asAutomation(ruleId, …)`, and every event recorded meanwhile (by whichever
 * domain function the action calls, in whichever transaction) carries the rule's id in
 * events.automation_rule_id. Rules never trigger on such events (domain/automations: the loop guard),
 * and the domain functions the actions call stay as they are: none of them has to pass it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const origin = new AsyncLocalStorage<{ automationRuleId: string }>();

/** Runs fn with the events it records marked as the rule's. */
export function asAutomation<T>(automationRuleId: string, fn: () => Promise<T>): Promise<T> {
  return origin.run({ automationRuleId }, fn);
}

/** The automation rule whose action is running here, or null. */
export function automationOrigin(): string | null {
  return origin.getStore()?.automationRuleId ?? null;
}
