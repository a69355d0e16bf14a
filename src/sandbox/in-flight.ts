/**
 * The sends the sandbox is still recording, per account (number or session). A caller that gave up
 * on a send (its timeout) may ask about it while the sandbox is still writing it down; a real
 * provider lands such a request within its settle time (DispatchDeps.lookupSettleSeconds), but a
 * test that moves the clock asks at once. The lookup waits for the account's sends in flight, so it
 * answers as the provider would once they had landed, never "not found" for a send about to be kept.
 */
export type SendsInFlight = {
  /** Runs `work` (a send being recorded for `account`), counted as in flight until it settles. */
  track<T>(account: string, work: () => Promise<T>): Promise<T>;
  /** Resolves once every send of `account` in flight when called has settled (either way). */
  settled(account: string): Promise<void>;
};

export function createSendsInFlight(): SendsInFlight {
  const byAccount = new Map<string, Set<Promise<unknown>>>();
  return {
    track(account, work) {
      const promise = work();
      let set = byAccount.get(account);
      if (!set) byAccount.set(account, (set = new Set()));
      set.add(promise);
      const done = () => {
        set.delete(promise);
        if (set.size === 0 && byAccount.get(account) === set) byAccount.delete(account);
      };
      promise.then(done, done);
      return promise;
    },
    async settled(account) {
      const set = byAccount.get(account);
      if (set) await Promise.allSettled([...set]);
    },
  };
}
