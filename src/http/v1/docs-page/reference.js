/**
 * The API reference page's additions to swagger-ui, served beside it as a theme script (from 'self':
 * the page's CSP allows no inline script). swagger-ui is a third party's, so what it draws is adjusted
 * here instead of patched: a plugin added to the configuration the initializer (which runs on `load`,
 * after this script) hands to SwaggerUIBundle, and names for the selects it leaves without one.
 */
/* global window, document, MutationObserver */
(function () {
  /** `Original` drawn inside an element of its own (a landmark, or a heading before it). */
  const inside = (type, props) => (Original, system) => (originalProps) =>
    system.React.createElement(type, props, system.React.createElement(Original, originalProps));
  const after = (type, props, text) => (Original, system) => (originalProps) =>
    system.React.createElement(
      system.React.Fragment,
      null,
      system.React.createElement(type, props, text),
      system.React.createElement(Original, originalProps),
    );

  function parleyReference() {
    return {
      wrapComponents: {
        // Every part of a page belongs to a landmark: swagger-ui puts the operations in <main>; the title
        // and description above are the page's banner, the server picker and Authorize regions of their own.
        InfoContainer: inside('header', { role: 'banner' }),
        ServersContainer: inside('section', { 'aria-label': 'Server' }),
        AuthorizeBtnContainer: inside('section', { 'aria-label': 'Authorization' }),
        // The groups of operations are level 3 headings under the title (level 1): this is the level 2 between.
        operations: after('h2', { className: 'parley-operations-title' }, 'Operations'),
        // An operation's summary row is one button; the deep link swagger-ui puts inside it would be a link
        // within a button (nested interactive controls). The button already puts the operation in the address.
        DeepLink: (Original, system) => (props) =>
          system.React.createElement(Original, { ...props, enabled: props.enabled && !String(props.path).includes('/') }),
      },
    };
  }

  const bundle = window.SwaggerUIBundle;
  if (typeof bundle === 'function') {
    window.SwaggerUIBundle = Object.assign(
      (config) => bundle({ ...config, plugins: [...(config.plugins || []), parleyReference] }),
      bundle,
    );
  }

  // Selects swagger-ui draws without a name, named as they appear (React leaves attributes it does not set alone).
  const NAMES = [
    ['select#servers', 'Server'],
    ['select.examples-select-element', 'Example'],
  ];
  const root = document.getElementById('swagger-ui');
  if (!root) return;
  new MutationObserver(() => {
    for (const [selector, name] of NAMES) {
      for (const select of root.querySelectorAll(`${selector}:not([aria-label])`)) select.setAttribute('aria-label', name);
    }
  }).observe(root, { childList: true, subtree: true });
})();
