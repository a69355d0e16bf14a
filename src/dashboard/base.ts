/** Where the dashboard is served (vite.config.ts builds for it; http/dashboard.ts serves it there). */
export const BASE = '/app';
