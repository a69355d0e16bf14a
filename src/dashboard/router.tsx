/** A small history router for the routes under /app/ (the server answers index.html for each). */
import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';
import { BASE } from './base.ts';

/** The path below /app, always starting with '/'. */
function currentRoute(): string {
  const path = window.location.pathname;
  const rest = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  const trimmed = rest.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** Goes to a route under /app (it may carry a query). */
export function navigate(route: string, options: { replace?: boolean } = {}): void {
  const url = BASE + (route === '/' ? '/' : route);
  if (url === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return route;
}

type LinkProps = { to: string; className?: string; children: ReactNode; 'aria-current'?: 'page' | undefined };

/** An in-app link: a real href (open in a new tab works) that navigates without reloading. */
export function Link({ to, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={BASE + (to === '/' ? '/' : to)} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
