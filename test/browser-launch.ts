/** How the browser tests' Chromium is started: Debian's, headless, with nothing reaching out to the network. */
export const CHROMIUM = '/usr/bin/chromium';

export const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
