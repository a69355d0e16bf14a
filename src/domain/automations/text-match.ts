/**
 * The message text operators of a rule's conditions: contains, equals, starts_with and regex. A regex
 * runs on RE2JS (the RE2 engine in JavaScript): its matching time is linear in the text, so no pattern
 * a rule's author writes can backtrack catastrophically on a customer's message (DECISIONS). Patterns
 * and the text looked at are bounded besides.
 */
import { RE2JS } from 're2js';

export const TEXT_OPS = ['contains', 'equals', 'starts_with', 'regex'] as const;
export type TextOp = (typeof TEXT_OPS)[number];
/** The longest value (a pattern included) a condition holds. */
export const TEXT_VALUE_MAX = 500;
/** How much of a message's text is looked at. */
export const TEXT_INPUT_MAX = 4096;

const compiled = new Map<string, RE2JS>();

function patternOf(value: string, caseSensitive: boolean): RE2JS {
  const key = `${caseSensitive ? 1 : 0}${value}`;
  let re = compiled.get(key);
  if (!re) {
    if (compiled.size > 1000) compiled.clear();
    re = RE2JS.compile(value, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
    compiled.set(key, re);
  }
  return re;
}

/** Why a pattern does not compile (RE2 syntax: no backreferences or lookaround), or null. */
export function regexProblem(value: string): string | null {
  try {
    RE2JS.compile(value);
    return null;
  } catch (err) {
    return `not a valid pattern: ${(err as Error).message}`.slice(0, 300);
  }
}

/** Whether the text fits the operator and value. Text compares case-insensitively unless asked otherwise. */
export function textMatches(text: string, op: TextOp, value: string, caseSensitive = false): boolean {
  const input = text.slice(0, TEXT_INPUT_MAX);
  if (op === 'regex') return patternOf(value, caseSensitive).matcher(input).find();
  const a = caseSensitive ? input : input.toLowerCase();
  const b = caseSensitive ? value : value.toLowerCase();
  switch (op) {
    case 'contains':
      return a.includes(b);
    case 'equals':
      return a.trim() === b.trim();
    case 'starts_with':
      return a.trimStart().startsWith(b);
    default:
      return op satisfies never;
  }
}
