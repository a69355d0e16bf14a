const h = await import('./test/harness.ts');
const s = await h.startTestServer();
await s.close();
