/** The HTML page GET /v1/oauth/authorize shows when a request cannot be sent back to its client. */

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]!);

/** The page shown when a request cannot go back to its client: static, no script, no link to the unverified redirect_uri. */
export function authorizationErrorPage(problem: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Authorization failed · Parley</title>
<style>
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f4f5f7;color:#1f2328;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{background:#fff;border-radius:10px;box-shadow:0 1px 3px rgba(0,0,0,.12);padding:2rem;margin:1rem;max-width:34rem}
h1{font-size:1.25rem;margin:0 0 1rem}.problem{background:#fdecea;color:#8a1c12;border-radius:6px;padding:.75rem 1rem}
</style>
</head>
<body>
<main>
<h1>This authorization request cannot be used</h1>
<p class="problem">${escapeHtml(problem)}.</p>
<p>Nothing was sent back to the application. Return to it and try again; if this keeps happening, tell its developers.</p>
</main>
</body>
</html>
`;
}
