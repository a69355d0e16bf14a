/**
 * A DOM for the dashboard's component tests under node's test runner (`node --test`, no browser):
 * happy-dom as the global window, the .tsx modules compiled on load (tsx-hooks.ts), and Testing
 * Library's React renderer, each page cleaned away after its test. A test awaits `setUpDom()` before
 * it imports any .tsx (those imports are dynamic: a static one would load before the hooks exist).
 *   const { render, screen } = await setUpDom();
 *   const { TextField } = await import('../../src/dashboard/forms.tsx');
 */
import { register } from 'node:module';
import { after, afterEach } from 'node:test';
import { GlobalRegistrator } from '@happy-dom/global-registrator';

let ready: Promise<typeof import('@testing-library/react')> | undefined;

/**
 * Once per process: the component test files run together in one (scripts/test.ts), and their hooks
 * at the top level are the whole run's.
 */
export function setUpDom() {
  ready ??= (async () => {
    register('./tsx-hooks.ts', import.meta.url);
    GlobalRegistrator.register({ url: 'http://localhost/app/' });
    // Imported only now: Testing Library reads `document` when it loads.
    const library = await import('@testing-library/react');
    afterEach(() => library.cleanup());
    after(() => GlobalRegistrator.unregister());
    return library;
  })();
  return ready;
}
