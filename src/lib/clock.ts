/** The time source, passed in so tests can move it. */
export type Clock = { now(): Date };

export const systemClock: Clock = { now: () => new Date() };
